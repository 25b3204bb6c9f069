/*
 * Where the project gate's first read ends, over the bundle against servers that cap their pages:
 * an operation in flight on page 2 is waited on, and the page cap's warning counts what was read.
 * A later poll reads back past a burst elsewhere in the project to what the previous poll had seen.
 * Every other list's end (the branch search, listing projects, later polls) is in process,
 * simulated/paging.test.ts and simulated/project-gate.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { hostile, json } from '../support/neon/hostile.js'
import { OP_A, PROJECT } from '../support/neon/ids.js'
import { operation } from '../support/neon/operations.js'
import type { Operation } from '../../src/domain/schemas.js'
import { operationIn } from '../support/neon/scenarios.js'

/**
 * The operations list of `all` (newest first), `pageSize` a page whatever `limit` asks; the cursor is
 * the creation time of the page's last one. A read of one operation by id goes to `readOne`.
 */
function cappedOperations(
  all: Operation[],
  pageSize: number,
  readOne: (id: string) => unknown = () => undefined
) {
  return hostile((request, response) => {
    const url = new URL(request.url ?? '', 'http://127.0.0.1')
    const byId = /\/operations\/([^/?]+)$/.exec(url.pathname)?.[1]
    if (byId) return json(response, 200, { operation: readOne(byId) })
    const cursor = url.searchParams.get('cursor')
    const page = all.filter((op) => !cursor || op.created_at! < cursor).slice(0, pageSize)
    json(response, 200, {
      operations: page,
      pagination: { cursor: page.at(-1)?.created_at ?? cursor ?? '' }
    })
  })
}

/** `count` operations, newest first, a second apart from now; `fields(i)` for the i-th. */
function history(count: number, fields: (i: number) => Record<string, unknown> = () => ({})) {
  const start = Date.now()
  return Array.from({ length: count }, (_, i) =>
    operation({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      status: 'finished',
      created_at: new Date(start - i * 1000).toISOString(),
      ...fields(i)
    })
  )
}

describe('discovery does not end on a short page', () => {
  it('a server that caps pages at 25 from the first poll: an operation on page 2 is waited on', async () => {
    // 40 finished, then the one in flight, then 19 finished more.
    const all = history(60, (i) => (i === 40 ? { id: OP_A, status: 'running' } : {}))
    let reads = 0
    const server = await cappedOperations(all, 25, () => {
      reads++
      return { ...all[40], status: reads < 2 ? 'running' : 'finished' }
    })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    expect(reads).toBe(2)
    expect(JSON.parse(run.outputs.operations)).toContainEqual(
      expect.objectContaining({ id: OP_A, status: 'finished' })
    )
  })

  it('a server that caps pages at 1: the page cap warning counts what was read, and its span', async () => {
    const all = history(30)
    const server = await cappedOperations(all, 1)
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    expect(server.hits).toHaveLength(20)
    expect(run.stdout).toContain(
      `::warning::Project gate: read 20 operations in 20 pages, created from ${all[19].created_at} to ${all[0].created_at}, and stopped there (the page cap); older ones, back to 24 h ago, were not read`
    )
  })
})

describe('bundle end to end: a later poll reads back to what the previous one had seen', () => {
  it("a start_compute that ended in error under a burst of 150 on other branches fails the branch's gate", async () => {
    const { world, server } = await serve({ history: 20 })
    const branch = 'br-preview-000042'
    world.addBranch(PROJECT, {
      id: branch,
      name: 'preview/pr-42',
      // Resolved ready, then init for two polls: the gate polls on with nothing in flight.
      statesByRead: [
        { current: 'ready' },
        { current: 'init' },
        { current: 'init' },
        { current: 'ready' }
      ]
    })
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
