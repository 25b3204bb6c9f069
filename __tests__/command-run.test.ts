/*
 * The command in process: runCommand() with streams, an environment and signals of the test's own,
 * against the local API server over real HTTP on 127.0.0.1 (operations already final: nothing waits
 * on the clock), and its parts: the exit codes, progress, the secrets' files. What only a process
 * shows (its exit code, its real streams, a terminal, signals, pipes) is in e2e/command*.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { EventEmitter } from 'node:events'
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
  writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { exitCodeOf } from '../src/command/exit-codes.js'
import { Progress } from '../src/command/progress.js'
import { readApiKey, readSecretFile } from '../src/command/secrets.js'
import { type Clock, systemClock } from '../src/domain/clock.js'
import type { RunReport } from '../src/report/report.js'
import { demoWorld, operationIn } from './support/neon/scenarios.ts'
import { startApiServer } from './support/neon/server.ts'
import { inTempDir, secretForms } from './support/bundles/command.js'
import { commandInProcess, demoForFile } from './support/bundles/command-in-process.js'
import { KEYS, PROJECT } from './support/neon/ids.js'

/** The demo world and its server for this file, and the command in process against it. */
const demo = demoForFile()
const { command } = demo

/** An operation of the demo project, already in `status`, with `fields` from the API. */
const finalOperation = (status: string, fields: { error?: string; action?: string } = {}) =>
  demo.world.addOperation(PROJECT, {
    action: fields.action ?? 'apply_config',
    error: fields.error,
    timeline: [{ status }]
  })

describe('runCommand', () => {
  it('--help and --version: stdout, exit 0, no request', async () => {
    const before = demo.server.requests.length
    expect(await command(['--help'])).toMatchObject({ code: 0, stderr: '' })
    expect((await command(['--version'])).stdout).toMatch(/^neon-gate \d+\.\d+\.\d+\n$/)
    expect(demo.server.requests).toHaveLength(before)
  })

  it.each([
    ['a trailing new line', `${KEYS.organization}\n`],
    ['spaces around it', `  ${KEYS.organization}  `],
    ['a CRLF', `${KEYS.organization}\r\n`]
  ])(
    'a key with %s is sent and redacted without it, whatever the demo.server echoes',
    async (_, raw) => {
      const op = finalOperation('error', { error: `the key was ${KEYS.organization}` })
      await inTempDir(async (dir) => {
        const dotenv = join(dir, 'gate.env')
        const summary = join(dir, 'summary.md')
        const run = await command(
          ['--operation-id', op.id, '--dotenv', dotenv, '--summary', summary],
          { env: { NEON_API_KEY: raw } }
        )
        expect(run.code).toBe(1)
        const written =
          run.stdout + run.stderr + readFileSync(dotenv, 'utf8') + readFileSync(summary, 'utf8')
        expect(written).toContain('the key was ***')
        for (const form of secretForms(KEYS.organization)) expect(written).not.toContain(form)
      })
    }
  )

  it('--api-key-file - reads the key from standard input, without the blank lines after it', async () => {
    const op = finalOperation('finished')
    const run = await command(['--operation-id', op.id, '--api-key-file', '-'], {
      env: { NEON_API_KEY: '' },
      stdin: `${KEYS.organization}\n\n`
    })
    expect(run.code).toBe(0)
  })

  it('a bad --timeout is an error at once, before a secret is read from a pipe that nobody writes to', async () => {
    const run = await command(['--timeout', '10 min', '--api-key-file', '-'], {
      env: { NEON_API_KEY: '' },
      stdin: new PassThrough()
    })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^error: Invalid input: --timeout: /m)
  })

  it('a bad flag that holds a secret known at once (NEON_API_KEY, --database-url) never quotes it', async () => {
    const password = 'S3cret-db-pw-9f2c'
    const url = `postgresql://app:${password}@127.0.0.1:5432/db`
    for (const args of [
      ['--timeout', KEYS.organization],
      ['--interval', KEYS.organization],
      ['--project-id', `${KEYS.organization}!`],
      ['--database-url', url, '--interval', password]
    ]) {
      const run = await command(args)
      expect(run.code).toBe(2)
      expect(run.stderr).toMatch(
        /^error: Invalid input: --(timeout|interval|project-id): "\*\*\*!?" is not /m
      )
      for (const secret of [KEYS.organization, password]) {
        for (const form of secretForms(secret)) expect(run.stderr).not.toContain(form)
      }
    }
  })

  it('--timeout counts from the start: the time spent reading a secret is taken from the wait', async () => {
    const op = finalOperation('finished')
    // Standard input gives the key an hour later, on the monotonic clock, than the command started.
    let late = 0
    const clock: Clock = { ...systemClock, now: () => systemClock.now() + late }
    const stdin = new Readable({
      read() {
        late = 3_600_000
        this.push(`${KEYS.organization}\n`)
        this.push(null)
      }
    })
    const run = await command(
      ['--operation-id', op.id, '--api-key-file', '-', '--timeout', '30m', '--output', 'json'],
      { env: { NEON_API_KEY: '' }, stdin, clock }
    )
    expect(run.code).toBe(124)
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'timeout' })
  })

  it.each([
    [
      '--database-url-file',
      'postgresql://app:S3cret-db-pw-9f2c@ep-x.example.com/db',
      'S3cret-db-pw-9f2c'
    ],
    ['--api-key-file', KEYS.organization, KEYS.organization]
  ])(
    '%s given the secret itself, not a path: exit 2, and the secret not echoed',
    async (flag, value, secret) => {
      const run = await command([flag, value])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(
        `error: ${flag}: cannot read the file (ENOENT); give the path of a file that holds the secret, not the secret itself`
      )
      for (const form of secretForms(secret)) expect(run.stderr).not.toContain(form)
    }
  )

  it('the dotenv file stays within GitLab\u2019s 5 KB and 20 variables whatever the demo.server sends', async () => {
    const junk = (count: number) => '\u0085'.repeat(count)
    demo.world.addBranch(PROJECT, { id: 'br-junk-000001', name: junk(200) })
    const op = operationIn(demo.world, 'error', {
      action: junk(300),
      branchId: 'br-junk-000001',
      endpointId: junk(300),
      error: junk(5000)
    })
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await command(['--operation-id', op.id, '--dotenv', dotenv])
      expect(run.code).toBe(1)
      const text = readFileSync(dotenv, 'utf8')
      expect(text.split('\n').length - 1).toBeLessThanOrEqual(20)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(5 * 1024)
      expect(text).toMatch(/^GATE_ERROR=(\\u0085)+[\\u0-9]*… \[cut\]$/m)
      expect(text).toMatch(/^GATE_EXIT_CODE=1$/m)
      expect(text).toMatch(/^GATE_MESSAGE=An operation ended in failure: /m)
    })
  })

  it('with --before, GATE_PREFLIGHT, GATE_PREFLIGHT_BRANCH_ID and GATE_BLOCKERS keep the dotenv file within 5 KB and 20 variables too', async () => {
    const junk = (count: number) => '\u0085'.repeat(count)
    const project = 'extra-project-000002'
    Object.assign(demo.world.branchesOf(project)[0], {
      name: junk(200),
      protected: true,
      restrictedActions: [{ name: `delete-${junk(300)}`, reason: junk(5000) }]
    })
    for (let i = 0; i < 12; i++)
      demo.world.addBranch(project, { id: `br-junk-child-${i}`, name: junk(300) })
    // Waited on, then in error: every field of the operation outputs is set.
    demo.world.addOperation(project, {
      action: junk(300),
      endpointId: junk(300),
      error: junk(5000),
      timeline: [{ status: junk(300), reads: 1 }, { status: 'error' }]
    })
    // The wait's one sleep passes at once.
    const clock: Clock = { ...systemClock, sleep: async () => undefined }
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const args = ['--project-id', project, '--branch-id', 'br-main-000001', '--before', 'delete']
      const run = await command([...args, '--list-projects', '--dotenv', dotenv], { clock })
      expect(run.code).toBe(1)
      const text = readFileSync(dotenv, 'utf8')
      expect(text.split('\n').length - 1).toBeLessThanOrEqual(20)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(5 * 1024)
      expect(text).toMatch(/^GATE_PREFLIGHT=blocked$/m)
      expect(text).toMatch(/^GATE_PREFLIGHT_BRANCH_ID=br-main-000001$/m)
      // Every reason, still JSON: only the ends of the details are cut (the children's 12 names of
      // 300 characters, the restriction's reason).
      const blockers = /^GATE_BLOCKERS=(.*)$/m.exec(text)![1]
      const reasons = ['root', 'default', 'protected', 'children', 'restricted']
      expect(JSON.parse(blockers)).toEqual(
        reasons.map((reason) => expect.objectContaining({ reason }))
      )
      expect(blockers).toMatch(/… \[\d+ more characters\]/)
      expect(text).toMatch(/^GATE_ERROR=(\\u0085)+[\\u0-9]*… \[cut\]$/m)
      expect(text).toMatch(/^GATE_PROJECT_COUNT=\d+$/m)
      expect(text).toMatch(/^GATE_MESSAGE=Branch (\\u0085)+/m)
    })
  })

  it('API text in the dotenv file cannot name a CI variable: GitLab expands $ and % in dotenv values, so each is doubled', async () => {
    // Cut at 800 bytes, the last `$` of the error would stand alone after a cut through `$$`.
    const error = `see $NEON_API_KEY, \${CI_JOB_TOKEN} and %CI_JOB_TOKEN% ${'x'.repeat(730)}$$$$$$$`
    const op = finalOperation('error', { error })
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      expect((await command(['--operation-id', op.id, '--dotenv', dotenv])).code).toBe(1)
      const text = readFileSync(dotenv, 'utf8')
      const value = /^GATE_ERROR=(.*)$/m.exec(text)![1]
      expect(value).toMatch(
        /^see \$\$NEON_API_KEY, \$\$\{CI_JOB_TOKEN\} and %%CI_JOB_TOKEN%% x+\$\$… \[cut\]$/
      )
      expect(/^GATE_MESSAGE=(.*)$/m.exec(text)![1]).toContain(
        '$$NEON_API_KEY, $${CI_JOB_TOKEN} and %%CI_JOB_TOKEN%%'
      )
      // Every run of $ or % is even: GitLab reads $$ and %% as escapes; none starts a variable.
      for (const line of text.split('\n')) {
        for (const run of line.match(/\$+|%+/g) ?? []) expect(run.length % 2).toBe(0)
      }
    })
  })

  it('a gate that could not say an outcome (HTTP 404): the dotenv file still says why, and the code; the JSON names the gate and its time alone', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await command([
        '--project-id',
        'no-such-project',
        '--dotenv',
        dotenv,
        '--output',
        'json'
      ])
      expect(run.code).toBe(3)
      // The run started: its time is there, and nothing read is no operation.
      expect(Object.keys(JSON.parse(run.stdout) as object)).toEqual(['gate', 'elapsed_ms'])
      const text = readFileSync(dotenv, 'utf8')
      expect(text).toMatch(/^GATE_GATE=project$/m)
      expect(text).toMatch(/^GATE_MESSAGE=Project "no-such-project" was not found \(HTTP 404/m)
      expect(text).toMatch(/^GATE_EXIT_CODE=3$/m)
      expect(text).not.toMatch(/^GATE_OUTCOME=/m)
    })
  })

  it('--list-projects alone only lists, though NEON_PROJECT_ID is set', async () => {
    finalOperation('running')
    const run = await command(['--list-projects', '--no-wait', '--output', 'json'])
    expect(run.code).toBe(0)
    const result = JSON.parse(run.stdout) as Record<string, unknown>
    expect(result).toMatchObject({ outcome: 'success', project_count: 3 })
    // No gate ran: nothing was waited for, no operation read; the run's time is there.
    expect(result.elapsed_ms).toEqual(expect.any(Number))
    expect(result).not.toHaveProperty('operations')
  })

  it('--output json is never cut to GitHub’s 1 MB of outputs: 4,000 projects, every one of them, as one JSON object', async () => {
    const world = demoWorld({ history: 0, extraProjects: 4000 })
    const server = await startApiServer(world)
    try {
      const run = await commandInProcess(server, ['--list-projects', '--output', 'json'])
      expect(run.code).toBe(0)
      expect(run.stdout.endsWith('}\n')).toBe(true)
      const result = JSON.parse(run.stdout) as { project_count: number; projects: { id: string }[] }
      expect(result.project_count).toBe(4001)
      expect(result.projects).toHaveLength(4001)
      expect(result.projects.at(-1)).toMatchObject({ id: 'extra-project-004000' })
      // Beyond the action's bound (990,000 bytes as UTF-16): a cut to it would show above.
      expect(2 * run.stdout.length).toBeGreaterThan(1_000_000)
    } finally {
      await server.close()
    }
  })

  it('no line of the report starts a workflow command, whatever white space the demo.server puts first', async () => {
    for (const space of ['\u00a0', '\u3000', '\u2000', ' \t']) {
      const op = finalOperation('error', { error: `${space}::warning title=x::injected` })
      const run = await command(['--operation-id', op.id])
      expect(run.code).toBe(1)
      for (const line of (run.stdout + run.stderr).split('\n')) {
        expect(line.replace(/^\s+/u, '').startsWith('::')).toBe(false)
      }
    }
  })
})

describe('runCommand: its own errors, signals and colour', () => {
  it('a file that passed the check but cannot take a write (a full disk): exit 2 before any request', async () => {
    const op = finalOperation('finished')
    const before = demo.server.requests.length
    const run = await command(['--operation-id', op.id, '--dotenv', '/dev/full'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: --dotenv: it cannot be written (ENOSPC)')
    expect(demo.server.requests).toHaveLength(before)
  })

  it('a file that cannot take the result at the end (its folder gone): an error line, exit 2 after a success', async () => {
    const run = (status: string) =>
      inTempDir(async (dir) => {
        const folder = join(dir, 'results')
        mkdirSync(folder)
        const op = finalOperation(status)
        demo.server.onRequest = () => {
          demo.server.onRequest = undefined
          rmSync(folder, { recursive: true })
        }
        return command(['--operation-id', op.id, '--dotenv', join(folder, 'gate.env')])
      })
    const passed = await run('finished')
    expect(passed.code).toBe(2)
    expect(passed.stderr).toContain('error: Could not write the result files: --dotenv: ENOENT')
    // After a failure the failure's code stands.
    expect((await run('error')).code).toBe(1)
  })

  it('a --summary that cannot take the result at the end: the dotenv file, written after it, says exit 2 and that --summary failed', async () => {
    await inTempDir(async (dir) => {
      const folder = join(dir, 'results')
      mkdirSync(folder)
      const dotenv = join(dir, 'gate.env')
      const op = finalOperation('finished')
      demo.server.onRequest = () => {
        demo.server.onRequest = undefined
        rmSync(folder, { recursive: true })
      }
      const args = ['--operation-id', op.id, '--summary', join(folder, 'summary.md')]
      const run = await command([...args, '--dotenv', dotenv])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('error: Could not write the result files: --summary: ENOENT')
      const text = readFileSync(dotenv, 'utf8')
      expect(text).toMatch(/^GATE_OUTCOME=success$/m)
      expect(text).toMatch(/^GATE_EXIT_CODE=2$/m)
      expect(text).toMatch(/^GATE_MESSAGE=Could not write the result files: --summary: ENOENT$/m)
    })
  })

  it('an error of its own past every other catch: one redacted error line, exit 3', async () => {
    const op = finalOperation('finished')
    const run = await command(['--operation-id', op.id], { brokenStdout: true })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain('error: neon-gate failed unexpectedly: the stream broke')
  })

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143]
  ] as const)('%s while it waits: the wait ends at once, exit %d', async (signal, code) => {
    const op = operationIn(demo.world, 'running')
    const signals = new EventEmitter()
    demo.server.onRequest = () => {
      demo.server.onRequest = undefined
      setImmediate(() => signals.emit(signal, signal))
    }
    const run = await command(['--operation-id', op.id, '--interval', '1h'], { signals })
    expect(run.code).toBe(code)
    expect(run.stderr).toContain(`Received ${signal}: stopping`)
    expect(run.stdout).toMatch(/^🚫 cancelled after /)
    expect(signals.listenerCount(signal)).toBe(0)
  })

  it('colour only on a terminal, and never with NO_COLOR', async () => {
    const run = (env: Record<string, string>) =>
      command(['--project-id', 'no-such-project'], { terminal: true, env })
    expect((await run({})).stderr).toContain('\x1b[31merror:\x1b[39m')
    expect((await run({ NO_COLOR: '1' })).stderr).not.toContain('\x1b[31m')
  })
})

describe('exitCodeOf', () => {
  it.each([
    ['success', undefined, undefined, 0],
    ['failure', undefined, undefined, 1],
    ['pending', undefined, undefined, 75],
    ['timeout', undefined, undefined, 124],
    ['cancelled', undefined, 'SIGINT', 130],
    ['cancelled', undefined, 'SIGTERM', 143],
    ['error', 'input', undefined, 2],
    ['error', undefined, undefined, 3]
  ] as const)('%s (%s, %s): %d', (outcome, errorCause, signal, code) => {
    const report: RunReport = { requests: { requests: 0, retries: 0 }, outcome, errorCause }
    expect(exitCodeOf(report, signal)).toBe(code)
  })
})

describe('Progress', () => {
  const stream = (isTTY: boolean, columns?: number) => {
    const written: string[] = []
    return { written, write: (text: string) => written.push(text), isTTY, columns }
  }
  const clean = (text: string) => text

  it('on a terminal: one line rewritten in place, cut to the width counting wide characters twice', () => {
    const terminal = stream(true, 30)
    const progress = new Progress(terminal, { quiet: false, color: true, clean })
    progress.info('界'.repeat(40))
    progress.warning('look')
    progress.finish()
    expect(terminal.written[0]).toBe(`\r\x1b[2K${'界'.repeat(14)}…`)
    expect(terminal.written.slice(1)).toEqual(['\r\x1b[2K', '\x1b[33mwarning:\x1b[39m look\n'])
  })

  it('elsewhere: plain lines, each change once, no control code; quiet keeps warnings and errors', () => {
    const pipe = stream(false)
    const progress = new Progress(pipe, { quiet: false, color: true, clean })
    progress.info('a')
    progress.info('a')
    progress.info('b')
    progress.error('no')
    expect(pipe.written).toEqual(['a\n', 'b\n', 'error: no\n'])
    const quiet = stream(false)
    new Progress(quiet, { quiet: true, color: false, clean }).info('hidden')
    expect(quiet.written).toEqual([])
  })

  it('a notice stands like a warning, in its own colour on a terminal, also with --quiet', () => {
    const terminal = stream(true, 80)
    new Progress(terminal, { quiet: true, color: true, clean }).notice('nothing to delete')
    expect(terminal.written).toEqual(['\x1b[36mnotice:\x1b[39m nothing to delete\n'])
    const pipe = stream(false)
    new Progress(pipe, { quiet: true, color: true, clean }).notice('nothing to delete')
    expect(pipe.written).toEqual(['notice: nothing to delete\n'])
  })
})

describe('readSecretFile', () => {
  const read = (path: string, limitMs = 5000) =>
    readSecretFile('--api-key-file', path, { stdin: Readable.from([]), limitMs })

  it('reads a file without the white space and BOM around the secret', async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, 'key'), '\uFEFF napi_key_1 \r\n\n')
      expect(await read(join(dir, 'key'))).toBe('napi_key_1')
    })
  })

  it('an empty file, a file over 64 KiB and a missing one are usage errors that never name the path', async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, 'empty'), ' \n')
      writeFileSync(join(dir, 'big'), 'x'.repeat(64 * 1024 + 1))
      await expect(read(join(dir, 'empty'))).rejects.toThrow('--api-key-file: the file is empty')
      await expect(read(join(dir, 'big'))).rejects.toThrow('the file holds more than 64 KiB')
      await expect(read(join(dir, 'napi_secret_as_path'))).rejects.toThrow(
        /^--api-key-file: cannot read the file \(ENOENT\)/
      )
    })
  })

  it('a pipe that nobody writes to is given up at the time limit, with no thread held', async () => {
    await inTempDir(async (dir) => {
      execFileSync('mkfifo', [join(dir, 'fifo')])
      await expect(read(join(dir, 'fifo'), 50)).rejects.toThrow(
        '--api-key-file: nothing came from it within 50 ms, what was left of the timeout: a pipe that nobody writes to?'
      )
    })
  })

  it('a pipe whose writer comes after the reader (`mkfifo`, then a secret store writes) is waited for', async () => {
    await inTempDir(async (dir) => {
      const fifo = join(dir, 'fifo')
      execFileSync('mkfifo', [fifo])
      const reading = read(fifo)
      // Once the reader has the pipe (a writer's open fails with ENXIO until then), a writer comes
      // and goes without a byte: from then on the pipe reads as ended, and the secret is still to come.
      for (;;) {
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
          break
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)
      writeSync(writer, 'napi_late_key\n')
      closeSync(writer)
      expect(await reading).toBe('napi_late_key')
    })
  })

  it('a pipe whose writer is there but slow (`<(pass show neon)`) is read as its bytes come', async () => {
    await inTempDir(async (dir) => {
      const fifo = join(dir, 'fifo')
      execFileSync('mkfifo', [fifo])
      // The writer is there before the command reads, as with `<(…)`: a reader of the test's own,
      // which never reads, holds the pipe open so that the writer can open (ENXIO without a
      // reader) and its bytes wait for the command's reader, however late that opens. The writer
      // holds the pipe empty a while: the reader meets EAGAIN and reads on. Ordered by these
      // events, not by how fast the machine is (it read an empty pipe on a busy one).
      const holder = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)
      try {
        const reading = read(fifo)
        await new Promise((resolve) => setTimeout(resolve, 100))
        writeSync(writer, 'napi_slow_key\n')
        closeSync(writer)
        expect(await reading).toBe('napi_slow_key')
      } finally {
        closeSync(holder)
      }
    })
  })

  it('standard input that never ends is given up at the time limit', async () => {
    const endless = new Readable({ read: () => undefined })
    await expect(
      readSecretFile('--api-key-file', '-', { stdin: endless, limitMs: 50 })
    ).rejects.toThrow(
      '--api-key-file: nothing came from it within 50 ms, what was left of the timeout: a pipe that nobody writes to?'
    )
  })

  it('a signal ends the reading with its reason, and leaves no timer behind', async () => {
    const controller = new AbortController()
    const endless = new Readable({
      read: () => void setImmediate(() => controller.abort(new Error('Cancelled by SIGTERM')))
    })
    // Cancelled while it reads; then, already aborted, not even started.
    for (const limitMs of [3_600_000, 1]) {
      await expect(
        readSecretFile('--api-key-file', '-', {
          stdin: endless,
          limitMs,
          signal: controller.signal
        })
      ).rejects.toThrow('Cancelled by SIGTERM')
    }
  })

  it('with no time left, not even a file is read: the same error every time', async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, 'key'), KEYS.organization)
      for (let attempt = 0; attempt < 20; attempt++) {
        await expect(
          readSecretFile('--api-key-file', join(dir, 'key'), {
            stdin: Readable.from([]),
            limitMs: 0
          })
        ).rejects.toThrow('--api-key-file: nothing came from it within 0 ms, what was left of the')
      }
    })
  })
})

describe('readApiKey', () => {
  const reading = { stdin: Readable.from([]), limitMs: 5000 }

  it('from --api-key-file when given, else NEON_API_KEY without the white space around it', async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, 'key'), 'napi_from_file\n')
      const env = { NEON_API_KEY: 'napi_from_env' }
      expect(await readApiKey(join(dir, 'key'), env, reading)).toBe('napi_from_file')
      expect(await readApiKey(undefined, { NEON_API_KEY: ' napi_from_env\n' }, reading)).toBe(
        'napi_from_env'
      )
    })
  })

  it('neither, or NEON_API_KEY of white space: a usage error that says both ways', async () => {
    for (const env of [{}, { NEON_API_KEY: ' \t' }]) {
      await expect(readApiKey(undefined, env, reading)).rejects.toThrow(
        'NEON_API_KEY is not set: export the API key as NEON_API_KEY, or give --api-key-file PATH'
      )
    }
  })
})
