/*
 * Where each list ends, in process on simulated time: the branch search follows `pagination.next`
 * whatever a page's length (a server may cap `limit`) and counts a branch repeated at a page
 * boundary once; the project gate keeps waiting on an operation a capped page no longer shows; a
 * listing of projects ends at a repeated cursor or its page cap. Two of the project gate's cases
 * are shown over the bundle too (e2e/paging.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { ok, runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

/** A server of our own: `answer` gets each request's address, and says what to answer. */
const scripted = (answer: (url: URL) => unknown) => (request: { url: string }) =>
  ok(answer(new URL(request.url, 'http://127.0.0.1')))

const branch = (id: string, name: string) => ({
  id,
  name,
  project_id: PROJECT,
  current_state: 'ready'
})

/** A branch search that answers `pages` as they are, whatever `limit` asks, with `next` while more follow. */
function pagedSearch(pages: ReturnType<typeof branch>[][]) {
  const searches: URL[] = []
  const serve = scripted((url) => {
    const byId = /\/branches\/([^/?]+)/.exec(url.pathname)?.[1]
    if (byId) return { branch: branch(byId, 'main') }
    if (!url.pathname.endsWith('/branches')) return { operations: [], pagination: {} }
    searches.push(url)
    const index = Number(url.searchParams.get('cursor') ?? '0')
    const next = index + 1 < pages.length ? { next: String(index + 1) } : {}
    return { branches: pages[index], pagination: next }
  })
  return { serve, searches }
}

/** Gates branch `main` over `search` and expects the one branch named exactly so to be found. */
async function expectMainFound(search: ReturnType<typeof pagedSearch>) {
  const run = await runSimulated(
    simulatedWorld(),
    { project_id: PROJECT, branch_id: 'main' },
    { serve: search.serve }
  )
  expect(run.report.outcome).toBe('success')
  expect(run.lines).toContain('info: Gating branch main (br-the-main-000001)')
}

describe('the branch search ends where pagination.next does', () => {
  it('pages cut to 25 that carry next: the exact name on page 3 is found', async () => {
    const pages = [0, 1, 2].map((page) =>
      Array.from({ length: 25 }, (_, i) =>
        page === 2 && i === 24
          ? branch('br-the-main-000001', 'main')
          : branch(`br-main-x-${page}-${i}`, `main-x-${page}-${i}`)
      )
    )
    const search = pagedSearch(pages)
    await expectMainFound(search)
    expect(search.searches).toHaveLength(3)
  })

  it('the exact name at the end of a full page and the start of the next counts once', async () => {
    const main = branch('br-the-main-000001', 'main')
    const search = pagedSearch([
      [...Array.from({ length: 99 }, (_, i) => branch(`br-main-x-${i}`, `main-x-${i}`)), main],
      [main, branch('br-main-y-000001', 'main-y')]
    ])
    await expectMainFound(search)
  })

  it('the branch named exactly "main" on page 3 of the local server’s search is found', async () => {
    const setup = simulatedWorld()
    // 250 newer branches whose names contain "main": main itself, the oldest, comes last.
    for (let i = 0; i < 250; i++) {
      setup.world.addBranch(PROJECT, {
        id: `br-feature-${String(i).padStart(6, '0')}`,
        name: `main-feature-${i}`
      })
    }
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'main' })
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContain('info: Gating branch main (br-main-000001)')
    const searches = run.requests.filter((request) => request.route === 'branches')
    expect(searches.map((request) => [request.query.search, request.query.limit])).toEqual([
      ['main', '100'],
      ['main', '100'],
      ['main', '100']
    ])
    expect(searches[0].query.cursor).toBeUndefined()
    expect(searches[2].query.cursor).toBeDefined()
  })
})

describe('the operations list ends on a short page', () => {
  it('a server that caps pages at 25: an operation pushed off the first page is still waited on', async () => {
    const setup = simulatedWorld({ history: 24 })
    setup.world.operationsPageCap = 25
    // The running one, newest, among 24 finished: running in its first two answers (the first
    // page, then the later poll that reads on to it), finished from its third.
    const op = operationIn(setup.world, 'running', { reads: 2, then: 'finished' })
    // From the first read's second request on, 25 newer finished ones push it off the first page:
    // the poll after next sees a short page without it, so only a read by id can see it finish.
    setup.api.onRequest = () => {
      if (setup.api.requests.length !== 2) return
      for (let i = 0; i < 25; i++) operationIn(setup.world, 'finished')
    }
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    expect(run.requests.filter((request) => request.route === 'operation')).toHaveLength(1)
    expect(run.report.wait?.operations).toContainEqual(
      expect.objectContaining({ id: op.id, status: 'finished' })
    )
  })
})

describe('listing projects ends, whatever the cursors', () => {
  it('a cursor handed out before ends the walk with a warning', async () => {
    let page = 0
    const run = await runSimulated(
      simulatedWorld(),
      { list_projects: 'true' },
      {
        serve: scripted(() => ({
          projects: Array.from({ length: 400 }, (_, i) => ({ id: `p-${i}` })),
          pagination: { cursor: page++ % 2 === 0 ? 'a' : 'b' }
        }))
      }
    )
    expect(run.report.outcome).toBe('success')
    expect(run.report.listing?.projects).toHaveLength(400)
    expect(run.lines).toContainEqual(
      expect.stringContaining('warning: The API handed out a page cursor it had given before')
    )
    expect(page).toBe(3)
  })

  it('the number of pages is capped, with a warning', async () => {
    const setup = simulatedWorld({
      extraProjects: 50 * 400,
      limits: { perSecondPerRoute: Infinity }
    })
    const run = await runSimulated(setup, { list_projects: 'true', timeout: '2m' })
    expect(run.report.outcome).toBe('success')
    expect(run.requests).toHaveLength(50)
    expect(run.lines).toContainEqual(
      expect.stringContaining('warning: Listed the first 50 pages of projects only')
    )
    expect(run.report.listing?.projects).toHaveLength(20_000)
  })
})
