/*
 * Where the project gate's first read ends, over the bundle against servers that cap their pages:
 * an operation in flight on page 2 is waited on, and the page cap's warning counts what was read.
 * A later poll reads back past a burst elsewhere in the project to what the previous poll had seen.
 * Every other list's end (the branch search, listing projects, later polls) is in process,
 * simulated/paging.test.ts and simulated/project-gate.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { addBranchInitTwice, operationIn } from '../support/neon/scenarios.js'

/**
 * The local API server with `count` operations of the project, finished, a second apart from now
 * (newest first), its pages capped at `pageCap` whatever `limit` asks; `fields(i)` for the i-th.
 */
async function cappedHistory(
  count: number,
  pageCap: number,
  fields: (i: number) => Parameters<typeof operationIn>[2] & { status?: string } = () => ({})
) {
  const { world, server } = await serve({ history: 0 })
  world.operationsPageCap = pageCap
  const now = world.now()
  const all = Array.from({ length: count }, (_, i) => {
    const { status = 'finished', ...rest } = fields(i) ?? {}
    return operationIn(world, status, { createdAt: now - i * 1000, ...rest })
  })
  return { world, server, all }
}

describe('discovery does not end on a short page', () => {
  it('a server that caps pages at 25 from the first poll: an operation on page 2 is waited on', async () => {
    // 40 finished, then the one in flight (running at its discovery and its first read by id,
    // finished at its second), then 19 finished more.
    const { server, all } = await cappedHistory(60, 25, (i) =>
      i === 40 ? { status: 'running', reads: 2, then: 'finished' } : {}
    )
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    // A later poll ends on the short first page, and reads it by id: twice.
    expect(server.requests.filter((request) => request.route === 'operation')).toHaveLength(2)
    expect(JSON.parse(run.outputs.operations)).toContainEqual(
      expect.objectContaining({ id: all[40].id, status: 'finished' })
    )
  })

  it('a server that caps pages at 1: the page cap warning counts what was read, and its span', async () => {
    const { server, all } = await cappedHistory(30, 1)
    const created = (i: number) => new Date(all[i].createdAt).toISOString()
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    // The 20 pages, then the state that stands for what they did not reach: computes, branches.
    expect(server.requests.map((request) => request.route)).toEqual([
      ...Array.from({ length: 20 }, () => 'operations'),
      'project-computes',
      'branches'
    ])
    expect(run.stdout).toContain(
      `::warning::Project gate: read 20 operations in 20 pages, created from ${created(19)} to ${created(0)}, and stopped there (the page cap); older ones, up to 24 h before the newest, were not read: the project's computes and branches stand for them`
    )
  })
})

describe('bundle end to end: a later poll reads back to what the previous one had seen', () => {
  it("a start_compute that ended in error under a burst of 150 on other branches fails the branch's gate", async () => {
    const { world, server } = await serve({ history: 20 })
    const branch = 'br-preview-000042'
    // Resolved ready, then init for two polls: the gate polls on with nothing in flight.
    addBranchInitTwice(world, branch)
    let start: { id: string } | undefined
    let branchReads = 0
    // As the first poll reads the branch (after its list): the start, then 150 elsewhere.
    server.onRequest = (record) => {
      if (record.route !== 'branch' || ++branchReads !== 2) return
      const now = world.now()
      start = operationIn(world, 'error', {
        action: 'start_compute',
        branchId: branch,
        createdAt: now - 150,
        error: 'out of capacity'
      })
      for (let i = 1; i <= 150; i++) {
        operationIn(world, 'finished', { branchId: 'br-main-000001', createdAt: now - 150 + i })
      }
    }
    const run = await runAction(server, { project_id: PROJECT, branch_id: branch })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({
      outcome: 'failure',
      operation_id: start!.id,
      error: 'out of capacity'
    })
  })
})
