/*
 * The command end to end: `node dist/command/index.js` as a user or a CI job runs it, against the
 * local API server and the test PostgreSQL. Each exit code, both outputs, progress on a pipe and on
 * a terminal, signals, the files for CI, and the key kept out of every stream and file. What the
 * gate decides is proven on simulated time; here, what only a process shows.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { addFailingPreview } from '../../script/servers/neon-api/scenarios.ts'
import { KEYS, PROJECT, serve, terminateOn } from '../fixtures/e2e.js'
import { freshDatabase } from '../fixtures/postgres.js'
import { gateCommand, inTempDir, secretForms } from '../fixtures/command.js'

/** A control code of a terminal: ESC, and the rest of C0 but for the new line. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/

describe('the command: outcomes and exit codes', () => {
  it('a branch whose operations finish: exit 0, the report on stdout headline first, progress on stderr', async () => {
    const { world, server } = await serve()
    const [create] = world.createBranch(PROJECT, { byReads: true })
    const run = await gateCommand(server, ['--branch-id', create.branchId!])
    expect(run.code).toBe(0)
    const lines = run.stdout.split('\n')
    expect(lines[0]).toMatch(/^✅ success: all 2 operations finished in \d+\.\d s$/)
    expect(run.stdout).toContain('Operations (2)')
    expect(run.stdout).toMatch(/^OPERATION +ACTION +BRANCH +COMPUTE +STATUS +DURATION +DATE$/m)
    expect(run.stdout).not.toMatch(/<[a-z]+>|```|\*\*/)
    // Progress: plain lines on a pipe, one per change, no control code.
    expect(run.stderr).toContain(
      `${create.id} create_branch on ${create.branchId}: running → finished`
    )
    expect(run.stderr).not.toMatch(CONTROL)
    expect(run.stdout).not.toMatch(CONTROL)
  })

  it('--output json: one object of the outputs, typed, absent rather than empty', async () => {
    const { world, server } = await serve()
    const [create, start] = world.createBranch(PROJECT, { byReads: true })
    const run = await gateCommand(server, [
      '--operation-id',
      create.id,
      '--operation-id',
      start.id,
      '--output',
      'json'
    ])
    expect(run.code).toBe(0)
    expect(run.stdout.trim().split('\n')).toHaveLength(1)
    const result = JSON.parse(run.stdout) as Record<string, unknown>
    expect(result).toMatchObject({
      outcome: 'success',
      status: 'finished',
      operation_id: create.id,
      action: 'create_branch'
    })
    expect(typeof result.elapsed_ms).toBe('number')
    expect(typeof result.duration_ms).toBe('number')
    expect(result.operations).toHaveLength(2)
    expect(result.operation).toMatchObject({ id: create.id, status: 'finished' })
    for (const value of Object.values(result)) expect(value).not.toBe('')
    expect(result).not.toHaveProperty('error')
    expect(result).not.toHaveProperty('projects')
  })

  it('a failed operation: exit 1, the error line on stderr, the failure in the report and the JSON', async () => {
    const { world, server } = await serve()
    const { start } = addFailingPreview(world)
    const run = await gateCommand(server, ['--operation-id', start.id, '--output', 'json'])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`error: An operation ended in failure: ${start.id} (start_compute`)
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: 'failure',
      status: 'error',
      error: 'compute failed to start: out of capacity'
    })
  })

  it.each([
    ['an unknown flag', ['--projct-id', PROJECT], {}, 'error: unknown flag --projct-id'],
    [
      'a bad value, named as typed',
      ['--project-id', 'NOT VALID'],
      {},
      'error: Invalid input: --project-id: "NOT VALID" is not valid'
    ],
    [
      'a bad value from the environment, named by its variable',
      [],
      { NEON_PROJECT_ID: 'NOT VALID' },
      'error: Invalid input: NEON_PROJECT_ID: "NOT VALID" is not valid'
    ],
    [
      'a value to a switch',
      ['--project-id', PROJECT, '--fail-fast=yes'],
      {},
      '--fail-fast takes no value'
    ],
    [
      'an interval below 1 s',
      ['--project-id', PROJECT, '--interval', '0.5s'],
      {},
      '--interval: "0.5s" is below the minimum of 1 second'
    ],
    [
      'a branch that does not exist',
      ['--project-id', PROJECT, '--branch-id', 'no-such-branch'],
      {},
      `--branch-id: project "${PROJECT}" has no branch named "no-such-branch"`
    ]
  ])(
    '%s: exit 2, usage on stderr, nothing on stdout but the report',
    async (_, args, env, message) => {
      const { server } = await serve()
      const run = await gateCommand(server, args, { noProject: true, env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
    }
  )

  it('no key: exit 2 before any request, saying where the key comes from', async () => {
    const { server } = await serve()
    const run = await gateCommand(server, [], { env: { NEON_API_KEY: '' } })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: NEON_API_KEY is not set')
    expect(run.stdout).toBe('')
    expect(server.requests).toHaveLength(0)
  })

  it('a key the API refuses: exit 3, and the key in no stream', async () => {
    const { server } = await serve()
    const run = await gateCommand(server, [], {
      env: { NEON_API_KEY: 'napi_revoked_or_wrong_key_0001' }
    })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain('The API rejected the key (HTTP 401')
    for (const form of secretForms('napi_revoked_or_wrong_key_0001')) {
      expect(run.stdout + run.stderr).not.toContain(form)
    }
  })

  it('--no-wait with work in flight: exit 75, outcome pending', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    const run = await gateCommand(server, [
      '--operation-id',
      op.id,
      '--no-wait',
      '--output',
      'json'
    ])
    expect(run.code).toBe(75)
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'pending', status: 'running' })
  })

  it('the timeout runs out while the API answers 503: exit 124', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'status', status: 503 })
    const run = await gateCommand(server, ['--timeout', '2s'])
    expect(run.code).toBe(124)
    expect(run.stderr).toContain('error: timeout ran out')
    expect(run.stdout.split('\n')[0]).toMatch(/^⌛ timeout after/)
  })

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143]
  ] as const)('%s mid-wait: exit %d, what it had seen reported', async (signal, code) => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    // The signal goes as the second read comes: the first answer has been seen.
    let reads = 0
    const { onStart } = terminateOn((listener) => {
      server.onRequest = () => {
        if (++reads === 2) listener()
      }
    }, signal)
    const run = await gateCommand(server, ['--operation-id', op.id], { onStart })
    expect(run.code).toBe(code)
    expect(run.stderr).toContain(`Received ${signal}: stopping`)
    expect(run.stdout.split('\n')[0]).toMatch(
      /^🚫 cancelled after \d+\.\d s: 1 still in flight: apply_config/
    )
  })
})

describe('the command: secrets and files', () => {
  it('--api-key-file - on standard input, --summary and --dotenv: the key in no stream and no file, in any form', async () => {
    const { world, server } = await serve()
    const { start } = addFailingPreview(world)
    await inTempDir(async (dir) => {
      const summary = join(dir, 'summary.md')
      const dotenv = join(dir, 'gate.env')
      const run = await gateCommand(
        server,
        [
          '--api-key-file',
          '-',
          '--branch-id',
          start.branchId!,
          '--summary',
          summary,
          '--dotenv',
          dotenv
        ],
        { env: { NEON_API_KEY: '' }, stdin: `${KEYS.organization}\n` }
      )
      expect(run.code).toBe(1)
      const env = readFileSync(dotenv, 'utf8')
      expect(env).toMatch(/^GATE_OUTCOME=failure$/m)
      expect(env).toMatch(/^GATE_STATUS=error$/m)
      expect(env).toMatch(/^GATE_BRANCH_STATE=ready$/m)
      expect(env).toMatch(/^GATE_ERROR=compute failed to start: out of capacity$/m)
      // One variable a line, GitLab's form: NAME=value, nothing else.
      for (const line of env.trimEnd().split('\n')) expect(line).toMatch(/^GATE_[A-Z_]+=[^\n]*$/)
      expect(env).not.toContain('GATE_OPERATIONS=')
      const markdown = readFileSync(summary, 'utf8')
      expect(markdown).toContain('<h2>Neon operations gate</h2>')
      expect(markdown).toContain('❌ failure')
      for (const form of secretForms(KEYS.organization)) {
        expect(run.stdout + run.stderr + env + markdown).not.toContain(form)
      }
    })
  })

  it('inside GitHub Actions the summary goes to the step summary; the JSON holds no key either', async () => {
    const { world, server } = await serve()
    const [create] = world.createBranch(PROJECT, { byReads: true })
    await inTempDir(async (dir) => {
      const stepSummary = join(dir, 'step-summary')
      writeFileSync(stepSummary, 'an earlier step wrote this\n')
      const run = await gateCommand(server, ['--operation-id', create.id, '--output', 'json'], {
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary }
      })
      expect(run.code).toBe(0)
      const written = readFileSync(stepSummary, 'utf8')
      expect(written.startsWith('an earlier step wrote this\n<h2>Neon operations gate</h2>')).toBe(
        true
      )
      for (const form of secretForms(KEYS.organization)) expect(run.stdout).not.toContain(form)
    })
  })

  it('a --dotenv file that cannot be written: exit 2 before any request', async () => {
    const { server } = await serve()
    const run = await gateCommand(server, ['--dotenv', '/nonexistent-folder/gate.env'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: --dotenv: ENOENT')
    expect(server.requests).toHaveLength(0)
  })

  it('--database-url-file against the real PostgreSQL: the password in no stream and no file', async () => {
    const password = 'cmd-db-pw-7f3a9c'
    const database = await freshDatabase(password)
    const { server } = await serve()
    await inTempDir(async (dir) => {
      const urlFile = join(dir, 'database-url')
      writeFileSync(urlFile, `${database.url()}\n`)
      const dotenv = join(dir, 'gate.env')
      const run = await gateCommand(server, [
        '--database-url-file',
        urlFile,
        '--dotenv',
        dotenv,
        '--output',
        'json'
      ])
      expect(run.code).toBe(0)
      const result = JSON.parse(run.stdout) as Record<string, unknown>
      expect(result.database_state).toBe('ready')
      expect(typeof result.database_ready_ms).toBe('number')
      const env = readFileSync(dotenv, 'utf8')
      expect(env).toMatch(/^GATE_DATABASE_STATE=ready$/m)
      for (const form of secretForms(password))
        expect(run.stdout + run.stderr + env).not.toContain(form)
    })
  })

  it('a database that refuses the password: exit 1 once the retries for it are over', async () => {
    const database = await freshDatabase('the-right-password')
    const { server } = await serve()
    const run = await gateCommand(server, [
      '--database-url',
      database.url({ password: 'wrong-password-1' })
    ])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/error: No query answered: .*28P01/)
    expect(run.stdout + run.stderr).not.toContain('wrong-password-1')
  })
})

describe('the command: what a server sends cannot drive a terminal or a CI log', () => {
  it('escape codes and runner commands in API text come out inert on every stream and file', async () => {
    const { world, server } = await serve()
    const hostile = '\x1b[2J\x1b]0;owned\x07\n::add-mask::x\n##[set-output name=outcome;]success'
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      error: hostile,
      timeline: [{ status: 'running', reads: 1 }, { status: 'error' }]
    })
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      for (const output of ['text', 'json']) {
        const run = await gateCommand(server, [
          '--operation-id',
          op.id,
          '--output',
          output,
          '--dotenv',
          dotenv
        ])
        expect(run.code).toBe(1)
        const env = readFileSync(dotenv, 'utf8')
        for (const text of [run.stdout, run.stderr, env]) {
          expect(text).not.toMatch(CONTROL)
          expect(text).not.toContain('##[')
          expect(text).not.toMatch(/^\s*::/m)
        }
        if (output === 'json') expect(JSON.parse(run.stdout).error).toBe(hostile)
      }
    })
  })
})

describe('the command on a terminal', () => {
  it.each([
    ['coloured', {}],
    ['without colour under NO_COLOR', { NO_COLOR: '1' }]
  ])(
    'progress is one line rewritten in place; the error stands above it, %s',
    async (_, env: Record<string, string>) => {
      const { world, server } = await serve()
      const { start } = addFailingPreview(world)
      const run = await gateCommand(server, ['--operation-id', start.id], { terminal: true, env })
      expect(run.code).toBe(1)
      // Each progress line clears the one before it; none ends in a new line of its own.
      // eslint-disable-next-line no-control-regex -- the terminal's own codes are what this checks
      expect(run.stderr).toMatch(/\r\x1b\[2K\[\+[\d.]+ m?s\] [^\n]*: failed → error\r\x1b\[2K/)
      // The error clears the progress line and stays, on a line of its own.
      const error = env.NO_COLOR ? 'error:' : '\x1b[31merror:\x1b[39m'
      expect(run.stderr).toContain(`\r\x1b[2K${error} An operation ended in failure`)
      if (env.NO_COLOR) expect(run.stderr).not.toContain('\x1b[31m')
      // Standard output is not the terminal: the report there has no control code.
      expect(run.stdout).not.toMatch(CONTROL)
    }
  )
})
