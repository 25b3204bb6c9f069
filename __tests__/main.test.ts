import { beforeEach, describe, expect, it, jest } from '@jest/globals'
import nock from 'nock'
import * as runner from './support/github/core.js'
import { withoutNetwork } from './support/nock.js'
import { FakeClock } from './support/time/clock.js'
import { OP_A, OP_B, PROJECT, operation } from './support/neon/operations.js'

jest.unstable_mockModule('@actions/core', () => runner)
const { run } = await import('../src/runner/main.js')
const { RetryPolicy } = await import('../src/api/retry-policy.js')

const HOST = 'http://127.0.0.1:4010'
const KEY = 'napi_main_test_key_0123456789'
const opPath = (id: string) => `/api/v2/projects/${PROJECT}/operations/${id}`

function inputs(values: Record<string, string> = {}) {
  runner.reset({ api_key: KEY, project_id: PROJECT, api_host: `${HOST}/api/v2`, ...values })
}

function everythingWritten(): string {
  return JSON.stringify([runner.logs, runner.outputs, runner.summaries])
}

const runWith = (clock = new FakeClock()) =>
  run({ clock, retryPolicy: new RetryPolicy({ random: () => 0 }), random: () => 0 })

beforeEach(() => {
  process.env.GITHUB_STEP_SUMMARY = '/dev/null'
})
withoutNetwork(() => {
  expect(everythingWritten()).not.toContain(KEY)
})

describe('run', () => {
  it('masks the key before anything else', async () => {
    inputs({ interval: 'bad' })
    await runWith()
    expect(runner.setSecret).toHaveBeenCalledWith(KEY)
    expect(runner.setSecret.mock.invocationCallOrder[0]).toBeLessThan(
      runner.getInput.mock.invocationCallOrder[1]
    )
  })

  it('fails on a bad input before any request', async () => {
    inputs({ operation_id: 'nope' })
    const scope = nock(HOST).get(/.*/).reply(200, {})
    expect(await runWith()).toBe('error')
    expect(runner.setFailed).toHaveBeenCalledWith(
      expect.stringContaining('input "operation_id": "nope" is not a UUID')
    )
    expect(scope.isDone()).toBe(false)
  })

  it('inspects an operation with wait: false and sets every output', async () => {
    inputs({ operation_id: OP_A, wait: 'false' })
    const op = operation({
      id: OP_A,
      status: 'finished',
      action: 'create_branch',
      endpoint_id: undefined,
      total_duration_ms: undefined,
      created_at: '2026-11-21T11:00:00Z',
      updated_at: '2026-11-21T11:00:02.500Z'
    })
    nock(HOST).get(opPath(OP_A)).reply(200, { operation: op })
    expect(await runWith()).toBe('success')
    expect(runner.outputs).toEqual({
      outcome: 'success',
      status: 'finished',
      operation_id: OP_A,
      action: 'create_branch',
      branch_id: 'br-main-123456',
      endpoint_id: '',
      failures_count: '0',
      error: '',
      created_at: '2026-11-21T11:00:00Z',
      updated_at: '2026-11-21T11:00:02.500Z',
      duration_ms: '2500',
      operation: expect.any(String),
      operations: expect.any(String),
      elapsed_ms: expect.stringMatching(/^\d+$/)
    })
    const expected = JSON.parse(JSON.stringify(op))
    expect(JSON.parse(runner.outputs.operation)).toEqual(expected)
    expect(JSON.parse(runner.outputs.operations)).toEqual([expected])
    expect(runner.setFailed).not.toHaveBeenCalled()
    expect(runner.summaries[0]).toContain(`<code>${OP_A}</code>`)
    expect(runner.summaries[0]).toContain('✅ Finished')
  })

  it('wait: false reports pending without failing the step', async () => {
    inputs({ operation_id: OP_A, wait: 'false' })
    nock(HOST)
      .get(opPath(OP_A))
      .reply(200, { operation: operation({ id: OP_A, status: 'running' }) })
    expect(await runWith()).toBe('pending')
    expect(runner.outputs.outcome).toBe('pending')
    expect(runner.outputs.status).toBe('running')
    expect(runner.setFailed).not.toHaveBeenCalled()
  })

  it('waits for several operations; status is the first one that did not finish', async () => {
    inputs({ operation_id: `${OP_A},${OP_B}`, interval: '2s' })
    nock(HOST)
      .get(opPath(OP_A))
      .reply(200, { operation: operation({ id: OP_A, status: 'running' }) })
      .get(opPath(OP_B))
      .reply(200, { operation: operation({ id: OP_B, status: 'running' }) })
      .get(opPath(OP_A))
      .reply(200, { operation: operation({ id: OP_A, status: 'finished' }) })
      .get(opPath(OP_B))
      .reply(200, { operation: operation({ id: OP_B, status: 'cancelled', error: 'boom <b>' }) })
    const clock = new FakeClock()
    expect(await runWith(clock)).toBe('failure')
    expect(clock.sleeps).toEqual([2000])
    expect(runner.outputs).toMatchObject({
      outcome: 'failure',
      status: 'cancelled',
      operation_id: OP_B,
      error: 'boom <b>',
      elapsed_ms: '2000'
    })
    expect(JSON.parse(runner.outputs.operations)).toHaveLength(2)
    expect(runner.setFailed).toHaveBeenCalledWith(
      `An operation ended in failure: ${OP_B} (start_compute on br-main-123456 ended in cancelled after 1.2 s: "boom <b>")`
    )
    expect(runner.summaries[0]).toContain('boom &lt;b&gt;')
    expect(runner.summaries[0]).toContain('❌ failure')
  })

  it('times out and fails the step with the last known state', async () => {
    inputs({ operation_id: OP_A, interval: '1s', timeout: '3s' })
    nock(HOST)
      .get(opPath(OP_A))
      .times(4)
      .reply(200, { operation: operation({ id: OP_A, status: 'failed', failures_count: 2 }) })
    const clock = new FakeClock()
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
    inputs({ operation_id: OP_A, interval: '5s' })
    const running = { operation: operation({ id: OP_A, status: 'running' }) }
    nock(HOST)
      .get(opPath(OP_A))
      .reply(429)
      .get(opPath(OP_A))
      .reply(200, running)
      .get(opPath(OP_A))
      .reply(503)
      .get(opPath(OP_A))
      .reply(408)
      .get(opPath(OP_A))
      .reply(423)
      .get(opPath(OP_A))
      .times(6)
      .reply(200, running)
      .get(opPath(OP_A))
      .reply(200, { operation: operation({ id: OP_A, status: 'finished' }) })
    const clock = new FakeClock()
    // The longest draws of every wait, so the waits show the pace and the back-off.
    const longest = () => 0.999999
    expect(
      await run({ clock, retryPolicy: new RetryPolicy({ random: longest }), random: longest })
    ).toBe('success')
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

  it('the project gate with nothing in flight passes at once', async () => {
    inputs({})
    nock(HOST)
      .get(`/api/v2/projects/${PROJECT}/operations`)
      .query({ limit: '500' })
      .reply(200, { operations: [operation({ status: 'finished' })], pagination: { cursor: 'x' } })
      .get(`/api/v2/projects/${PROJECT}/operations`)
      .query({ limit: '500', cursor: 'x' })
      .reply(200, { operations: [], pagination: { cursor: 'x' } })
    expect(await runWith()).toBe('success')
    expect(runner.outputs).toMatchObject({
      outcome: 'success',
      status: '',
      operation_id: '',
      operations: '[]'
    })
    expect(runner.summaries[0]).toContain('No operation in flight.')
  })

  it('a 401 fails at once with one clear message', async () => {
    inputs({ operation_id: OP_A })
    nock(HOST).get(opPath(OP_A)).once().reply(401, { message: 'invalid key', request_id: 'r-1' })
    expect(await runWith()).toBe('error')
    expect(runner.setFailed).toHaveBeenCalledTimes(1)
    expect(runner.setFailed.mock.calls[0][0]).toMatch(/^The API rejected the key \(HTTP 401/)
    expect(runner.summaries[0]).toContain('request id r-1')
  })

  it('lists every project and sets projects and project_count', async () => {
    runner.reset({ api_key: KEY, list_projects: 'true', api_host: `${HOST}/api/v2` })
    nock(HOST)
      .get('/api/v2/projects')
      .query({ limit: '400' })
      .reply(200, {
        projects: [
          {
            id: 'p-1',
            name: 'One <script>',
            region_id: 'aws-us-east-2',
            pg_version: 17,
            created_at: '2026-01-02T03:04:05Z'
          }
        ],
        pagination: { cursor: 'p-1' },
        unavailable_project_ids: ['p-9']
      })
    expect(await runWith()).toBe('success')
    expect(runner.outputs.project_count).toBe('1')
    expect(JSON.parse(runner.outputs.projects)).toEqual([
      {
        id: 'p-1',
        name: 'One <script>',
        region_id: 'aws-us-east-2',
        pg_version: 17,
        created_at: '2026-01-02T03:04:05Z'
      }
    ])
    expect(runner.outputs.outcome).toBe('success')
    expect(runner.warning).toHaveBeenCalledWith('Some projects are unavailable right now: p-9')
    expect(runner.summaries[0]).toContain('<td>One &lt;script&gt;</td><td><code>p-1</code></td>')
    expect(runner.summaries[0]).toContain('2026-01-02 03:04:05 UTC')
  })

  it('never writes the key, even when the API echoes it back', async () => {
    inputs({ operation_id: OP_A })
    nock(HOST)
      .get(opPath(OP_A))
      .reply(400, { message: `bad token ${KEY}` })
    await runWith()
    expect(runner.setFailed.mock.calls[0][0]).toContain('bad token ***')
  })

  it('SIGTERM during a wait stops polling, writes the summary and reports cancelled', async () => {
    inputs({ operation_id: OP_A })
    const scope = nock(HOST)
      .get(opPath(OP_A))
      .times(2)
      .reply(200, { operation: operation({ id: OP_A, status: 'running' }) })
    const clock = new FakeClock()
    clock.onSleep = () => {
      if (clock.sleeps.length === 2) process.emit('SIGTERM', 'SIGTERM')
    }
    expect(await runWith(clock)).toBe('cancelled')
    scope.done()
    expect(runner.outputs.outcome).toBe('cancelled')
    expect(runner.setFailed).toHaveBeenCalledWith(
      `The wait was cancelled: ${OP_A} (start_compute on br-main-123456, running for 1 min 05 s so far)`
    )
    expect(runner.summaries[0]).toContain('🚫 cancelled')
    expect(process.listenerCount('SIGTERM')).toBe(0)
  })
})
