/*
 * The polling pace, retries and 429s, on simulated time over the local API server: gate() runs for
 * minutes of its time and no real time passes, so every gap is exact. What the contract says:
 * the first read at once, then one poll every `interval`; a retry never sooner than the next poll
 * would have been; Retry-After waited out, never less, and at most one interval more; a pace that
 * slows on 429s and comes back; the branch reads of the wait at its pace, listings at their own.
 */
import { describe, expect, it } from '@jest/globals'
import {
  EPOCH,
  gapsBetween,
  runSimulated,
  type SimulatedRun,
  simulatedWorld
} from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const INTERVAL = 5000
/** A request and its answer cross the simulated network in 2 ms; a poll's read is a few ms long. */
const NETWORK_MS = 10

const byRoute = (run: SimulatedRun, route: string) =>
  run.requests.filter((request) => request.route === route)

describe('one poll every interval', () => {
  it('reads at once, then every interval, never sooner; each operation until it is final', async () => {
    const setup = simulatedWorld({ history: 0 })
    const [create, start] = setup.world.createBranch(PROJECT, { byReads: true })
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      operation_id: `${create.id} ${start.id}`
    })
    expect(run.report.outcome).toBe('success')
    const reads = (id: string) => run.requests.filter((request) => request.path.endsWith(id))
    // Final on the third read, never read again; the other one on its fourth.
    expect(reads(create.id)).toHaveLength(3)
    expect(reads(start.id)).toHaveLength(4)
    expect(run.requests[0].t).toBeLessThan(NETWORK_MS)
    for (const gap of gapsBetween(reads(start.id))) {
      expect(gap).toBeGreaterThanOrEqual(INTERVAL)
      expect(gap).toBeLessThan(INTERVAL + NETWORK_MS)
    }
    expect(run.lines).toContain(
      `info: [+15.0 s] ${start.id} start_compute on ${start.branchId}: running → finished`
    )
  })
})

describe('retries keep the pace', () => {
  // The jitter's extremes too: a draw of 0 is the earliest retry the policy can choose.
  it.each([0, 0.5, 0.999])(
    '503, 423, a dropped connection and a slow answer: each retried no sooner than interval, within 3 (draw %d)',
    async (draw) => {
      const setup = simulatedWorld({ history: 0 })
      const op = operationIn(setup.world, 'finished')
      setup.api.addFault({ kind: 'status', status: 503, times: 1 })
      setup.api.addFault({ kind: 'status', status: 423, times: 1 })
      setup.api.addFault({ kind: 'drop', times: 1 })
      setup.api.addFault({ kind: 'slow', delayMs: 300, times: 1 })
      const run = await runSimulated(
        setup,
        { project_id: PROJECT, operation_id: op.id },
        { random: () => draw }
      )
      expect(run.report.outcome).toBe('success')
      expect(run.requests.map((request) => request.fault ?? request.status)).toEqual([
        'status',
        'status',
        'drop',
        'slow'
      ])
      // Three answered (503, 423, the slow one), the dropped one not; only the last one read.
      expect(run.report.requests).toEqual({ requests: 4, retries: 3, answered: 3, read: 1 })
      for (const gap of gapsBetween(run.requests)) {
        expect(gap).toBeGreaterThanOrEqual(INTERVAL)
        expect(gap).toBeLessThanOrEqual(3 * INTERVAL)
      }
      expect(run.lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/HTTP 503; retrying in \d+\.\d s$/),
          expect.stringMatching(/HTTP 423; retrying in/),
          expect.stringMatching(/no answer \(ECONNRESET/)
        ])
      )
    }
  )

  it('once trouble ends, however long it lasted, the next request comes within 3 intervals', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = operationIn(setup.world, 'running', { then: 'finished' })
    const troubleEnds = 180_000
    setup.api.addFault({
      kind: 'status',
      status: 503,
      from: EPOCH + 1000,
      until: EPOCH + troubleEnds
    })
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '10m'
    })
    expect(run.report.outcome).toBe('success')
    const after = run.requests.find((request) => request.t >= troubleEnds)!
    expect(after.t - troubleEnds).toBeLessThanOrEqual(3 * INTERVAL)
    for (const gap of gapsBetween(run.requests)) expect(gap).toBeGreaterThanOrEqual(INTERVAL)
  })
})

describe('429s', () => {
  it.each(['seconds', 'date'] as const)(
    'Retry-After as %s: waited out, never less, at most one interval more',
    async (retryAfter) => {
      // Two requests in 20 s: the third is refused until the first leaves the window, 10 s on.
      const setup = simulatedWorld({
        history: 0,
        limits: { perMinute: 2, accountWindowMs: 20_000, retryAfter }
      })
      const op = operationIn(setup.world, 'running', { reads: 3, then: 'finished' })
      const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id })
      expect(run.report.outcome).toBe('success')
      const limited = run.requests.findIndex((request) => request.status === 429)
      expect(limited).toBe(2)
      const refused = run.requests[limited]
      const waitMs =
        retryAfter === 'seconds'
          ? Number(refused.retryAfter) * 1000
          : Date.parse(refused.retryAfter!) - (refused.at - (refused.at % 1000))
      expect(waitMs).toBeGreaterThan(0)
      const retry = run.requests[limited + 1]
      expect(retry.status).toBe(200)
      expect(retry.t - refused.t).toBeGreaterThanOrEqual(waitMs)
      expect(retry.t - refused.t).toBeLessThanOrEqual(Math.max(waitMs, INTERVAL) + INTERVAL)
      expect(run.report.pace?.rateLimited).toBe(1)
    }
  )

  it('without Retry-After: never sooner than interval, and the pace triples, up to 3 intervals', async () => {
    const setup = simulatedWorld({
      history: 0,
      limits: { perMinute: 3, accountWindowMs: 20_000, retryAfter: 'none' }
    })
    const op = operationIn(setup.world, 'running', { reads: 12, then: 'finished' })
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '1h'
    })
    expect(run.report.outcome).toBe('success')
    expect(run.report.pace?.rateLimited).toBeGreaterThan(0)
    expect(run.report.pace?.slowestMs).toBe(3 * INTERVAL)
    expect(run.lines).toContain('info: 429: polling every 15.0 s for now')
    for (const gap of gapsBetween(run.requests)) {
      expect(gap).toBeGreaterThanOrEqual(INTERVAL)
      // The recovery bound, 3 intervals, which the pace's ±25 % never takes it past.
      expect(gap).toBeLessThanOrEqual(3 * INTERVAL + NETWORK_MS)
    }
  })

  /** How long the pace remembers a 429 at interval 5 s: 150 s (30 intervals). */
  const MEMORY_MS = 150_000
  const FINAL_AT = 360_000

  it.each([
    ['one 429', 1, undefined],
    ['three 429s in a row', 3, undefined],
    ['one 429 with Retry-After: 15', 1, '15']
  ])(
    '%s early in a long wait: slowed until the last is 150 s old, then every interval; exits within 1.2 intervals of the end',
    async (_, times, retryAfter) => {
      const setup = simulatedWorld({ history: 0 })
      const op = setup.world.addOperation(PROJECT, {
        action: 'apply_config',
        timeline: [{ status: 'running', ms: FINAL_AT }, { status: 'finished' }]
      })
      setup.api.addFault({ kind: 'status', status: 429, retryAfter, times, from: EPOCH + 10_000 })
      const run = await runSimulated(setup, {
        project_id: PROJECT,
        operation_id: op.id,
        timeout: '10m'
      })
      expect(run.report.outcome).toBe('success')
      const limited = run.requests.filter((request) => request.status === 429)
      expect(limited).toHaveLength(times)
      // The third read, at 10 s; the others are its retries, in a row.
      expect(limited[0].t).toBeLessThan(10_000 + NETWORK_MS)
      expect(run.requests.indexOf(limited.at(-1)!)).toBe(times + 1)
      const memoryEnd = limited.at(-1)!.t + MEMORY_MS
      const after = run.requests.slice(times + 1)
      const back = after.findIndex((request) => request.t >= memoryEnd)
      // While it remembers, every wait is slowed: the plateau (10 s), or more.
      for (const gap of gapsBetween(after.slice(0, back + 1))) {
        expect(gap).toBeGreaterThan(1.5 * INTERVAL)
      }
      // The first poll after it answers at once (the wait it was in, the plateau's 10 s, at most)...
      expect(after[back].t - memoryEnd).toBeLessThanOrEqual(2 * INTERVAL + NETWORK_MS)
      // ...and from there on it polls every interval, to the end.
      const tail = gapsBetween(after.slice(back))
      expect(tail.length).toBeGreaterThan(25)
      for (const gap of tail) {
        expect(gap).toBeGreaterThanOrEqual(INTERVAL)
        expect(gap).toBeLessThan(INTERVAL + NETWORK_MS)
      }
      expect(run.lines).toContain('info: No 429 for 2 min 30 s: polling every 5.0 s again')
      expect(run.endedAt - FINAL_AT).toBeGreaterThanOrEqual(0)
      expect(run.endedAt - FINAL_AT).toBeLessThanOrEqual(1.2 * INTERVAL)
    }
  )
})

describe('whose pace each read follows', () => {
  it('the branch search and the readiness read: a 429 on each is retried at the gate’s pace, not the listing’s', async () => {
    const setup = simulatedWorld({ history: 0 })
    setup.world.addBranch(PROJECT, { id: 'br-staging-000031', name: 'staging' })
    setup.api.addFault({ kind: 'status', status: 429, route: 'branches', times: 1 })
    setup.api.addFault({ kind: 'status', status: 429, route: 'branch', times: 1 })
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      branch_id: 'staging',
      timeout: '60s'
    })
    expect(run.report.outcome).toBe('success')
    for (const route of ['branches', 'branch']) {
      const reads = byRoute(run, route)
      expect(reads.map((read) => read.status)).toEqual([429, 200])
      expect(gapsBetween(reads)[0]).toBeGreaterThanOrEqual(INTERVAL)
    }
  })

  it('listing projects retries at its own pace, from 2 s', async () => {
    const setup = simulatedWorld({ history: 0 })
    setup.api.addFault({ kind: 'status', status: 503, route: 'projects', times: 1 })
    const run = await runSimulated(setup, { list_projects: 'true' })
    expect(run.report.outcome).toBe('success')
    const [gap] = gapsBetween(byRoute(run, 'projects'))
    expect(gap).toBeGreaterThanOrEqual(2000)
    expect(gap).toBeLessThan(INTERVAL)
  })
})
