/*
 * `wait: false` (the command's `--no-wait`) reads once (contract: "Command line", amended turn 9):
 * an API that does not answer ends the run within 3 intervals, as an error (the command's exit
 * code 3), or as the timeout when `timeout` is shorter; it never waits out the whole `timeout`. One
 * failed request is still retried. On simulated time, over the core both front ends run.
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine } from '../../src/gate/run-report.js'
import { exitCodeOf } from '../../src/command/exit-codes.js'
import { gateOneRunning, runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { operationIn } from '../support/neon/scenarios.ts'
import { PROJECT } from '../support/neon/ids.js'
import type { Fault } from '../support/neon/faults.ts'

const READ_ONCE = { wait: 'false', timeout: '10m', interval: '5s' }

describe('wait: false with an API that does not answer', () => {
  it.each<[string, Fault]>([
    ['every answer a 503', { kind: 'status', status: 503 }],
    ['every connection dropped', { kind: 'drop' }],
    ['no answer at all', { kind: 'slow', delayMs: 3_600_000 }],
    ['every answer a proxy page', { kind: 'malformed', body: '<html></html>' }]
  ])('%s: an error within 3 intervals, not after the whole timeout', async (_, fault) => {
    const { op, run } = await gateOneRunning(fault, READ_ONCE)
    expect(run.report.outcome).toBe('error')
    expect(exitCodeOf(run.report, undefined)).toBe(3)
    // 3 intervals, give or take the simulated network's trip of a millisecond.
    expect(run.endedAt).toBeLessThanOrEqual(15_000 + 2)
    expect(errorLine(run.report)).toMatch(
      new RegExp(
        `^GET /projects/${PROJECT}/operations/${op.id} failed: no usable answer within 15\\.0 s \\(3 intervals\\), as long as a read without waiting tries; last error: `
      )
    )
  })

  it('the project gate, and a branch to resolve first, read once the same way', async () => {
    const gates: Record<string, string>[] = [
      { project_id: PROJECT },
      { project_id: PROJECT, branch_id: 'main' }
    ]
    for (const values of gates) {
      const setup = simulatedWorld({ history: 0 })
      setup.api.addFault({ kind: 'status', status: 502 })
      const run = await runSimulated(setup, { ...READ_ONCE, ...values })
      expect([values, run.report.outcome]).toEqual([values, 'error'])
      expect(run.endedAt).toBeLessThanOrEqual(15_000)
    }
  })

  it('the sweep waits for nothing, so it reads once, with wait: true too: a proxy page on the branch list ends it within 3 intervals', async () => {
    for (const wait of ['true', 'false']) {
      const setup = simulatedWorld({ history: 0 })
      setup.api.addFault({ kind: 'malformed', route: 'branches', body: '<html></html>' })
      const run = await runSimulated(setup, {
        wait,
        timeout: '10m',
        project_id: PROJECT,
        sweep: 'preview/*'
      })
      expect([wait, run.report.outcome]).toEqual([wait, 'error'])
      expect(exitCodeOf(run.report, undefined)).toBe(3)
      expect(run.endedAt).toBeLessThanOrEqual(15_000 + 2)
      expect(errorLine(run.report)).toMatch(
        new RegExp(
          `^GET /projects/${PROJECT}/branches failed: no usable answer within 15\\.0 s \\(3 intervals\\), as long as a read without waiting tries; last error: .*a body that is not JSON`
        )
      )
    }
  })

  it('a 429 is the API answering: its waits do not count against the 3 intervals, so a storm of them is ridden out until the read answers', async () => {
    const gates: Record<string, string>[] = [
      { ...READ_ONCE, project_id: PROJECT },
      { timeout: '10m', project_id: PROJECT, sweep: 'preview/*' }
    ]
    for (const values of gates) {
      const calm = await runSimulated(simulatedWorld({ history: 0 }), values)
      const setup = simulatedWorld({ history: 0 })
      // Six refusals, each asking for 20 s: 2 minutes, 8 times the window, then the answers.
      setup.api.addFault({ kind: 'status', status: 429, retryAfter: '20', times: 6 })
      const run = await runSimulated(setup, values)
      expect(calm.report.outcome).toBe('success')
      expect([values, run.report.outcome]).toEqual([values, 'success'])
      expect(run.endedAt).toBeGreaterThanOrEqual(6 * 20_000)
    }
  })

  it('a 429 storm that outlasts the timeout ends as the timeout, and 5xx in between still end within their window', async () => {
    const storm = simulatedWorld({ history: 0 })
    storm.api.addFault({ kind: 'status', status: 429, retryAfter: '20' })
    const timedOut = await runSimulated(storm, { ...READ_ONCE, project_id: PROJECT, timeout: '2m' })
    expect(timedOut.report.outcome).toBe('timeout')
    expect(timedOut.endedAt).toBeLessThanOrEqual(120_000 + 1000)
    const mixed = simulatedWorld({ history: 0 })
    mixed.api.addFault({ kind: 'status', status: 429, retryAfter: '20', times: 3 })
    mixed.api.addFault({ kind: 'status', status: 503, from: 60_000 })
    const failed = await runSimulated(mixed, { ...READ_ONCE, project_id: PROJECT })
    expect(failed.report.outcome).toBe('error')
    // The three 429s' waits (20 s each, and at most 2 intervals more), then 3 intervals of 503s.
    expect(failed.endedAt).toBeGreaterThanOrEqual(60_000)
    expect(failed.endedAt).toBeLessThanOrEqual(3 * 30_000 + 15_000 + 2)
  })

  it('a retry that would start as the 3 intervals end is not started: it would have no time', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = operationIn(setup.world, 'running')
    setup.api.addFault({ kind: 'malformed', body: '<html></html>' })
    // No jitter: the retries wait 10 s and 5 s from the proxy pages' requests, the second ending
    // exactly as the 15 s do.
    const run = await runSimulated(
      setup,
      { ...READ_ONCE, project_id: PROJECT, operation_id: op.id },
      { random: () => 0 }
    )
    expect(run.requests.map((request) => request.t)).toEqual([1, 10_001])
    expect(run.report.outcome).toBe('error')
    expect(run.endedAt).toBeLessThanOrEqual(15_000)
    expect(errorLine(run.report)).toMatch(/; last error: .*a body that is not JSON/)
  })

  it('a timeout shorter than 3 intervals ends it first: the timeout (the command’s 124)', async () => {
    const { run } = await gateOneRunning(
      { kind: 'status', status: 503 },
      { ...READ_ONCE, timeout: '8s' }
    )
    expect(run.report.outcome).toBe('timeout')
    expect(exitCodeOf(run.report, undefined)).toBe(124)
    expect(run.endedAt).toBeLessThanOrEqual(9000)
  })

  it('one failed request is still retried, and the one read answers', async () => {
    const { run } = await gateOneRunning({ kind: 'status', status: 503, times: 1 }, READ_ONCE)
    expect(run.report.outcome).toBe('pending')
    expect(run.requests).toHaveLength(2)
  })

  it('while waiting (wait: true), the same API is retried until the timeout, as before', async () => {
    const { run } = await gateOneRunning({ kind: 'status', status: 503 }, { timeout: '2m' })
    expect(run.report.outcome).toBe('timeout')
    expect(run.endedAt).toBeGreaterThan(100_000)
  })
})
