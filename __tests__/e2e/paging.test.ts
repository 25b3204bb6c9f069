/*
 * Where each list ends, over the bundle: the branch search follows `pagination.next` whatever the
 * page's length (a server may cap `limit`), counts a branch repeated at a page boundary once, and
 * the project gate keeps waiting on an operation that a capped page of the list no longer shows.
 * That endless listings end at the deadline is proven on simulated time (simulated/deadlines).
 */
import { describe, expect, it } from '@jest/globals'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { PROJECT, runAction, serve } from '../fixtures/e2e.js'
import { hostile, json, OP, runningOp } from '../fixtures/hostile-servers.js'

/** Full pages of 400 projects, each with a new cursor, forever. */
function endlessProjectPages() {
  let page = 0
  return hostile((_request, response) =>
    json(response, 200, {
      projects: Array.from({ length: 400 }, (_, i) => ({ id: `p-${page}-${i}` })),
      pagination: { cursor: `c-${++page}` }
    })
  )
}

const branch = (id: string, name: string) => ({
  id,
  name,
  project_id: PROJECT,
  current_state: 'ready'
})

/**
 * A project whose branch search answers `pages` as they are, whatever `limit` asks, with `next`
 * while more follow; its branches read by id, and no operations.
 */
function pagedSearch(pages: ReturnType<typeof branch>[][]) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '', 'http://x')
    const byId = /\/branches\/([^/?]+)/.exec(url.pathname)?.[1]
    if (byId) return json(response, 200, { branch: branch(byId, 'main') })
    if (!url.pathname.endsWith('/branches')) return json(response, 200, noOperations)
    const index = Number(url.searchParams.get('cursor') ?? '0')
    const next = index + 1 < pages.length ? { next: String(index + 1) } : {}
    json(response, 200, { branches: pages[index], pagination: next })
  }
}

const noOperations = { operations: [], pagination: {} }

describe('the branch search ends where pagination.next does', () => {
  it('pages cut to 25 that carry next: the exact name on page 3 is found', async () => {
    const pages = [0, 1, 2].map((page) =>
      Array.from({ length: 25 }, (_, i) =>
        page === 2 && i === 24
          ? branch('br-the-main-000001', 'main')
          : branch(`br-main-x-${page}-${i}`, `main-x-${page}-${i}`)
      )
    )
    const server = await hostile(pagedSearch(pages))
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'main' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Gating branch main (br-the-main-000001)')
    expect(server.hits.filter((hit) => hit.includes('/branches?'))).toHaveLength(3)
  })

  it('the exact name at the end of a full page and the start of the next counts once', async () => {
    const main = branch('br-the-main-000001', 'main')
    const server = await hostile(
      pagedSearch([
        [...Array.from({ length: 99 }, (_, i) => branch(`br-main-x-${i}`, `main-x-${i}`)), main],
        [main, branch('br-main-y-000001', 'main-y')]
      ])
    )
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'main' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Gating branch main (br-the-main-000001)')
    expect(run.stdout).not.toContain('are named "main"')
  })
})

describe('the operations list ends on a short page', () => {
  it('a server that caps pages at 25: an operation pushed off the first page is still waited on', async () => {
    const finished = (i: number) =>
      runningOp({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        status: 'finished'
      })
    let lists = 0
    let reads = 0
    const server = await hostile((request, response) => {
      const url = request.url ?? ''
      if (url.includes(`/operations/${OP}`)) {
        reads++
        return json(response, 200, {
          operation: runningOp({ status: reads < 2 ? 'running' : 'finished' })
        })
      }
      // First page: the running one among 24 finished; later, 25 newer finished ones hide it.
      const page =
        lists++ === 0
          ? [runningOp(), ...Array.from({ length: 24 }, (_, i) => finished(i))]
          : Array.from({ length: 25 }, (_, i) => finished(100 + i))
      json(response, 200, { operations: page, pagination: { cursor: page.at(-1)!.created_at } })
    })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    expect(reads).toBe(2)
    expect(JSON.parse(run.outputs.operations)).toContainEqual(
      expect.objectContaining({ id: OP, status: 'finished' })
    )
  })
})

/**
 * The operations list of `all` (newest first), `pageSize` a page whatever `limit` asks; the cursor is
 * the creation time of the page's last one. A read of one operation by id goes to `readOne`.
 */
function cappedOperations(
  all: ReturnType<typeof runningOp>[],
  pageSize: number,
  readOne: (id: string) => unknown = () => undefined
) {
  return hostile((request, response) => {
    const url = new URL(request.url ?? '', 'http://127.0.0.1')
    const byId = /\/operations\/([^/?]+)$/.exec(url.pathname)?.[1]
    if (byId) return json(response, 200, { operation: readOne(byId) })
    const cursor = url.searchParams.get('cursor')
    const page = all.filter((op) => !cursor || op.created_at < cursor).slice(0, pageSize)
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
    runningOp({
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
    const all = history(60, (i) => (i === 40 ? { id: OP, status: 'running' } : {}))
    let reads = 0
    const server = await cappedOperations(all, 25, () => {
      reads++
      return { ...all[40], status: reads < 2 ? 'running' : 'finished' }
    })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    expect(reads).toBe(2)
    expect(JSON.parse(run.outputs.operations)).toContainEqual(
      expect.objectContaining({ id: OP, status: 'finished' })
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

describe('listing projects ends, whatever the cursors', () => {
  it('listing projects: a cursor handed out before ends the walk with a warning', async () => {
    let page = 0
    const server = await hostile((_request, response) =>
      json(response, 200, {
        projects: Array.from({ length: 400 }, (_, i) => ({ id: `p-${i}` })),
        pagination: { cursor: page++ % 2 === 0 ? 'a' : 'b' }
      })
    )
    const run = await runAction(server, {
      list_projects: 'true'
    })
    expect(run.code).toBe(0)
    expect(run.outputs.project_count).toBe('400')
    expect(run.stdout).toContain('::warning::The API handed out a page cursor it had given before')
    expect(server.hits).toHaveLength(3)
  })

  it('listing projects: the number of pages is capped, with a warning', async () => {
    const server = await endlessProjectPages()
    const run = await runAction(server, {
      list_projects: 'true',
      timeout: '2m'
    })
    expect(run.code).toBe(0)
    expect(server.hits).toHaveLength(50)
    expect(run.stdout).toContain('::warning::Listed the first 50 pages of projects only')
    expect(run.outputs.project_count).toBe('20000')
  })
})

describe('branch names across every page of the search', () => {
  it('the branch named exactly "main" on page 3 of the search is found', async () => {
    const { world, server } = await serve()
    // 250 newer branches whose names contain "main": main itself, the oldest, comes last.
    for (let i = 0; i < 250; i++) {
      world.addBranch(PROJECT, {
        id: `br-feature-${String(i).padStart(6, '0')}`,
        name: `main-feature-${i}`
      })
    }
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'main' })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Gating branch main (br-main-000001)')
    const searches = server.requests.filter((request) => request.route === 'branches')
    expect(searches.map((request) => [request.query.search, request.query.limit])).toEqual([
      ['main', '100'],
      ['main', '100'],
      ['main', '100']
    ])
    expect(searches[0].query.cursor).toBeUndefined()
    expect(searches[2].query.cursor).toBeDefined()
  })
})
