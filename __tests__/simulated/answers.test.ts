/*
 * What each answer of the API makes of the gate, in process over the local API server (simulated
 * time, so nothing waits): a refused key fails at once, a 403 and a 404 name what the key could not
 * reach, a body that is not JSON is retried until the timeout, a host name that does not resolve is retried for
 * 3 intervals. The error line is the step's, as the runner
 * shows it (e2e/http.test.ts shows one of them over the bundle).
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine } from '../../src/gate/run-report.js'
import type { IncomingRequest } from '../support/neon/handler.ts'
import type { SimulatedHandling } from '../support/neon/simulated-network.ts'
import { gateOneRunning, runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('error answers of the API', () => {
  it.each([
    ['revoked', KEYS.revoked],
    ['unknown', 'napi_not_a_key_at_all_123']
  ])('401 for a %s key: an error at once, no retry', async (_kind, key) => {
    const setup = simulatedWorld({ history: 0 })
    const run = await runSimulated(setup, { api_key: key, project_id: PROJECT })
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toMatch(
      /^The API rejected the key \(HTTP 401 on GET \/projects\/demo-project-000001\/operations\): api_key is missing, invalid or revoked/
    )
    expect(run.requests).toHaveLength(1)
    expect(run.endedAt).toBeLessThan(10)
  })

  it('403 for a project-scoped key of another project', async () => {
    const setup = simulatedWorld({ history: 0 })
    const run = await runSimulated(setup, { api_key: KEYS.otherProject, project_id: PROJECT })
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toMatch(
      new RegExp(`^The key has no access to project "${PROJECT}" \\(HTTP 403`)
    )
    expect(run.requests).toHaveLength(1)
  })

  it('404 names the project, or the operation, that was not found', async () => {
    const setup = simulatedWorld({ history: 0 })
    const project = await runSimulated(setup, { project_id: 'no-such-project' })
    expect(errorLine(project.report)).toMatch(/^Project "no-such-project" was not found \(HTTP 404/)
    const id = '3f9a0c1e-5b7d-4e2f-8a6c-0d1e2f3a4b5c'
    const operation = await runSimulated(setup, { project_id: PROJECT, operation_id: id })
    expect(errorLine(operation.report)).toMatch(
      new RegExp(`^Operation "${id}" of project "${PROJECT}" was not found \\(HTTP 404`)
    )
    expect(errorLine(operation.report)).toMatch(/request id [0-9a-f-]{36}/)
    expect(operation.report.wait).toBeUndefined()
    expect(setup.api.requests.map((request) => request.status)).toEqual([404, 404])
  })

  it('one page that is not JSON (a proxy’s HTML, status 200) is retried at the pace, and the gate goes on', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = operationIn(setup.world, 'running', { then: 'finished' })
    setup.api.addFault({
      kind: 'malformed',
      body: '<html>Bad gateway</html>',
      contentType: 'text/html',
      times: 1
    })
    const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id })
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContainEqual(
      expect.stringMatching(
        /: a body that is not JSON \(24 bytes of text\/html, a proxy's page\?\); retrying in /
      )
    )
    // Retried no sooner than the next poll would have gone, and within the recovery bound.
    const [first, retry] = run.requests.map((request) => request.t)
    expect(retry - first).toBeGreaterThanOrEqual(5000)
    expect(retry - first).toBeLessThanOrEqual(15_000)
  })

  it('only a run of them until timeout ends the gate: a timeout naming the endpoint', async () => {
    const { op, run } = await gateOneRunning({ kind: 'malformed' }, { timeout: '1m' })
    expect(run.report.outcome).toBe('timeout')
    expect(errorLine(run.report)).toContain(
      `GET /projects/${PROJECT}/operations/${op.id} answered with a body that is not JSON: 31 bytes, a proxy's page?`
    )
    expect(run.requests.length).toBeGreaterThan(3)
    expect(run.endedAt).toBeLessThanOrEqual(61_000)
  })
})

describe('a host name that does not resolve', () => {
  /** The local API server behind a resolver that fails the first `failures` lookups. */
  function behindResolver(failures: number) {
    const setup = simulatedWorld({ history: 0 })
    const op = operationIn(setup.world, 'running', { then: 'finished' })
    const lookups: number[] = []
    const serve = (request: IncomingRequest, now: number): SimulatedHandling => {
      lookups.push(now)
      return lookups.length <= failures ? { kind: 'unresolved' } : setup.api.handle(request)
    }
    return { setup, op, lookups, serve }
  }

  it('is retried at the pace while it lasts less than 3 intervals, and the gate goes on', async () => {
    const { setup, op, lookups, serve } = behindResolver(2)
    const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id }, { serve })
    expect(run.report.outcome).toBe('success')
    expect(run.lines.filter((line) => line.includes('ENOTFOUND'))).toHaveLength(2)
    // Never faster than the interval (5 s), and within the recovery bound (3 intervals).
    const gaps = lookups.slice(1, 3).map((t, index) => t - lookups[index])
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(5000)
      expect(gap).toBeLessThanOrEqual(15_000)
    }
  })

  it('once it has lasted 3 intervals, an error naming api_host; a retry never outlives that by more than one retry', async () => {
    const { setup, op, lookups, serve } = behindResolver(Infinity)
    const run = await runSimulated(
      setup,
      { project_id: PROJECT, operation_id: op.id, timeout: '10m' },
      { serve }
    )
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toMatch(
      /^GET \/projects\/demo-project-000001\/operations\/[0-9a-f-]+ failed: getaddrinfo ENOTFOUND 127\.0\.0\.1; the name has not resolved for (1[5-9]|2\d)\.\d s; no retry can fix that: check api_host$/
    )
    const lasted = lookups.at(-1)! - lookups[0]
    expect(lasted).toBeGreaterThanOrEqual(15_000)
    expect(lasted).toBeLessThan(15_000 + 15_000)
    expect(run.endedAt).toBeLessThan(30_000)
  })

  it.each(['10s', '6s'])(
    'a name that never resolved when timeout %s (under 3 intervals) runs out: the same error naming api_host, not a timeout',
    async (timeout) => {
      const { setup, op, serve } = behindResolver(Infinity)
      const run = await runSimulated(
        setup,
        { project_id: PROJECT, operation_id: op.id, timeout },
        { serve }
      )
      expect(run.report.outcome).toBe('error')
      expect(errorLine(run.report)).toMatch(
        /^GET \/projects\/demo-project-000001\/operations\/[0-9a-f-]+ failed: getaddrinfo ENOTFOUND 127\.0\.0\.1; the name never resolved before the timeout ran out; no retry can fix that: check api_host$/
      )
      expect(run.endedAt).toBeLessThanOrEqual(Number.parseInt(timeout) * 1000 + 1000)
    }
  )

  it('a name that resolved before and stops resolving near the deadline: a timeout, since work was in flight', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = operationIn(setup.world, 'running')
    let requests = 0
    const serve = (request: IncomingRequest): SimulatedHandling =>
      ++requests === 1 ? setup.api.handle(request) : { kind: 'unresolved' }
    const run = await runSimulated(
      setup,
      { project_id: PROJECT, operation_id: op.id, timeout: '12s' },
      { serve }
    )
    expect(run.report.outcome).toBe('timeout')
  })

  it('an answer in between starts the count again', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = operationIn(setup.world, 'running', { reads: 8, then: 'finished' })
    // Resolves on every third request only: each streak is short, however long the whole is.
    let requests = 0
    const serve = (request: IncomingRequest): SimulatedHandling =>
      ++requests % 3 === 0 ? setup.api.handle(request) : { kind: 'unresolved' }
    const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id }, { serve })
    expect(run.report.outcome).toBe('success')
    expect(run.endedAt).toBeGreaterThan(60_000)
  })
})
