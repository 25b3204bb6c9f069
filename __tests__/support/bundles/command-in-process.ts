/*
 * The command in process: runCommand() with streams, an environment and signals of the test's
 * own, against a local API server over real HTTP on 127.0.0.1. What only a process shows (its real
 * streams, a terminal, signals, pipes) is run from the bundle instead (support/bundles/command.ts).
 */
import { EventEmitter } from 'node:events'
import { Readable } from 'node:stream'
import { runCommand } from '../../../src/command/main.js'
import { type Clock, systemClock } from '../../../src/domain/clock.js'
import { afterAll, beforeAll } from '@jest/globals'
import { KEYS, PROJECT } from '../neon/ids.js'
import { demoWorld } from '../neon/scenarios.ts'
import { type ApiServer, startApiServer } from '../neon/server.ts'
import type { World } from '../neon/world.ts'
import { withDefaultFlags } from './default-flags.ts'

export interface InProcessOptions {
  env?: Record<string, string>
  stdin?: string | Readable
  clock?: Clock
  /** Standard error is a terminal. */
  terminal?: boolean
  /** Where the test sends signals to the command. */
  signals?: EventEmitter
  /** Standard output fails as it is written. */
  brokenStdout?: boolean
  /**
   * Standard output takes no byte: each write calls back with an error of this code (ENOSPC); of
   * a list, the Nth write with the Nth code and every later one with the last, as Node's streams
   * fail the writes queued behind one that destroyed them (a reader that left:
   * `['EPIPE', 'ERR_STREAM_DESTROYED']`).
   */
  stdoutFails?: string | string[]
}

export interface InProcessRun {
  code: number
  stdout: string
  stderr: string
}

/**
 * `neon-gate --api-host <server> ...args` in process, with the organization key in NEON_API_KEY
 * and the demo project in NEON_PROJECT_ID unless `env` says otherwise; what it wrote.
 */
export async function commandInProcess(
  server: { apiHost: string },
  args: string[],
  options: InProcessOptions = {}
): Promise<InProcessRun> {
  let stdout = ''
  let stderr = ''
  const code = await runCommand(withDefaultFlags([['--api-host', server.apiHost]], args), {
    env: { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT, ...options.env },
    stdin: options.stdin instanceof Readable ? options.stdin : Readable.from([options.stdin ?? '']),
    clock: options.clock ?? systemClock,
    stdout: fakeStdout(options, (text) => (stdout += text)),
    stderr: { write: (text: string) => (stderr += text), isTTY: options.terminal, columns: 80 },
    signals: (options.signals ?? new EventEmitter()) as unknown as Pick<
      NodeJS.Process,
      'once' | 'off'
    >
  })
  return { code, stdout, stderr }
}

/** Standard output as `options` say it fails: what it takes goes to `took`. */
function fakeStdout(options: InProcessOptions, took: (text: string) => void) {
  const codes = [options.stdoutFails ?? []].flat()
  let writes = 0
  return {
    write: (text: string, callback?: (error?: Error | null) => void) => {
      if (options.brokenStdout) throw new Error('the stream broke')
      const code = codes[Math.min(writes++, codes.length - 1)]
      if (!code) took(text)
      // As a stream calls back: later, with the write's error if it failed.
      const error = code ? Object.assign(new Error(`write ${code}`), { code }) : null
      setImmediate(() => callback?.(error))
      return !code
    }
  }
}

/**
 * One demo world and its server for a whole test file (started before its tests, closed after
 * them), and the command in process against it: `demo.world`, `demo.server`, `demo.command(args)`.
 */
export function demoForFile() {
  const demo = {
    world: undefined as unknown as World,
    server: undefined as unknown as ApiServer,
    command: (args: string[], options: InProcessOptions = {}) =>
      commandInProcess(demo.server, args, options)
  }
  beforeAll(async () => {
    demo.world = demoWorld()
    demo.server = await startApiServer(demo.world)
  })
  afterAll(() => demo.server.close())
  return demo
}
