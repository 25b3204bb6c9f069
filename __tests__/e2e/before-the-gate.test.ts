/*
 * What had ended before the project gate's first read, over the bundle: the README's first recipe
 * (a branch created, then gated) when the branch's start_compute fails in the seconds between, and
 * a `failed` operation under fail_fast, and a re-run long after a failure that nothing has fixed.
 * The rules themselves (the newest on each compute, cancelled, the whole project's window) are
 * proven on simulated time (simulated/recent-failures, simulated/verdict-properties).
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { gateCommand } from '../support/bundles/command.js'
import { PROJECT } from '../support/neon/ids.js'
import type { OperationRecord } from '../support/neon/records.ts'
import { operationIn } from '../support/neon/scenarios.js'

const BRANCH = 'br-preview-pr-42'

/**
 * The branch, created 31 s ago, and `ended`: adds an operation of it (start_compute unless `fields`
 * say), created `agoMs` before now, running for `runningMs` and then in `status`.
 */
async function branchCreated() {
  const { world, server } = await serve()
  world.addBranch(PROJECT, { id: BRANCH, name: 'preview/pr-42' })
  const now = world.now()
  const ended = (
    agoMs: number,
    runningMs: number,
    status: string,
    fields: Partial<Omit<OperationRecord, 'timeline'>> = {}
  ) =>
    world.addOperation(PROJECT, {
      action: 'start_compute',
      branchId: BRANCH,
      createdAt: now - agoMs,
      ...fields,
      timeline: [{ status: 'running', ms: runningMs }, { status }]
    })
  ended(31_000, 2000, 'finished', { action: 'create_branch' })
  return { world, server, now, ended }
}

describe('bundle end to end: what ended before the first read', () => {
  it("the new branch's start_compute ended in error 25 s before the gate: failure, naming the action, the operation and the error", async () => {
    const { server, ended } = await branchCreated()
    const start = ended(30_000, 5000, 'error', {
      error: 'could not start the compute: quota exceeded'
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'preview/pr-42' })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({
      outcome: 'failure',
      status: 'error',
      operation_id: start.id,
      action: 'start_compute',
      error: 'could not start the compute: quota exceeded'
    })
    // Its age: 25 s, and whatever the bundle took to start on a busy machine (the world's clock
    // is the wall clock here).
    const age = /ended in error after 5\.0 s, (\d+)\.\d s before the gate started/.exec(run.stdout)
    expect(Number(age?.[1])).toBeGreaterThanOrEqual(25)
    expect(run.stdout).toContain(
      `::error::An operation ended in failure before the gate started: ${start.id} (start_compute on ${BRANCH} ended in error after 5.0 s, `
    )
    expect(run.stdout).toContain(
      ` s before the gate started: "could not start the compute: quota exceeded"); nothing has succeeded there since, so a re-run fails again: re-create the branch (or run the action again), then re-run the gate`
    )
    expect(run.summary).toContain('before the gate started')
  })

  it("a replica's start that finished 10 s before does not hide the read-write compute's failed start 20 s before: failure", async () => {
    const { server, ended } = await branchCreated()
    const readWrite = ended(25_000, 5000, 'error', {
      endpointId: 'ep-read-write-000042',
      error: 'out of capacity'
    })
    ended(12_000, 2000, 'finished', { endpointId: 'ep-replica-000042' })
    const run = await runAction(server, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({
      outcome: 'failure',
      operation_id: readWrite.id,
      endpoint_id: 'ep-read-write-000042',
      error: 'out of capacity'
    })
  })

  it('a cancelled one is a warning; the gate passes', async () => {
    // Ended 25 s before the world was made; a loaded machine starts the bundle later, so its age
    // is at least that, within a generous ceiling.
    const { server, ended } = await branchCreated()
    const cancelled = ended(30_000, 5000, 'cancelled')
    const run = await runAction(server, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toMatch(
      new RegExp(
        `::warning::Ended in failure before the gate started: start_compute ${cancelled.id} on ${BRANCH}, cancelled (2\\d|[3-9]\\d)\\.\\d s before the gate started`
      )
    )
    expect(run.summary).toContain('Ended in failure before the gate started (1)')
  })

  it('a re-run 16 minutes after the start_compute error fails again, naming the error, its age and the way out: the action and the command', async () => {
    const { server, ended } = await branchCreated()
    const error = ended(16 * 60_000 + 40_000, 5000, 'error', {
      endpointId: 'ep-read-write-000042',
      error: 'out of capacity'
    })
    const named = new RegExp(
      `${error.id} \\(start_compute on ${BRANCH} ended in error after 5\\.0 s, 16 min [3-5]\\d s before the gate started: "out of capacity"\\); nothing has succeeded there since, so a re-run fails again: start the compute again \\(or re-create the branch\\), then re-run the gate`
    )
    const run = await runAction(server, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ outcome: 'failure', operation_id: error.id })
    expect(run.stdout).toMatch(named)
    expect(run.summary).toContain(error.id)
    const command = await gateCommand(server, ['--branch-id', BRANCH])
    expect(command.code).toBe(1)
    expect(command.stderr).toMatch(named)
    expect(command.stdout).toContain('16 min ')
  })

  it('under fail_fast, a failed operation at the first read is a final failure', async () => {
    const { world, server, now } = await branchCreated()
    const failed = operationIn(world, 'failed', {
      action: 'start_compute',
      branchId: BRANCH,
      createdAt: now - 10_000
    })
    const run = await runAction(server, { project_id: PROJECT, fail_fast: 'true', timeout: '1m' })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({
      outcome: 'failure',
      status: 'failed',
      operation_id: failed.id
    })
    // Found on the first read (two pages), no further poll.
    expect(server.requests.filter((request) => request.route === 'operations')).toHaveLength(2)
  })
})
