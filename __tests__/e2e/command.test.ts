/*
 * The command end to end: `node dist/command/index.js` as a user or a CI job runs it, against the
 * local API server: each exit code, both outputs, bad flags, signals. What the gate decides is
 * proven on simulated time; here, what only a process shows. Secrets, files, untrusted text and
 * the terminal: command-streams.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { terminateOn } from '../support/bundles/action.js'
import {
  commandOn,
  failingBranch,
  finishingBranch,
  CONTROL,
  gateCommand,
  inTempDir,
  secretForms,
  START_ERROR
} from '../support/bundles/command.js'
import { PROJECT } from '../support/neon/ids.js'
import { silentServer } from '../support/postgres/databases.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { operationIn } from '../support/neon/scenarios.js'
import type { World } from '../support/neon/world.ts'

/** An apply_config of the project, running at every read. */
const inFlight = (world: World) => operationIn(world, 'running')

describe('the command: outcomes and exit codes', () => {
  it('a branch whose operations finish: exit 0, the report on stdout headline first, progress on stderr', async () => {
    const { made, gate } = await commandOn(finishingBranch)
    const [create] = made
    const run = await gate(['--branch-id', create.branchId!])
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
    const { made, gate } = await commandOn(finishingBranch)
    const [create, start] = made
    const run = await gate([
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
    const { made: start, gate } = await commandOn(failingBranch)
    const run = await gate(['--operation-id', start.id, '--output', 'json'])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`error: An operation ended in failure: ${start.id} (start_compute`)
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: 'failure',
      status: 'error',
      error: START_ERROR
    })
  })

  // Every usage error is in command-flags.test.ts and command-run.test.ts; here, the process's code.
  it.each([
    ['an unknown flag', ['--projct-id', PROJECT], {}, 'error: unknown flag --projct-id'],
    [
      'a bad value from the environment, named by its variable',
      [],
      { NEON_PROJECT_ID: 'NOT VALID' },
      'error: Invalid input: NEON_PROJECT_ID: "NOT VALID" is not valid'
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
      const { gate } = await commandOn()
      const run = await gate(args, { noProject: true, env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
    }
  )

  it('no key: exit 2 before any request, saying where the key comes from', async () => {
    const { server, gate } = await commandOn()
    const run = await gate([], { env: { NEON_API_KEY: '' } })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: NEON_API_KEY is not set')
    expect(run.stdout).toBe('')
    expect(server.requests).toHaveLength(0)
  })

  it('a key the API refuses: exit 3, and the key in no stream', async () => {
    const { gate } = await commandOn()
    const run = await gate([], { env: { NEON_API_KEY: 'napi_revoked_or_wrong_key_0001' } })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain('The API rejected the key (HTTP 401')
    for (const form of secretForms('napi_revoked_or_wrong_key_0001')) {
      expect(run.stdout + run.stderr).not.toContain(form)
    }
  })

  it('--no-wait with work in flight: exit 75, outcome pending', async () => {
    const { made: op, gate } = await commandOn(inFlight)
    const run = await gate(['--operation-id', op.id, '--no-wait', '--output', 'json'])
    expect(run.code).toBe(75)
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'pending', status: 'running' })
  })

  it('an API that accepts and never answers: exit 124, and every word says it never answered, none that work is busy', async () => {
    const silent = await silentServer()
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await gateCommand({ apiHost: `http://127.0.0.1:${silent.port}/api/v2` }, [
        '--branch-id',
        'main',
        '--timeout',
        '3s',
        '--dotenv',
        dotenv
      ])
      // The requests reached it (the event the run turns on), and none was answered.
      expect(silent.connections()).toBeGreaterThan(0)
      expect(run.code).toBe(124)
      expect(run.stderr).toMatch(/^error: The API never answered: /m)
      expect(run.stdout.split('\n')[0]).toMatch(
        /^⌛ timeout.*: the API never answered, so the state is unknown$/
      )
      const file = readFileSync(dotenv, 'utf8')
      expect(file).toMatch(/^GATE_OUTCOME=timeout$/m)
      expect(file).toMatch(/^GATE_MESSAGE=The API never answered: .*got no answer/m)
      for (const said of [run.stderr, run.stdout, file]) expect(said).not.toMatch(/busy|in flight/)
    })
  })

  it('a 503 with timeout shorter than a retry: exit 124, and no retry fitted, with the numbers', async () => {
    const { server, gate } = await commandOn()
    server.addFault({ kind: 'status', status: 503 })
    const run = await gate(['--timeout', '1s'])
    expect(run.code).toBe(124)
    expect(run.stderr).toMatch(
      /error: The API never gave a usable answer: gave up before anything could be read \(no retry fits before the deadline: the retry after HTTP 503 would wait [\d.]+ m?s, with [\d.]+ m?s of the timeout left; last error: /
    )
    expect(run.stderr).not.toContain('timeout ran out')
    expect(run.stdout.split('\n')[0]).toMatch(/^⌛ timeout after/)
  })

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143]
  ] as const)('%s mid-wait: exit %d, what it had seen reported', async (signal, code) => {
    const { server, made: op, gate } = await commandOn(inFlight)
    // The signal goes as the second read comes: the first answer has been seen.
    let reads = 0
    const { onStart } = terminateOn((listener) => {
      server.onRequest = () => {
        if (++reads === 2) listener()
      }
    }, signal)
    const run = await gate(['--operation-id', op.id], { onStart })
    expect(run.code).toBe(code)
    expect(run.stderr).toContain(`Received ${signal}: stopping`)
    expect(run.stdout.split('\n')[0]).toMatch(
      /^🚫 cancelled after \d+\.\d s: 1 still in flight: apply_config/
    )
  })
})
