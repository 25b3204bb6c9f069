/*
 * `timeout` bounds everything, on simulated time over the local API server (or a scripted one):
 * the last request starts by the deadline and is over within 1 s after it; a request without an
 * answer is cut after 3 intervals and retried at once; a Retry-After past the deadline ends the
 * wait at once; listings end at the deadline; a cancelled job stops at once.
 */
import { describe, expect, it } from '@jest/globals'
import { annotationsFor } from '../../src/runner/annotations.js'
import { errorLine } from '../../src/gate/run-report.js'
import { renderSummary } from '../../src/gate/run-report.js'
import { gateOneRunning, runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

/** Requests may run this long past the deadline (api-core.ts), so the last read can happen. */
const GRACE_MS = 1000

function runningOperation(setup: ReturnType<typeof simulatedWorld>) {
  return operationIn(setup.world, 'running')
}

/** A running operation gated within `timeout`, its first read answered 429 with this Retry-After. */
async function rateLimitedFor(retryAfter: string, timeout: string) {
  return (await gateOneRunning({ kind: 'status', status: 429, retryAfter }, { timeout })).run
}

describe('the deadline', () => {
  it('timeout while running: no request starts after the deadline, the gate returns within its grace', async () => {
    const { run } = await gateOneRunning(undefined, { timeout: '12s' })
    expect(run.report.outcome).toBe('timeout')
    // Reads at 0, 5 and 10 s, and a last one at the deadline; the server sees each 1 ms later.
    expect(run.requests.map((request) => request.t)).toEqual([1, 5003, 10_005, 12_001])
    expect(run.endedAt).toBeGreaterThanOrEqual(12_000)
    expect(run.endedAt).toBeLessThanOrEqual(12_000 + GRACE_MS)
  })

  it.each([
    ['5s', 15_000],
    // The shortest cut is 10 s: at 1 s, a silent request waits 10 s, not 3.
    ['1s', 10_000]
  ])(
    'a request without an answer is cut after 3 intervals (interval %s: %d ms) and retried at once',
    async (interval, cutMs) => {
      const setup = simulatedWorld({ history: 0 })
      const op = operationIn(setup.world, 'finished')
      setup.api.addFault({ kind: 'slow', delayMs: 20_000, times: 1 })
      const run = await runSimulated(setup, {
        project_id: PROJECT,
        operation_id: op.id,
        interval,
        timeout: '1m'
      })
      expect(run.report.outcome).toBe('success')
      expect(run.lines).toContainEqual(
        expect.stringContaining(
          `(no answer within ${cutMs / 1000}.0 s); retrying now, the wait spent on it`
        )
      )
      const [first, second] = run.requests.map((request) => request.t)
      expect(second - first).toBeGreaterThanOrEqual(cutMs)
      expect(second - first).toBeLessThan(cutMs + 10)
    }
  )

  it('a server that holds every request: the one under way is cut at the deadline', async () => {
    const { run } = await gateOneRunning({ kind: 'slow', delayMs: 20_000 }, { timeout: '3s' })
    expect(run.report.outcome).toBe('timeout')
    expect(run.report.wait?.reason).toMatch(/no answer within 3\.0 s/)
    expect(run.requests).toHaveLength(1)
    expect(run.endedAt).toBeGreaterThanOrEqual(3000)
    expect(run.endedAt).toBeLessThanOrEqual(3000 + GRACE_MS)
  })

  it('10 operation ids against a server that answers in 0.9 s: timeout 2s still ends in time', async () => {
    const setup = simulatedWorld({ history: 0 })
    const ids = Array.from({ length: 10 }, () => runningOperation(setup).id)
    setup.api.addFault({ kind: 'slow', delayMs: 900 })
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      operation_id: ids.join(','),
      interval: '1s',
      timeout: '2s'
    })
    expect(run.report.outcome).toBe('timeout')
    expect(run.endedAt).toBeLessThanOrEqual(2000 + GRACE_MS)
    expect(run.requests.length).toBeLessThanOrEqual(4)
  })

  it('a Retry-After longer than the time left ends the wait at once, with timeout', async () => {
    const run = await rateLimitedFor('120', '30s')
    expect(run.report.outcome).toBe('timeout')
    expect(run.report.wait?.reason).toMatch(/^no retry fits before the deadline: /)
    expect(run.requests).toHaveLength(1)
    expect(run.endedAt).toBeLessThan(100)
  })

  it('listing projects: endless new cursors, each page 250 ms late, stop at the deadline', async () => {
    // More projects than the 50-page cap reads.
    const setup = simulatedWorld({ history: 0, extraProjects: 50 * 400 })
    setup.api.addFault({ kind: 'slow', delayMs: 250 })
    const run = await runSimulated(setup, { list_projects: 'true', timeout: '2s' })
    expect(run.report.outcome).toBe('timeout')
    // The 50-page cap would take 12.5 s: only the deadline ends it this soon.
    expect(run.endedAt).toBeLessThanOrEqual(2000 + GRACE_MS)
    expect(run.requests.length).toBeLessThan(50)
  })

  it('cancelled during a wait: stops at once', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = runningOperation(setup)
    const run = await runSimulated(
      setup,
      { project_id: PROJECT, operation_id: op.id, timeout: '10m' },
      { cancelAt: 7000 }
    )
    expect(run.report.outcome).toBe('cancelled')
    expect(run.endedAt).toBe(7000)
  })
})

describe('no retry fits before the deadline: said with the numbers, never "timeout ran out"', () => {
  it('a 429 with Retry-After: 30 and 4 s left, at the first read', async () => {
    const run = await rateLimitedFor('30', '4s')
    expect(run.report.outcome).toBe('timeout')
    expect(run.endedAt).toBeLessThan(100)
    // Retry-After 30, then late in the interval after it (5 s, jitter 0.5): 34.8 s; 4 s less the
    // round trip were left.
    const said =
      'no retry fits before the deadline: the retry after HTTP 429, Retry-After 30 would wait 34.8 s, with 4.0 s of the timeout left; last error: '
    expect(errorLine(run.report)).toMatch(
      // Nothing was ever read: said first (review M4).
      new RegExp(
        `^The API never gave a usable answer: gave up before anything could be read \\(${escape(said)}GET /projects/`
      )
    )
    expect(errorLine(run.report)).toMatch(/\): the state of the operations is unknown$/)
    const summary = renderSummary(run.report)
    expect(summary).toContain(said)
    expect(summary).toContain('The API never gave a usable answer before the gate gave up:')
    const [annotation] = annotationsFor(run.report)
    expect(annotation.message).toContain(said)
    for (const text of [errorLine(run.report), summary, annotation.message]) {
      expect(text).not.toContain('timeout ran out')
    }
  })

  it('a 5xx at the first read with timeout shorter than interval: the backoff does not fit', async () => {
    const { run } = await gateOneRunning(
      { kind: 'status', status: 503, times: 1 },
      { timeout: '2s' }
    )
    expect(run.report.outcome).toBe('timeout')
    expect(errorLine(run.report)).toMatch(
      /^The API never gave a usable answer: gave up before anything could be read \(no retry fits before the deadline: the retry after HTTP 503 would wait 9\.8 s, with 2\.0 s of the timeout left; last error: /
    )
  })

  it('while operations are in flight, and outside the wait (resolving the branch)', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = runningOperation(setup)
    let requests = 0
    setup.api.onRequest = () => {
      if (++requests === 2) setup.api.addFault({ kind: 'status', status: 429, retryAfter: '60' })
    }
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '30s'
    })
    expect(errorLine(run.report)).toMatch(
      new RegExp(
        `^Gave up while operations were still in flight: ${op.id} \\(apply_config .*\\) \\(no retry fits before the deadline: the retry after HTTP 429, Retry-After 60 would wait 1 min 05 s, with 25\\.0 s of the timeout left; last error: `
      )
    )
    expect(annotationsFor(run.report)[0].message).toMatch(/^Gave up with 1 still in flight: /)
    const branch = simulatedWorld({ history: 0 })
    branch.api.addFault({ kind: 'status', status: 429, retryAfter: '60' })
    const resolving = await runSimulated(branch, {
      project_id: PROJECT,
      branch_id: 'main',
      timeout: '30s'
    })
    expect(resolving.report.outcome).toBe('timeout')
    expect(resolving.report.error).toMatch(
      /^No retry fits before the deadline: the retry after HTTP 429, Retry-After 60 would wait 1 min 05 s, with 30\.0 s of the timeout left; last error: /
    )
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
