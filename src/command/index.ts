#!/usr/bin/env node
import { systemClock } from '../domain/clock.js'
import { runCommand } from './main.js'

// A reader that went away (`| head`) or a full disk is no reason for a stack trace: what could not
// be written is lost, and the exit code still says how the gate ended.
const lost = (): void => undefined
process.stdout.on('error', lost)
process.stderr.on('error', lost)

process.exitCode = await runCommand(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  signals: process,
  clock: systemClock
})
// The result is out. A request cut short by a signal, or a pipe nobody wrote to, may still hold
// the event loop: whoever waits for the command wants it gone now (stdout and stderr are written
// synchronously to files, pipes and terminals on Linux).
process.exit()
