/*
 * What ended before the project gate started, in process over the local API server on simulated
 * time: on a gated branch the state decides whatever its age (the newest operation on each compute,
 * or of each action on the branch), the whole project's 15-minute window for warnings, `error`
 * against `cancelled`, and `failed` under fail_fast. What no
 * contract allows (an unreadable time, no action, an operation repeated across a page boundary) is
 * the local server's own answer, altered by a fault.
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine } from '../../src/gate/run-report.js'
import { renderSummary } from '../../src/gate/run-report.js'
import { runSimulated, type SimulatedRun, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const BRANCH = 'br-preview-000042'
const MINUTE = 60_000

/**
 * A world with the preview branch, ready, and nothing in flight (with the demo's history of finished
 * operations unless `options` say otherwise); `at` is the gate's start.
 */
function world(options: Parameters<typeof simulatedWorld>[0] = {}) {
  const setup = simulatedWorld(options)
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
      `An operation ended in failure before the gate started: ${start.id} (start_compute on ${BRANCH} ended in error after 5.0 s, 25.0 s before the gate started: "compute quota exceeded"); nothing has succeeded there since, so a re-run fails again: re-create the branch (or run the action again), then re-run the gate`
    )
    expect(renderSummary(run.report)).toContain(
      'ended in <code>error</code> after 5.0 s, 25.0 s before the gate started'
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

  it('no window: the same error fails the gate 15 minutes, 15 minutes and 1 ms, 20 minutes or 23 hours after it', async () => {
    for (const agoMs of [
      15 * MINUTE,
      15 * MINUTE + 1,
      20 * MINUTE,
      3 * 60 * MINUTE,
      23 * 60 * MINUTE
    ]) {
      const { setup, ended } = world()
      const error = ended('start_compute', 'error', agoMs, { endpointId: 'ep-read-write-000042' })
      const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
      expect(run.report.outcome).toBe('failure')
      expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([error.id])
    }
  })

  it('a re-run 16 minutes after the start_compute error fails again, naming the error, its age and the way out', async () => {
    const { setup, ended } = world()
    ended('create_branch', 'finished', 16 * MINUTE + 45_000, { tookMs: 2000 })
    const error = ended('start_compute', 'error', 16 * MINUTE + 40_000, {
      endpointId: 'ep-read-write-000042',
      error: 'out of capacity'
    })
    // Another compute's start since does not fix this one.
    ended('start_compute', 'finished', 10 * MINUTE, { endpointId: 'ep-replica-000042' })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.recentFailures).toEqual([
      {
        operation: expect.objectContaining({ id: error.id }),
        failsGate: true,
        endedAgoMs: 16 * MINUTE + 35_000
      }
    ])
    expect(errorLine(run.report)).toBe(
      `An operation ended in failure before the gate started: ${error.id} (start_compute on ${BRANCH} ended in error after 5.0 s, 16 min 35 s before the gate started: "out of capacity"); nothing has succeeded there since, so a re-run fails again: start the compute again (or re-create the branch), then re-run the gate`
    )
    expect(run.lines.filter((line) => line.startsWith('warning'))).toEqual([])
    expect(renderSummary(run.report)).toContain('16 min 35 s before the gate started')
  })

  it('an error superseded since passes in silence; one of another action without a compute fails, 25 h old', async () => {
    const { setup, ended } = world()
    ended('start_compute', 'finished', 20 * MINUTE)
    ended('start_compute', 'error', 30 * MINUTE)
    expectQuietPass(await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH }))
    const old = ended('apply_config', 'error', 25 * 60 * MINUTE)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([old.id])
  })

  it('the whole project: an error older than 15 minutes is not reported (that gate answers whether the project is idle)', async () => {
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
      {
        operation: expect.objectContaining({ id: cancelled.id }),
        failsGate: false,
        endedAgoMs: 35_000
      }
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
      `warning: Ended in failure before the gate started: action_0 ${failures[0].id} on br-other-0, error 55.0 s before the gate started: "failure 0"; the project gate does not fail on it; gate on its branch to fail on it`
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
    const setup = simulatedWorld({ history: 0 })
    // Pages of two: a start on the branch and the error on another on the first, one 25 h old on
    // the second.
    setup.world.operationsPageCap = 2
    const at = setup.time.wallNow()
    const other = { action: 'start_compute', branchId: 'br-other-000001' }
    operationIn(setup.world, 'finished', { ...other, createdAt: at - 25 * 3600_000 })
    const error = operationIn(setup.world, 'error', {
      ...other,
      createdAt: at - 40_000,
      error: 'out of capacity'
    })
    operationIn(setup.world, 'finished', {
      action: 'start_compute',
      branchId: BRANCH,
      createdAt: at - 10_000
    })
    // The second page starts with the last one of the first, as a server paging by `created_at`
    // with `<=` would list it (the local server pages with `<`).
    const pages: { operations: unknown[] }[] = []
    setup.api.addFault({
      kind: 'altered',
      route: 'operations',
      alter: (body) => {
        const page = body as { operations: unknown[] }
        if (pages.push(page) !== 2) return page
        return { ...page, operations: [pages[0].operations.at(-1), ...page.operations] }
      }
    })
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(pages).toHaveLength(2)
    expect(run.report.outcome).toBe('success')
    expect(run.report.recentFailures?.map((failure) => failure.operation.id)).toEqual([error.id])
    const warnings = run.lines.filter((line) => line.startsWith('warning'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(error.id)
    const summary = renderSummary(run.report)
    expect(summary).toContain('Ended in failure before the gate started (1)')
    expect(summary.split(error.id)).toHaveLength(2)
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

  /**
   * An operation of the branch, final, created `minutesAgo` before the gate started; `listedAs`: what
   * the list says of it instead, as no contract allows (an unreadable time, no action).
   */
  interface Listed {
    action: string
    status: string
    minutesAgo: number
    error?: string
    listedAs?: Record<string, unknown>
  }
  const unreadableTime = { created_at: 'not a time' }
  const noAction = { action: undefined }

  it.each<[string, Listed[], string]>([
    [
      // The list is newest first: the finished one, listed after the error, is older than it.
      'a finished operation whose created_at cannot be read, listed after a recent error, does not hide it',
      [
        { action: 'start_compute', status: 'error', error: 'quota', minutesAgo: 0.5 },
        { action: 'start_compute', status: 'finished', minutesAgo: 1, listedAs: unreadableTime },
        { action: 'create_branch', status: 'finished', minutesAgo: 25 * 60 }
      ],
      'failure'
    ],
    [
      'operations with no action are not "the same action": a finished one does not supersede an error',
      [
        { action: 'start_compute', status: 'finished', minutesAgo: 1 / 3, listedAs: noAction },
        {
          action: 'start_compute',
          status: 'error',
          error: 'boom',
          minutesAgo: 0.5,
          listedAs: noAction
        },
        { action: 'create_branch', status: 'finished', minutesAgo: 25 * 60 }
      ],
      'failure'
    ],
    [
      // Still the newest of its action on the branch: its age, readable or not, changes nothing.
      'an error whose created_at cannot be read, listed after an operation hours old, still fails',
      [
        { action: 'create_branch', status: 'finished', minutesAgo: 3 * 60 },
        {
          action: 'start_compute',
          status: 'error',
          error: 'old',
          minutesAgo: 4 * 60,
          listedAs: unreadableTime
        },
        { action: 'apply_config', status: 'finished', minutesAgo: 25 * 60 }
      ],
      'failure'
    ]
  ])('%s', async (_, listed, outcome) => {
    const { setup, ended } = world({ history: 0 })
    const listedAs = new Map<string, Record<string, unknown>>()
    for (const { action, status, minutesAgo, error, listedAs: fields } of listed) {
      const record = ended(action, status, minutesAgo * MINUTE, { error, tookMs: 1000 })
      if (fields) listedAs.set(record.id, fields)
    }
    setup.api.addFault({
      kind: 'altered',
      route: 'operations',
      alter: (body) => {
        const page = body as { operations: { id: string }[] }
        const operations = page.operations.map((op) => ({ ...op, ...listedAs.get(op.id) }))
        return { ...page, operations }
      }
    })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe(outcome)
  })
})
