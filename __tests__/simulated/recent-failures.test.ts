/*
 * What ended just before the project gate started, in process over the local API server on
 * simulated time: the 15-minute window, the newest operation of each action, `error` against
 * `cancelled`, the gated branch against the whole project, and `failed` under fail_fast.
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine } from '../../src/report/headline.js'
import { renderSummary } from '../../src/report/summary.js'
import type { IncomingRequest } from '../support/neon/server.ts'
import { ok, runSimulated, type SimulatedRun, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const BRANCH = 'br-preview-000042'
const MINUTE = 60_000

/** A world with the preview branch, ready, and nothing in flight; `at` is the gate's start. */
function world() {
  const setup = simulatedWorld()
  setup.world.addBranch(PROJECT, { id: BRANCH, name: 'preview/pr-42' })
  const at = setup.time.wallNow()
  /** An operation of the branch created `agoMs` before the gate started, ended `tookMs` later. */
  const ended = (
    action: string,
    status: string,
    agoMs: number,
    fields: { branchId?: string; endpointId?: string; error?: string; tookMs?: number } = {}
  ) =>
    setup.world.addOperation(PROJECT, {
      action,
      branchId: fields.branchId ?? BRANCH,
      endpointId: fields.endpointId,
      createdAt: at - agoMs,
      error: fields.error,
      timeline: [{ status: 'running', ms: fields.tookMs ?? 5000 }, { status }]
    })
  return { setup, ended }
}

/** The gate passed and said nothing of a failure: no recent failure, no warning. */
function expectQuietPass(run: SimulatedRun) {
  expect(run.report.outcome).toBe('success')
  expect(run.report.recentFailures).toBeUndefined()
  expect(run.lines.filter((line) => line.startsWith('warning'))).toEqual([])
}

describe('the gate on a branch: what ended just before it started', () => {
  it('a start_compute that ended in error 25 s before the first read fails the gate, named with its error', async () => {
    const { setup, ended } = world()
    ended('create_branch', 'finished', 32_000, { tookMs: 2000 })
    const start = ended('start_compute', 'error', 30_000, { error: 'compute quota exceeded' })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.polls).toBe(1)
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([start.id])
    expect(errorLine(run.report)).toBe(
      `An operation ended in failure before the gate started: ${start.id} (start_compute on ${BRANCH} ended in error after 5.0 s: "compute quota exceeded")`
    )
    expect(renderSummary(run.report)).toContain(
      'ended in <code>error</code> after 5.0 s, before the gate started'
    )
    // The first poll found it; the gate ended at once, with no second poll.
    expect(run.endedAt).toBeLessThan(1000)
  })

  it('counts the newest operation of each action: an error superseded by a newer one that did not fail passes', async () => {
    const { setup, ended } = world()
    ended('start_compute', 'error', 120_000, { error: 'first try failed' })
    ended('start_compute', 'finished', 60_000)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expectQuietPass(run)
  })

  it("a replica's start that finished 10 s before does not hide the read-write compute's start that ended in error 20 s before", async () => {
    const { setup, ended } = world()
    ended('create_branch', 'finished', 60_000, { tookMs: 2000 })
    const readWrite = ended('start_compute', 'error', 25_000, {
      endpointId: 'ep-read-write-000042',
      error: 'out of capacity'
    })
    ended('start_compute', 'finished', 12_000, { endpointId: 'ep-replica-000042', tookMs: 2000 })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([readWrite.id])
    expect(errorLine(run.report)).toContain(`${readWrite.id} (start_compute on ${BRANCH}`)
    // A later start of the read-write compute itself that finished does supersede it.
    ended('start_compute', 'finished', 5000, { endpointId: 'ep-read-write-000042', tookMs: 2000 })
    const again = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(again.report.outcome).toBe('success')
  })

  it('an error superseded by one still in flight is waited on through the newer one', async () => {
    const { setup, ended } = world()
    ended('start_compute', 'error', 120_000)
    const retry = ended('start_compute', 'finished', 1000, { tookMs: 12_000 })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('success')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([retry.id])
    expect(run.report.wait?.polls).toBe(4)
  })

  it('a newer operation that failed too keeps the failure: the newest counts', async () => {
    const { setup, ended } = world()
    ended('start_compute', 'finished', 600_000)
    const failed = ended('start_compute', 'error', 300_000)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([failed.id])
  })

  it('the window is 15 minutes before the gate started: created just inside fails, just outside does not', async () => {
    const inside = world()
    inside.ended('start_compute', 'error', 15 * MINUTE)
    const failed = await runSimulated(inside.setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(failed.report.outcome).toBe('failure')

    const outside = world()
    outside.ended('start_compute', 'error', 15 * MINUTE + 1)
    const passed = await runSimulated(outside.setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(passed.report.outcome).toBe('success')
    expect(passed.report.recentFailures).toEqual([
      expect.objectContaining({ failsGate: false, earlier: true })
    ])
  })

  it('an error hours old does not fail the gate', async () => {
    const { setup, ended } = world()
    ended('start_compute', 'error', 3 * 60 * MINUTE)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('success')
  })

  it('a re-run 16 minutes after the start_compute error passes, with a warning naming the error and its age, listed in the summary', async () => {
    const { setup, ended } = world()
    ended('create_branch', 'finished', 16 * MINUTE + 45_000, { tookMs: 2000 })
    const error = ended('start_compute', 'error', 16 * MINUTE + 40_000, {
      endpointId: 'ep-read-write-000042',
      error: 'out of capacity'
    })
    // Another compute's start since does not fix this one.
    ended('start_compute', 'finished', 10 * MINUTE, { endpointId: 'ep-replica-000042' })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('success')
    expect(run.report.recentFailures).toEqual([
      { operation: expect.objectContaining({ id: error.id }), failsGate: false, earlier: true }
    ])
    expect(run.lines.filter((line) => line.startsWith('warning'))).toEqual([
      `warning: An error older than the 15-minute window, still the newest of its action: start_compute ${error.id} on ${BRANCH} (compute ep-read-write-000042), created 16 min 40 s before the gate started: "out of capacity"; nothing of its action has run there since, so it may not be fixed; the gate does not fail on it`
    ])
    const summary = renderSummary(run.report)
    expect(summary).toContain('Ended in error earlier, and nothing has run since (1)')
    expect(summary).toContain(error.id)
    expect(summary).not.toContain('Ended in failure before the gate started')
  })

  it('an earlier error superseded since by its own action passes in silence; past the look-back it is not read', async () => {
    const { setup, ended } = world()
    ended('start_compute', 'finished', 20 * MINUTE)
    ended('start_compute', 'error', 30 * MINUTE)
    ended('apply_config', 'error', 25 * 60 * MINUTE)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expectQuietPass(run)
  })

  it('the whole project: an earlier error is not reported (that gate answers whether the project is idle)', async () => {
    const { setup, ended } = world()
    ended('start_compute', 'error', 20 * MINUTE)
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    expect(run.report.recentFailures).toBeUndefined()
  })

  it('a cancelled operation is a warning, listed in the summary; the gate passes', async () => {
    const { setup, ended } = world()
    const cancelled = ended('apply_config', 'cancelled', 40_000)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('success')
    expect(run.report.recentFailures).toEqual([
      { operation: expect.objectContaining({ id: cancelled.id }), failsGate: false }
    ])
    expect(run.lines).toContain(
      `warning: Ended in failure before the gate started: apply_config ${cancelled.id} on ${BRANCH}, cancelled 35.0 s before the gate started; a cancelled operation does not fail the gate`
    )
    const summary = renderSummary(run.report)
    expect(summary).toContain('Ended in failure before the gate started (1)')
    expect(summary).toContain(cancelled.id)
  })

  it("another branch's error does not concern this branch's gate", async () => {
    const { setup, ended } = world()
    ended('start_compute', 'error', 30_000, { branchId: 'br-main-000001' })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('success')
    expect(run.report.recentFailures).toBeUndefined()
  })
})

describe('the whole project: recent failures are warnings', () => {
  it('one warning each, the first five, then a count; the summary lists them all; the outcome stands', async () => {
    const { setup, ended } = world()
    const failures = Array.from({ length: 7 }, (_, index) =>
      ended(`action_${index}`, 'error', 60_000 + index * 1000, {
        branchId: `br-other-${index}`,
        error: `failure ${index}`
      })
    )
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    expect(run.report.recentFailures?.map((failure) => failure.operation.id)).toEqual(
      failures.map((operation) => operation.id)
    )
    const warnings = run.lines.filter((line) => line.startsWith('warning'))
    expect(warnings).toHaveLength(6)
    expect(warnings[0]).toBe(
      `warning: Ended in failure before the gate started: action_0 ${failures[0].id} on br-other-0, error 55.0 s before the gate started: "failure 0"; the project gate does not fail on it; gate on its branch (branch_id) to fail on it`
    )
    expect(warnings[5]).toBe(
      'warning: … and 2 more operations ended in failure before the gate started; the summary lists them'
    )
    const summary = renderSummary(run.report)
    expect(summary).toContain('Ended in failure before the gate started (7)')
    for (const operation of failures) expect(summary).toContain(operation.id)
    expect(summary).toContain('No operation in flight.')
  })
})

describe('a recent failure repeated across a page boundary', () => {
  it('counts once: one warning, one row in the summary', async () => {
    const created = (secondsAgo: number) =>
      new Date(Date.parse('2026-01-01T00:00:00Z') - secondsAgo * 1000).toISOString()
    const errorId = '6b2f3d4e-5f60-4b7c-9d8e-000000000001'
    const error = op({
      id: errorId,
      branch_id: 'br-other-000001',
      status: 'error',
      error: 'out of capacity',
      created_at: created(40)
    })
    const old = op({ id: '6b2f3d4e-5f60-4b7c-9d8e-000000000002', status: 'finished' })
    // The second page starts with the last one of the first, as a server paging by `created_at`
    // with `<=` would list it.
    const pages: Record<string, unknown>[][] = [
      [
        op({
          id: '6b2f3d4e-5f60-4b7c-9d8e-000000000003',
          status: 'finished',
          created_at: created(10)
        }),
        error
      ],
      [error, { ...old, created_at: created(25 * 3600) }],
      []
    ]
    let read = 0
    const run = await runSimulated(
      simulatedWorld(),
      { project_id: PROJECT },
      {
        serve: () =>
          ok({ operations: pages[Math.min(read, 2)], pagination: { cursor: `c${read++}` } })
      }
    )
    expect(read).toBe(2)
    expect(run.report.outcome).toBe('success')
    expect(run.report.recentFailures?.map((failure) => failure.operation.id)).toEqual([errorId])
    const warnings = run.lines.filter((line) => line.startsWith('warning'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(errorId)
    const summary = renderSummary(run.report)
    expect(summary).toContain('Ended in failure before the gate started (1)')
    expect(summary.split(errorId)).toHaveLength(2)
  })
})

describe('fail_fast on the first read', () => {
  it('a failed operation already there is a final failure, not "nothing in flight"', async () => {
    const { setup } = world()
    const failed = operationIn(setup.world, 'failed', {
      action: 'start_compute',
      branchId: BRANCH,
      createdAt: setup.time.wallNow() - 20_000
    })
    const strict = await runSimulated(setup, {
      project_id: PROJECT,
      fail_fast: 'true',
      timeout: '30s'
    })
    expect(strict.report.outcome).toBe('failure')
    expect(strict.report.wait?.polls).toBe(1)
    expect(strict.report.wait?.operations.map((operation) => operation.id)).toEqual([failed.id])
    // Without fail_fast, the same operation is the control plane's to retry: waited on.
    const patient = await runSimulated(setup, { project_id: PROJECT, timeout: '30s' })
    expect(patient.report.outcome).toBe('timeout')
  })
})

/** A scripted API: the branch (ready) and one page of operations, as given (newest first). */
function scripted(operations: Record<string, unknown>[]) {
  const branch = { id: BRANCH, name: 'preview/pr-42', project_id: PROJECT, current_state: 'ready' }
  return (request: IncomingRequest) => {
    if (request.url.includes('/branches')) return ok({ branch })
    if (request.url.includes('cursor=')) return ok({ operations: [], pagination: {} })
    return ok({ operations, pagination: { cursor: 'next' } })
  }
}

const op = (fields: Record<string, unknown>) => ({
  project_id: PROJECT,
  branch_id: BRANCH,
  action: 'start_compute',
  ...fields
})

describe('which operation is newer: the list says, not a time that may not be there', () => {
  it('an error followed by a newer CANCELLED operation of the same action still fails the gate', async () => {
    // Contract: "An error followed by a newer operation of the same action that did NOT fail ...
    // does not fail the gate". cancelled is "final, failure": it did fail, so the error stands.
    const { setup, ended } = world()
    const error = ended('start_compute', 'error', 60_000, { error: 'compute quota exceeded' })
    ended('start_compute', 'cancelled', 30_000)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([error.id])
  })

  /** Minutes before the gate started (its start is the simulated world's epoch). */
  const ago = (minutes: number) =>
    new Date(Date.parse('2026-01-01T00:00:00Z') - minutes * MINUTE).toISOString()
  const id = (n: number) => `5a1f2c3d-4e5f-4a6b-8c7d-00000000000${n}`

  it.each([
    [
      // The list is newest first: the finished one, listed after the error, is older than it.
      'a finished operation whose created_at cannot be read, listed after a recent error, does not hide it',
      [
        op({ id: id(1), status: 'error', error: 'quota', created_at: ago(0.5) }),
        op({ id: id(2), status: 'finished', created_at: 'not a time' }),
        op({ id: id(3), action: 'create_branch', status: 'finished', created_at: ago(25 * 60) })
      ],
      'failure'
    ],
    [
      'operations with no action are not "the same action": a finished one does not supersede an error',
      [
        op({ id: id(2), action: undefined, status: 'finished', created_at: ago(1 / 3) }),
        op({ id: id(1), action: undefined, status: 'error', error: 'boom', created_at: ago(0.5) }),
        op({ id: id(3), action: 'create_branch', status: 'finished', created_at: ago(25 * 60) })
      ],
      'failure'
    ],
    [
      // It would otherwise fail every gate on the branch while it is in the first read.
      'an error whose created_at cannot be read, listed after an operation hours old, is not recent',
      [
        op({ id: id(3), action: 'create_branch', status: 'finished', created_at: ago(3 * 60) }),
        op({ id: id(1), status: 'error', error: 'old', created_at: 'not a time' }),
        op({ id: id(4), action: 'apply_config', status: 'finished', created_at: ago(25 * 60) })
      ],
      'success'
    ]
  ])('%s', async (_, operations, outcome) => {
    const run = await runSimulated(
      simulatedWorld(),
      { project_id: PROJECT, branch_id: BRANCH },
      { serve: scripted(operations) }
    )
    expect(run.report.outcome).toBe(outcome)
  })
})
