/*
 * The report within GitHub's limits, in process on simulated time: 10,000 operations in flight give
 * a summary and outputs far below GitHub's limits; an error, or a cancellation, before anything was
 * read says so, never "nothing in flight". What the runner's files hold of a huge error or of
 * multi-byte text is shown over the bundle (e2e/report-limits.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { buildOutputs } from '../../src/gate/run-report.js'
import { renderSummaryWithin } from '../../src/gate/run-report.js'
import { MAX_SUMMARY_BYTES } from '../../src/report/summary.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('stay within GitHub limits; say what is known', () => {
  it('10,000 operations in flight: the summary stays far below 1 MiB, the outputs under 1 MB as UTF-16', async () => {
    const setup = simulatedWorld({ history: 0 })
    for (let i = 0; i < 10_000; i++) {
      operationIn(setup.world, 'running', { createdAt: setup.world.now() - i * 1000 })
    }
    const run = await runSimulated(setup, { project_id: PROJECT, wait: 'false' })
    expect(run.report.outcome).toBe('pending')
    const summary = renderSummaryWithin(run.report, MAX_SUMMARY_BYTES)
    expect(summary.length).toBeLessThan(256 * 1024)
    expect(summary).toContain('<h3>Operations (10000)</h3>')
    expect(summary).toContain('… and 9950 more operations not shown')
    const { outputs, notes } = buildOutputs(run.report)
    const utf16 = Object.entries(outputs).reduce(
      (sum, [k, v]) => sum + 2 * (k.length + v.length),
      0
    )
    expect(utf16).toBeLessThan(1_000_000)
    expect(notes).toContainEqual(expect.stringContaining('The operations output holds the first'))
  })

  it('an error before anything was read does not claim that nothing is in flight', async () => {
    const run = await runSimulated(simulatedWorld(), { api_key: KEYS.revoked, project_id: PROJECT })
    expect(run.report.outcome).toBe('error')
    const summary = renderSummaryWithin(run.report, MAX_SUMMARY_BYTES)
    expect(summary).not.toContain('No operation in flight')
    expect(summary).toContain('Nothing could be read before the error')
  })

  it('an error after a poll that found nothing in flight keeps what that poll read', async () => {
    const setup = simulatedWorld()
    setup.world.addBranch(PROJECT, { id: 'br-new-000001', name: 'new', state: { current: 'init' } })
    // The branch keeps the gate open (read when resolved, then by the first poll); the key is
    // revoked at the next poll's read of it.
    setup.api.onRequest = () => {
      if (setup.api.requests.filter((request) => request.route === 'branch').length === 3) {
        setup.api.addFault({ kind: 'status', status: 401 })
      }
    }
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'br-new-000001' })
    expect(run.report.outcome).toBe('error')
    expect(run.report.wait?.operations).toEqual([])
    const summary = renderSummaryWithin(run.report, MAX_SUMMARY_BYTES)
    expect(summary).not.toContain('Nothing could be read before the error')
  })

  it('cancelled while listing projects: outcome cancelled', async () => {
    const setup = simulatedWorld()
    setup.api.addFault({ kind: 'slow', delayMs: 20_000 })
    const run = await runSimulated(setup, { list_projects: 'true' }, { cancelAt: 500 })
    expect(run.report.outcome).toBe('cancelled')
    expect(run.endedAt).toBe(500)
    expect(renderSummaryWithin(run.report, MAX_SUMMARY_BYTES)).toContain('🚫 cancelled')
  })
})
