/*
 * The action's run() in process, as the runner's toolkit sees it (the fake of @actions/core): the
 * inputs it reads, the outputs, the step's error line and the summary it writes, on the fake clock.
 * The API is the local API server's own handler behind nock, so the real HTTP transport runs;
 * what only the bundle's process shows is e2e/.
 */
import { beforeEach, describe, expect, it, jest } from '@jest/globals'
import * as runner from './support/github/core.js'
import { withoutNetwork } from './support/nock.js'
import { FakeClock } from './support/time/clock.js'
import { KEYS, PROJECT } from './support/neon/ids.js'
import { API_HOST, nockWorld } from './support/neon/nock.js'
import { operationJson } from './support/neon/api-json.js'

jest.unstable_mockModule('@actions/core', () => runner)
const { run } = await import('../src/runner/main.js')
const { RetryPolicy } = await import('../src/api/retry-policy.js')

const KEY = KEYS.organization

/** The world behind nock on a fresh fake clock, and the action's inputs (the key, the project, its host and `values`). */
function setup(values: Record<string, string> = {}) {
  const clock = new FakeClock()
  const { world, api } = nockWorld(clock)
  runner.reset({ api_key: KEY, project_id: PROJECT, api_host: API_HOST, ...values })
  return { clock, world, api }
}

/** One operation of the project, moving through `timeline`; `fields` as the world takes them. */
function operationOf(
  world: ReturnType<typeof setup>['world'],
  timeline: { status: string; reads?: number; ms?: number }[],
  fields: { action?: string; error?: string; createdAt?: number; endpointId?: string } = {}
) {
  return world.addOperation(PROJECT, { action: 'start_compute', timeline, ...fields })
}

function everythingWritten(): string {
  return JSON.stringify([runner.logs, runner.outputs, runner.summaries])
}

const runWith = (clock: FakeClock) =>
  run({ clock, retryPolicy: new RetryPolicy({ random: () => 0 }), random: () => 0 })

beforeEach(() => {
  process.env.GITHUB_STEP_SUMMARY = '/dev/null'
})
withoutNetwork(() => {
  expect(everythingWritten()).not.toContain(KEY)
})

describe('run', () => {
  it('masks the key before anything else', async () => {
    const { clock } = setup({ interval: 'bad' })
    await runWith(clock)
    expect(runner.setSecret).toHaveBeenCalledWith(KEY)
    expect(runner.setSecret.mock.invocationCallOrder[0]).toBeLessThan(
      runner.getInput.mock.invocationCallOrder[1]
    )
  })

  it('fails on a bad input before any request', async () => {
    const { clock, api } = setup({ operation_id: 'nope' })
    expect(await runWith(clock)).toBe('error')
    expect(runner.setFailed).toHaveBeenCalledWith(
      expect.stringContaining('input "operation_id": "nope" is not a UUID')
    )
    expect(api.requests).toEqual([])
  })

  it('an input the runner set empty (an unset variable) is an input error, never the other gate', async () => {
    const { clock, api } = setup({ branch_id: '' })
    expect(await runWith(clock)).toBe('error')
    expect(runner.setFailed).toHaveBeenCalledWith(expect.stringContaining('input "branch_id"'))
    expect(api.requests).toEqual([])
  })

  it('inspects an operation with wait: false and sets every output', async () => {
    const { clock, world } = setup()
    const createdAt = Date.parse('2026-11-21T11:00:00Z')
    const op = operationOf(world, [{ status: 'running', ms: 2500 }, { status: 'finished' }], {
      action: 'create_branch',
      createdAt
    })
    runner.inputs.operation_id = op.id
    runner.inputs.wait = 'false'
    expect(await runWith(clock)).toBe('success')
    expect(runner.outputs).toEqual({
      outcome: 'success',
      gate: 'operations',
      status: 'finished',
      operation_id: op.id,
      action: 'create_branch',
      branch_id: 'br-main-000001',
      endpoint_id: '',
      failures_count: '0',
      error: '',
      created_at: '2026-11-21T11:00:00.000Z',
      updated_at: '2026-11-21T11:00:02.500Z',
      duration_ms: '2500',
      operation: expect.any(String),
      operations: expect.any(String),
      elapsed_ms: expect.stringMatching(/^\d+$/)
    })
    const expected = operationJson(op, clock.wallNow())
    expect(JSON.parse(runner.outputs.operation)).toEqual(expected)
    expect(JSON.parse(runner.outputs.operations)).toEqual([expected])
    expect(runner.setFailed).not.toHaveBeenCalled()
    expect(runner.summaries[0]).toContain(`<code>${op.id}</code>`)
    expect(runner.summaries[0]).toContain('✅ Finished')
  })

  it('wait: false reports pending without failing the step', async () => {
    const { clock, world } = setup({ wait: 'false' })
    runner.inputs.operation_id = operationOf(world, [{ status: 'running' }]).id
    expect(await runWith(clock)).toBe('pending')
    expect(runner.outputs.outcome).toBe('pending')
    expect(runner.outputs.status).toBe('running')
    expect(runner.setFailed).not.toHaveBeenCalled()
  })

  it('waits for several operations; status is the first one that did not finish', async () => {
    const { clock, world } = setup({ interval: '2s' })
    const a = operationOf(world, [{ status: 'running', reads: 1 }, { status: 'finished' }])
    const b = operationOf(world, [{ status: 'running', reads: 1 }, { status: 'cancelled' }], {
      error: 'boom <b>'
    })
    runner.inputs.operation_id = `${a.id},${b.id}`
    expect(await runWith(clock)).toBe('failure')
    expect(clock.sleeps).toEqual([2000])
    expect(runner.outputs).toMatchObject({
      outcome: 'failure',
      status: 'cancelled',
      operation_id: b.id,
      error: 'boom <b>',
      elapsed_ms: '2000'
    })
    expect(JSON.parse(runner.outputs.operations)).toHaveLength(2)
    // Cancelled at the second read, 2 s after it was created.
    expect(runner.setFailed).toHaveBeenCalledWith(
      `An operation ended in failure: ${b.id} (start_compute on br-main-000001 ended in cancelled after 2.0 s: "boom <b>")`
    )
    expect(runner.summaries[0]).toContain('boom &lt;b&gt;')
    expect(runner.summaries[0]).toContain('❌ failure')
  })

  it('times out and fails the step with the last known state', async () => {
    const { clock, world } = setup({ interval: '1s', timeout: '3s' })
    // Failed, retried, and failed again: twice by its last read.
    const op = operationOf(world, [{ status: 'failed', reads: 1 }, { status: 'failed' }])
    runner.inputs.operation_id = op.id
    expect(await runWith(clock)).toBe('timeout')
    expect(clock.sleeps).toEqual([1000, 1000, 1000])
    expect(runner.outputs).toMatchObject({
      outcome: 'timeout',
      status: 'failed',
      failures_count: '2'
    })
    expect(runner.setFailed).toHaveBeenCalledWith(expect.stringMatching(/^timeout ran out/))
  })

  it('after 429, 503, 408 and 423 no request goes out sooner than interval; the pace recovers', async () => {
    const { clock, world, api } = setup({ interval: '5s' })
    // Running for 7 answered reads, finished at the 8th.
    const op = operationOf(world, [{ status: 'running', reads: 7 }, { status: 'finished' }])
    runner.inputs.operation_id = op.id
    // A 429 first; an answer; then 503, 408 and 423.
    api.addFault({ kind: 'status', status: 429, times: 1 })
    api.onRequest = () => {
      if (api.requests.length !== 3) return
      for (const status of [503, 408, 423]) api.addFault({ kind: 'status', status, times: 1 })
    }
    // The longest draws of every wait, so the waits show the pace and the back-off.
    const longest = () => 0.999999
    expect(
      await run({ clock, retryPolicy: new RetryPolicy({ random: longest }), random: longest })
    ).toBe('success')
    expect(api.requests.map((request) => request.status)).toEqual([
      429,
      200,
      503,
      408,
      423,
      ...Array(7).fill(200)
    ])
    for (const sleep of clock.sleeps) expect(sleep).toBeGreaterThanOrEqual(5000)
    // 429: its retry goes out late in the interval after the interval (9.5 s); the pace is now
    // the recovery bound, 15 s, so the next poll waits 15 s (its longest draw, 18.75 s, is cut);
    // then 503, 408, 423 back off from the next poll's wait, never past the bound either.
    expect(clock.sleeps.slice(0, 5)).toEqual([9500, 15_000, 15_000, 15_000, 15_000])
    // Each answered poll brings the pace back toward 5 s (the longest draws stay at the bound for
    // the first polls).
    const polls = clock.sleeps.slice(5)
    for (let i = 1; i < polls.length; i++) expect(polls[i]).toBeLessThanOrEqual(polls[i - 1])
    expect(polls.at(-1)).toBeLessThan(polls[0])
    expect(runner.logs).toContain('info: 429: polling every 15.0 s for now')
    expect(runner.summaries[0]).toContain('1 × HTTP 429 · slowest pace 15.0 s')
  })

  it("action.yml's default for an input not given, (not given), is neither masked nor a value", async () => {
    const notGiven = '(not given)'
    const defaults = { branch_id: notGiven, database_url: notGiven, before: notGiven }
    const { clock, world } = setup({ ...defaults, operation_id: notGiven })
    world.addHistory(PROJECT, 3)
    expect(await runWith(clock)).toBe('success')
    expect(runner.setSecret.mock.calls.map(([secret]) => secret)).not.toContain(notGiven)
    expect(runner.outputs.gate).toBe('project')
  })

  it('the project gate with nothing in flight passes at once', async () => {
    const { clock, world } = setup()
    world.addHistory(PROJECT, 3)
    expect(await runWith(clock)).toBe('success')
    expect(runner.outputs).toMatchObject({
      outcome: 'success',
      status: '',
      operation_id: '',
      operations: '[]'
    })
    expect(runner.summaries[0]).toContain('No operation in flight.')
  })

  it('a 401 fails at once with one clear message', async () => {
    const { clock, world, api } = setup({ api_key: KEYS.revoked })
    runner.inputs.operation_id = operationOf(world, [{ status: 'running' }]).id
    expect(await runWith(clock)).toBe('error')
    expect(api.requests).toHaveLength(1)
    expect(runner.setFailed).toHaveBeenCalledTimes(1)
    expect(runner.setFailed.mock.calls[0][0]).toMatch(/^The API rejected the key \(HTTP 401/)
    expect(runner.summaries[0]).toMatch(/request id [0-9a-f-]{36}/)
  })

  it('lists every project and sets projects and project_count', async () => {
    const clock = new FakeClock()
    const { world } = nockWorld(clock, { extraProjects: 0 })
    world.projects.length = 0
    world.addProject({
      id: 'p-1',
      name: 'One <script>',
      orgId: 'org-demo-000001',
      pgVersion: 17,
      createdAt: Date.parse('2026-01-02T03:04:05Z')
    })
    world.unavailableProjectIds.push('p-9')
    runner.reset({ api_key: KEY, list_projects: 'true', api_host: API_HOST })
    expect(await runWith(clock)).toBe('success')
    expect(runner.outputs.project_count).toBe('1')
    expect(JSON.parse(runner.outputs.projects)).toEqual([
      expect.objectContaining({
        id: 'p-1',
        name: 'One <script>',
        region_id: 'aws-us-east-2',
        pg_version: 17,
        created_at: '2026-01-02T03:04:05.000Z'
      })
    ])
    expect(runner.outputs.outcome).toBe('success')
    expect(runner.warning).toHaveBeenCalledWith('Some projects are unavailable right now: p-9')
    expect(runner.summaries[0]).toContain('<td>One &lt;script&gt;</td><td><code>p-1</code></td>')
    expect(runner.summaries[0]).toContain('2026-01-02 03:04:05 UTC')
  })

  it('never writes the key, even when the API echoes it back', async () => {
    const { clock, world, api } = setup()
    runner.inputs.operation_id = operationOf(world, [{ status: 'running' }]).id
    api.addFault({ kind: 'status', status: 400, message: `bad token ${KEY}` })
    await runWith(clock)
    expect(runner.setFailed.mock.calls[0][0]).toContain('bad token ***')
  })

  it('SIGTERM during a wait stops polling, writes the summary and reports cancelled', async () => {
    const { clock, world, api } = setup()
    const op = operationOf(world, [{ status: 'running' }], { createdAt: clock.wallNow() - 60_000 })
    runner.inputs.operation_id = op.id
    clock.onSleep = () => {
      if (clock.sleeps.length === 2) process.emit('SIGTERM', 'SIGTERM')
    }
    expect(await runWith(clock)).toBe('cancelled')
    expect(api.requests).toHaveLength(2)
    expect(runner.outputs.outcome).toBe('cancelled')
    expect(runner.setFailed).toHaveBeenCalledWith(
      `The wait was cancelled: ${op.id} (start_compute on br-main-000001, running for 1 min 05 s so far)`
    )
    expect(runner.summaries[0]).toContain('🚫 cancelled')
    expect(process.listenerCount('SIGTERM')).toBe(0)
  })
})
