#!/usr/bin/env node
import { systemClock } from '../domain/clock.js'
import { runCommand } from './main.js'

// A reader that went away (`| head`) or a full disk is no reason for a stack trace: runCommand hears
// a failed write of the result through its callback (exit 2, but for EPIPE: the reader had enough).
const lost = (): void => undefined
process.stdout.on('error', lost)
process.stderr.on('error', lost)

/**
 * Resolves once what was written to `stream` before has been handed over. A write to a pipe is
 * asynchronous in Node: a pipe holds 64 KiB, the rest waits in the stream's queue, and
 * process.exit() throws that queue away. An empty write's callback comes after every write before
 * it (or with the error of a reader that went away).
 */
const handedOver = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => {
    if (stream.destroyed || stream.writableEnded) resolve()
    else stream.write('', () => resolve())
  })

process.exitCode = await runCommand(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  signals: process,
  clock: systemClock
})
await Promise.all([handedOver(process.stdout), handedOver(process.stderr)])
// The result is out. A request cut short by a signal, or a pipe nobody wrote to, may still hold
// the event loop: whoever waits for the command wants it gone now. (A reader that takes nothing
// holds the command, as it holds any program that writes to it; a signal still ends it, since
// runCommand no longer listens for one.)
process.exit()
