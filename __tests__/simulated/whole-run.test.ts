/*
 * What a run reports of itself, on simulated time: an error mid-wait keeps what was read (the
 * outputs as the summary), the time reported covers the whole run with the database check, and no
 * log line claims success before the database answered.
 */
import { describe, expect, it } from '@jest/globals'
import type { QueryDatabase } from '../../src/steps/database/postgres.js'
import { buildOutputs } from '../../src/gate/run-report.js'
import { renderSummary, renderTextReport } from '../../src/gate/run-report.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

/** An operation running until its third read, then finished, and the gate that waits on it. */
function runningOperation() {
  const setup = simulatedWorld({ history: 0 })
  const op = operationIn(setup.world, 'running', {
    reads: 2,
    then: 'finished',
    branchId: 'br-main-1'
  })
  return { setup, op }
}

describe('an HTTP error mid-wait keeps the last-seen state', () => {
  it('a key revoked at the second poll: operations, the operation fields and elapsed_ms', async () => {
    const { setup, op } = runningOperation()
    let requests = 0
    setup.api.onRequest = () => {
      if (++requests === 2) setup.world.keys.get(KEYS.organization)!.revoked = true
    }
    const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id })
    expect(run.report.outcome).toBe('error')
    expect(run.report.error).toMatch(/^The API rejected the key \(HTTP 401/)
    const { outputs } = buildOutputs(run.report)
    expect(outputs).toMatchObject({
      status: 'running',
      operation_id: op.id,
      action: 'apply_config',
      branch_id: 'br-main-1'
    })
    expect(JSON.parse(outputs.operations)).toEqual([
      expect.objectContaining({ id: op.id, status: 'running' })
    ])
    // The whole run: from the gate's start to the 401 that ended it, one interval later.
    expect(outputs.elapsed_ms).toBe(String(run.endedAt))
    expect(run.endedAt).toBeGreaterThanOrEqual(5000)
    // Running at its last read, 1 ms after the gate started: measured so far, never "0 ms".
    const created = Date.parse(JSON.parse(outputs.operation).created_at)
    const readAt = run.report.wait!.readAt.get(op.id)!
    expect(outputs.duration_ms).toBe(String(readAt - created))
    expect(Number(outputs.duration_ms)).toBeGreaterThan(0)
    const summary = renderSummary(run.report)
    expect(summary).toContain('<p><b>❌ Error:</b> The API rejected the key (HTTP 401')
    expect(summary).not.toContain('<td>0 ms</td>')
    expect(summary).toMatch(/<td>[^<]+ so far<\/td>/)
  })

  it('an operation that disappeared (404) at the second poll: the same', async () => {
    const { setup, op } = runningOperation()
    let requests = 0
    setup.api.onRequest = () => {
      if (++requests === 2) setup.api.addFault({ kind: 'status', status: 404 })
    }
    const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id })
    expect(run.report.error).toMatch(/^Operation "[^"]+" of project "[^"]+" was not found/)
    const { outputs } = buildOutputs(run.report)
    expect(outputs).toMatchObject({ status: 'running', operation_id: op.id })
    expect(outputs.elapsed_ms).toBe(String(run.endedAt))
    expect(renderTextReport(run.report)).toMatch(/ running +\d+ ms so far /)
  })

  it('an error at the first read: nothing was read, and no operation output is set (only the gate and its time)', async () => {
    const { setup, op } = runningOperation()
    setup.world.keys.get(KEYS.organization)!.revoked = true
    const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id })
    expect(run.report.outcome).toBe('error')
    // The one request's round trip on the simulated network.
    expect(buildOutputs(run.report).outputs).toEqual({ gate: 'operations', elapsed_ms: '2' })
  })
})

describe('the time reported covers the whole run, the database check included', () => {
  /** A database that refuses connections `refusals` times, then answers 1. */
  function database(refusals: number): QueryDatabase {
    let attempts = 0
    return async () => {
      if (++attempts <= refusals) {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
          code: 'ECONNREFUSED'
        })
      }
      return { results: [{ rows: [[1]], command: 'SELECT' }] }
    }
  }
  const DATABASE_URL = 'postgresql://app:secret-pw@127.0.0.1:5432/app?sslmode=disable'

  it('timeout during the database check: elapsed_ms and "timeout after …" count it', async () => {
    const { setup, op } = runningOperation()
    const run = await runSimulated(
      setup,
      { project_id: PROJECT, operation_id: op.id, database_url: DATABASE_URL, timeout: '30s' },
      { queryDatabase: database(Infinity) }
    )
    expect(run.report.outcome).toBe('timeout')
    // The control plane was done at the third read (10 s); the database took the rest.
    expect(run.endedAt).toBeGreaterThanOrEqual(30_000)
    expect(buildOutputs(run.report).outputs.elapsed_ms).toBe(String(run.endedAt))
    expect(renderSummary(run.report)).toMatch(/<b>⌛ timeout<\/b> after 30\.\d s/)
    expect(renderTextReport(run.report)).toMatch(/^⌛ timeout after 30\.\d s/)
  })

  it('a database that answers after two refusals: success, and the log says the control plane was done, not the outcome, before it answered', async () => {
    const { setup, op } = runningOperation()
    const run = await runSimulated(
      setup,
      { project_id: PROJECT, operation_id: op.id, database_url: DATABASE_URL },
      { queryDatabase: database(2) }
    )
    expect(run.report.outcome).toBe('success')
    expect(buildOutputs(run.report).outputs.elapsed_ms).toBe(String(run.endedAt))
    const answered = run.lines.findIndex((line) => line.includes('The database answered'))
    expect(answered).toBeGreaterThan(0)
    const before = run.lines.slice(0, answered)
    expect(before.some((line) => line.includes('outcome: success'))).toBe(false)
    expect(before).toContainEqual(expect.stringMatching(/^info: \[\+10\.0 s\] control plane done/))
    expect(run.lines.slice(answered)).toContainEqual(
      expect.stringMatching(/^info: \[\+20\.\d s\] outcome: success$/)
    )
  })
})
