/*
 * What the command owes its files and streams (contract: "Command line", amended turn 9), in
 * process: a result file of an earlier run neutralised at once, the files final only once standard
 * output has drained and with the exit code the command ends with, a standard output that cannot
 * be written is exit 2, the default summary path a warning, `d` in durations, a quoted key refused
 * before any request. What only a process shows (SIGKILL, `> /dev/full`): e2e/command-files.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Readable } from 'node:stream'
import { runCommand } from '../src/command/main.js'
import { systemClock } from '../src/domain/clock.js'
import { InputError } from '../src/domain/errors.js'
import { getInputs } from '../src/runner/input-helper.js'
import { operationIn } from './support/neon/scenarios.ts'
import { FakeClock } from './support/time/clock.js'
import { inTempDir } from './support/bundles/command.js'
import { demoForFile } from './support/bundles/command-in-process.js'
import { KEYS, PROJECT } from './support/neon/ids.js'

/** The demo world and its server for this file, and the command in process against it. */
const demo = demoForFile()
const { command } = demo

/** The action's inputs from `values`, read as the runner reads them. */
const actionInputs = (values: Record<string, string>) => getInputs((name) => values[name])

const EARLIER_SUCCESS = 'GATE_OUTCOME=success\nGATE_EXIT_CODE=0\n'

describe('a result file of an earlier run stops claiming its outcome at once', () => {
  it('--dotenv and --summary say "running" from before the first request until the result replaces them', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const summary = join(dir, 'summary.md')
      writeFileSync(dotenv, EARLIER_SUCCESS)
      writeFileSync(summary, '✅ success, from an earlier run\n')
      const op = operationIn(demo.world, 'running', { then: 'error' })
      const seen: string[] = []
      demo.server.onRequest = () => {
        seen.push(readFileSync(dotenv, 'utf8') + readFileSync(summary, 'utf8'))
      }
      const run = await command(
        ['--operation-id', op.id, ...['--dotenv', dotenv, '--summary', summary]],
        // Pauses end at once and move the clock on: the timeline moves by the reads, and a gate
        // that never ended would meet its deadline after as many reads as in real time.
        { clock: new FakeClock(Date.now()) }
      )
      demo.server.onRequest = undefined
      expect(run.code).toBe(1)
      // At every request of the wait (the first included), neither file claims the earlier success.
      expect(seen.length).toBeGreaterThanOrEqual(2)
      for (const files of seen) {
        expect(files).toMatch(/^GATE_OUTCOME=running$/m)
        expect(files).toContain('has not ended; a file still saying this means it was killed')
        expect(files).toContain('⏳ running: neon-gate started at ')
        expect(files).not.toContain('success')
      }
      expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_OUTCOME=failure$/m)
      expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_EXIT_CODE=1$/m)
      expect(readFileSync(summary, 'utf8')).toContain('❌ failure')
    })
  })

  it('the files are final only once standard output has drained', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      writeFileSync(dotenv, EARLIER_SUCCESS)
      const op = operationIn(demo.world, 'finished')
      // A standard output whose reader takes the result only when the test says so.
      let release = (): void => undefined
      const drained = new Promise<void>((resolve) => (release = resolve))
      let written = ''
      const pending: (() => void)[] = []
      const running = runCommand(
        ['--api-host', demo.server.apiHost, '--operation-id', op.id, '--dotenv', dotenv],
        {
          env: { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT },
          stdin: Readable.from(['']),
          clock: systemClock,
          stdout: {
            write: (text: string, callback?: (error?: Error | null) => void) => {
              written += text
              pending.push(() => callback?.(null))
              if (pending.length === 2) void drained.then(() => pending.forEach((call) => call()))
              return false
            }
          },
          stderr: { write: () => true },
          signals: new (await import('node:events')).EventEmitter() as unknown as Pick<
            NodeJS.Process,
            'once' | 'off'
          >
        }
      )
      // The result is written, not handed over yet: the file still says the run is going on.
      await new Promise<void>((resolve) => {
        const check = (): void => (pending.length === 2 ? resolve() : void setImmediate(check))
        check()
      })
      expect(written).toMatch(/^✅ success/)
      expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_OUTCOME=running$/m)
      release()
      expect(await running).toBe(0)
      expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_OUTCOME=success$/m)
    })
  })
})

describe('a standard output that cannot be written', () => {
  it.each(['ENOSPC', 'EIO', 'EBADF'])(
    '%s: an error on standard error and exit 2, never 0; the dotenv file says 2 and why',
    async (code) => {
      await inTempDir(async (dir) => {
        const dotenv = join(dir, 'gate.env')
        const op = operationIn(demo.world, 'finished')
        const run = await command(
          ['--operation-id', op.id, '--output', 'json', '--dotenv', dotenv],
          {
            stdoutFails: code
          }
        )
        expect(run.code).toBe(2)
        expect(run.stderr).toContain(
          `error: Could not write standard output (${code}): the result is lost`
        )
        const env = readFileSync(dotenv, 'utf8')
        expect(env).toMatch(/^GATE_OUTCOME=success$/m)
        expect(env).toMatch(/^GATE_EXIT_CODE=2$/m)
        expect(env).toMatch(/^GATE_MESSAGE=Could not write standard output/m)
      })
    }
  )

  it('a reader that left (EPIPE) ends it quietly, with the gate’s own exit code', async () => {
    const op = operationIn(demo.world, 'finished')
    const run = await command(['--operation-id', op.id], { stdoutFails: 'EPIPE' })
    expect(run.code).toBe(0)
    expect(run.stderr).not.toContain('error:')
  })

  // Node's stream, once a write failed, fails the writes queued behind it with ERR_STREAM_DESTROYED.
  const READER_LEFT = ['EPIPE', 'ERR_STREAM_DESTROYED']

  it('a reader that left (`| head`): the later writes, failed only because the stream was destroyed, change nothing: exit 0, no error, the dotenv file says 0', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      for (const output of ['text', 'json']) {
        const op = operationIn(demo.world, 'finished')
        const args = ['--operation-id', op.id, '--output', output, '--dotenv', dotenv]
        const run = await command(args, { stdoutFails: READER_LEFT })
        expect(run).toMatchObject({ code: 0, stdout: '' })
        expect(run.stderr).not.toContain('error:')
        const env = readFileSync(dotenv, 'utf8')
        expect(env).toMatch(/^GATE_EXIT_CODE=0$/m)
        expect(env).not.toMatch(/^GATE_MESSAGE=/m)
      }
    })
    const help = await command(['--help'], { stdoutFails: READER_LEFT })
    expect(help).toMatchObject({ code: 0, stderr: '' })
  })

  it('a full disk, then the writes behind it destroyed: the error names the first failure (ENOSPC)', async () => {
    const op = operationIn(demo.world, 'finished')
    const run = await command(['--operation-id', op.id], {
      stdoutFails: ['ENOSPC', 'ERR_STREAM_DESTROYED']
    })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: Could not write standard output (ENOSPC)')
    expect(run.stderr).not.toContain('ERR_STREAM_DESTROYED')
  })

  it('--help into a full disk: exit 2', async () => {
    const run = await command(['--help'], { stdoutFails: 'ENOSPC' })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: Could not write standard output (ENOSPC)')
  })
})

describe('never exit 0 with the result lost (fast-check)', () => {
  /** What a write to standard output can fail with, EPIPE (a reader that left) aside. */
  const writeError = fc.oneof(
    fc.constantFrom('ENOSPC', 'EIO', 'EBADF', 'EDQUOT', 'EFBIG', 'ERR_STREAM_DESTROYED'),
    fc.stringMatching(/^E[A-Z]{2,10}$/).filter((code) => code !== 'EPIPE')
  )
  const ending = fc.constantFrom('finished', 'error', 'running')

  it('whatever the write error, the output and the gate’s outcome: exit 2, and the dotenv file says 2', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      await fc.assert(
        fc.asyncProperty(
          writeError,
          ending,
          fc.constantFrom('text', 'json'),
          async (code, status, output) => {
            const op = operationIn(demo.world, status)
            const args = [
              '--operation-id',
              op.id,
              '--no-wait',
              '--output',
              output,
              '--dotenv',
              dotenv
            ]
            const run = await command(args, { stdoutFails: code })
            expect(run.code).toBe(2)
            expect(run.stderr).toContain(`Could not write standard output (${code})`)
            expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_EXIT_CODE=2$/m)
          }
        ),
        { seed: 58, numRuns: 30, endOnFailure: true }
      )
    })
  })
})

describe('the default summary path is the runner’s: a warning when it cannot be written', () => {
  const inActions = (stepSummary: string) => ({
    env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary }
  })

  it('GITHUB_STEP_SUMMARY that cannot be opened: the gate runs and passes, with a warning naming it', async () => {
    const op = operationIn(demo.world, 'finished')
    const run = await command(['--operation-id', op.id], inActions('/nonexistent-folder/summary'))
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(
      'warning: GITHUB_STEP_SUMMARY: it cannot be opened for writing (ENOENT); the job summary is left out'
    )
    // The user gave no --summary: no message names it as the culprit.
    expect(run.stderr).not.toMatch(/(error|warning): --summary/)
  })

  it('GITHUB_STEP_SUMMARY that fails only at the end (a full disk): a warning, the exit code stands', async () => {
    const op = operationIn(demo.world, 'finished')
    const run = await command(['--operation-id', op.id], inActions('/dev/full'))
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('warning: GITHUB_STEP_SUMMARY: it cannot be written (ENOSPC)')
  })

  it('a --summary path the user named still fails the run (exit 2, before any request)', async () => {
    const before = demo.server.requests.length
    const run = await command(['--summary', '/nonexistent-folder/summary'], inActions('/dev/null'))
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: --summary: it cannot be opened for writing (ENOENT)')
    expect(demo.server.requests).toHaveLength(before)
  })
})

describe('--summary and --dotenv on one file', () => {
  it.each([
    ['the same path', (dir: string) => [join(dir, 'gate.env'), join(dir, 'gate.env')]],
    [
      // Two spellings of one file: the relative one from the command's working folder.
      'a relative path and an absolute one to it',
      (dir: string) => [join(dir, 'gate.env'), relative(process.cwd(), join(dir, 'gate.env'))]
    ],
    [
      // The check makes the summary's file before it compares: the link is followed to it.
      'a path through a linked folder to it, not there yet',
      (dir: string) => {
        symlinkSync(dir, join(dir, 'folder'))
        return [join(dir, 'gate.env'), join(dir, 'folder', 'gate.env')]
      }
    ],
    [
      'a link to it',
      (dir: string) => {
        writeFileSync(join(dir, 'gate.env'), '')
        symlinkSync(join(dir, 'gate.env'), join(dir, 'link.env'))
        return [join(dir, 'gate.env'), join(dir, 'link.env')]
      }
    ]
  ])(
    '%s: an input error (exit 2) naming both, before any request; the dotenv file says why',
    async (_, paths) => {
      await inTempDir(async (dir) => {
        const [dotenv, summary] = paths(dir)
        const before = demo.server.requests.length
        const run = await command(['--no-wait', '--dotenv', dotenv, '--summary', summary])
        expect(run.code).toBe(2)
        expect(run.stderr).toContain(
          'error: --summary and --dotenv name the same file, which each would overwrite: give each a path of its own'
        )
        expect(demo.server.requests).toHaveLength(before)
        expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_EXIT_CODE=2$/m)
        expect(readFileSync(dotenv, 'utf8')).not.toContain('<h2>')
      })
    }
  )
})

describe('durations take days, up to the documented 5', () => {
  it('--timeout 5d runs the gate; 6d and 5.5d are above the maximum (exit 2)', async () => {
    const op = operationIn(demo.world, 'finished')
    expect((await command(['--operation-id', op.id, '--timeout', '5d'])).code).toBe(0)
    for (const text of ['6d', '5.5d']) {
      const run = await command(['--operation-id', op.id, '--timeout', text])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(`--timeout: "${text}" is above the maximum of 5 days (120h)`)
    }
  })

  it('the action’s timeout: 5d too', () => {
    const inputs = actionInputs({ api_key: 'key-123', project_id: PROJECT, timeout: '5d' })
    expect(inputs.timeoutMs).toBe(5 * 24 * 3600 * 1000)
  })
})

describe('a key stored with its quotes is the input error, and no request goes out with it', () => {
  const quoted = [`"${KEYS.organization}"`, `'${KEYS.organization}'`, `  "${KEYS.organization}"\n`]

  it.each(quoted)('NEON_API_KEY=%j', async (raw) => {
    const before = demo.server.requests.length
    const run = await command(['--operation-id', operationIn(demo.world, 'finished').id], {
      env: { NEON_API_KEY: raw }
    })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: Invalid input: NEON_API_KEY: is wrapped in quotes')
    expect(demo.server.requests).toHaveLength(before)
  })

  it('--api-key-file holding a quoted key', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'key')
      writeFileSync(file, `'${KEYS.organization}'\n`)
      const before = demo.server.requests.length
      const run = await command(['--api-key-file', file])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('error: Invalid input: --api-key-file: is wrapped in quotes')
      expect(demo.server.requests).toHaveLength(before)
      expect(existsSync(file)).toBe(true)
    })
  })

  it.each(quoted)('the action’s api_key %j', (raw) => {
    let error: unknown
    try {
      actionInputs({ api_key: raw, project_id: PROJECT })
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as Error).message).toContain('input "api_key": is wrapped in quotes')
  })
})

describe('the command’s messages name its own flags and variables, never the action’s inputs', () => {
  it('a refused key (401): NEON_API_KEY, or --api-key-file, is missing, invalid or revoked', async () => {
    const fromEnv = await command(['--project-id', PROJECT], {
      env: { NEON_API_KEY: KEYS.revoked }
    })
    expect(fromEnv.code).toBe(3)
    expect(fromEnv.stderr).toContain('NEON_API_KEY is missing, invalid or revoked')
    await inTempDir(async (dir) => {
      const file = join(dir, 'key')
      writeFileSync(file, KEYS.revoked)
      const fromFile = await command(['--api-key-file', file])
      expect(fromFile.code).toBe(3)
      expect(fromFile.stderr).toContain('--api-key-file is missing, invalid or revoked')
      expect(fromEnv.stderr + fromFile.stderr).not.toMatch(/\bapi_key\b/)
    })
  })

  it('a redirect: check --api-host', async () => {
    demo.server.addFault({ kind: 'status', status: 301, times: 1 })
    const run = await command(['--project-id', PROJECT])
    expect(run.code).toBe(3)
    expect(run.stderr).toContain('the key goes only to --api-host; check --api-host')
    expect(run.stderr).not.toMatch(/\bapi_host\b/)
  })
})
