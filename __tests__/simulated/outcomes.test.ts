/*
 * Statuses and what they make of the gate, in process over the local API server on simulated time:
 * each final status, a failure the control plane retries, fail_fast, an unknown status. The exit
 * code, the error line and the outputs of the same are shown over the bundle (e2e/outcomes).
 */
import { describe, expect, it } from '@jest/globals'
import { buildOutputs } from '../../src/gate/run-report.js'
import { renderSummary } from '../../src/gate/run-report.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'

function gateOn(timeline: { status: string; reads?: number }[], values = {}) {
  const setup = simulatedWorld({ history: 0 })
  const op = setup.world.addOperation(PROJECT, { action: 'apply_config', timeline })
  return { op, run: runSimulated(setup, { project_id: PROJECT, operation_id: op.id, ...values }) }
}

describe('statuses', () => {
  it.each([
    ['finished', 'success'],
    ['skipped', 'success'],
    ['cancelled', 'failure'],
    ['error', 'failure']
  ])('running → %s: %s, read twice', async (final, outcome) => {
    const { run } = gateOn([{ status: 'running', reads: 1 }, { status: final }])
    const { report, requests } = await run
    expect(report.outcome).toBe(outcome)
    expect(report.wait?.operations.map((operation) => operation.status)).toEqual([final])
    expect(requests).toHaveLength(2)
  })

  it('failed, then retried by the control plane: waited through, failures_count 1', async () => {
    const { op, run } = gateOn([
      { status: 'failed', reads: 1 },
      { status: 'running', reads: 1 },
      { status: 'finished' }
    ])
    const { report, lines, requests } = await run
    expect(report.outcome).toBe('success')
    expect(report.wait?.operations[0]).toMatchObject({ status: 'finished', failures_count: 1 })
    expect(lines).toContain(
      `info: [+5.0 s] ${op.id} apply_config on br-main-000001: failed → running`
    )
    expect(requests).toHaveLength(3)
    expect(buildOutputs(report).outputs).toMatchObject({ failures_count: '1' })
    expect(renderSummary(report)).toContain('✅ Finished (1 failure)')
  })

  it('failed with fail_fast: a failure at the first read', async () => {
    const { run } = gateOn([{ status: 'failed', reads: 5 }, { status: 'finished' }], {
      fail_fast: 'true'
    })
    const { report, requests } = await run
    expect(report.outcome).toBe('failure')
    expect(requests).toHaveLength(1)
  })

  it('an unknown status: warned about once, waited through', async () => {
    const { run } = gateOn([{ status: 'reattaching', reads: 3 }, { status: 'finished' }])
    const { report, lines, requests } = await run
    expect(report.outcome).toBe('success')
    expect(
      lines.filter((line) => line.includes('Unknown operation status "reattaching"'))
    ).toHaveLength(1)
    expect(requests).toHaveLength(4)
  })
})
