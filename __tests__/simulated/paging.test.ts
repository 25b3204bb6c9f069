/*
 * Where each list ends, in process on simulated time: the branch search follows `pagination.next`
 * whatever a page's length (a server may cap `limit`) and counts a branch repeated at a page
 * boundary once; the project gate keeps waiting on an operation a capped page no longer shows; a
 * listing of projects ends at a repeated cursor or its page cap. Two of the project gate's cases
 * are shown over the bundle too (e2e/paging.test.ts). All over the local API server (its page
 * caps, an altered answer), but for one scripted search: a branch repeated at a page boundary is
 * what a server paging by offset sends, and the local server pages by cursor, so it cannot.
 */
import { describe, expect, it } from '@jest/globals'
import { ok, runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { type ListStop, stoppedList } from '../support/neon/faults.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

/**
 * The one answer the local API server cannot give honestly, scripted: a branch search that pages
 * by offset, so that a branch created between two pages pushes the last of one to the top of the
 * next. The local server pages by cursor (the last branch's id) and never repeats a branch.
 */
function offsetPagedSearch(pages: { id: string; name: string }[][]) {
  return (request: { url: string }) => {
    const url = new URL(request.url, 'http://127.0.0.1')
    const byId = /\/branches\/([^/?]+)/.exec(url.pathname)?.[1]
    const branch = (id: string, name: string) => ({
      id,
      name,
      project_id: PROJECT,
      current_state: 'ready'
    })
    if (url.pathname.endsWith('/endpoints')) return ok({ endpoints: [] })
    if (byId) return ok({ branch: branch(byId, 'main') })
    if (!url.pathname.endsWith('/branches')) return ok({ operations: [], pagination: {} })
    const index = Number(url.searchParams.get('cursor') ?? '0')
    const next = index + 1 < pages.length ? { next: String(index + 1) } : {}
    return ok({
      branches: pages[index].map(({ id, name }) => branch(id, name)),
      pagination: next
    })
  }
}

describe('the branch search ends where pagination.next does', () => {
  it.each([
    { pages: 'pages of 100', newer: 250, pageCap: Infinity },
    { pages: 'pages cut to 25 whatever limit asks, that carry next', newer: 74, pageCap: 25 }
  ])(
    '$pages: the branch named exactly "main", the oldest, on page 3 of the search is found',
    async ({ newer, pageCap }) => {
      const setup = simulatedWorld()
      setup.world.branchesPageCap = pageCap
      // Newer branches whose names contain "main": main itself, the oldest, comes last.
      for (let i = 0; i < newer; i++) {
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
    }
  )

  it('the exact name at the end of a full page and the start of the next counts once', async () => {
    const main = { id: 'br-the-main-000001', name: 'main' }
    const others = Array.from({ length: 99 }, (_, i) => ({
      id: `br-main-x-${i}`,
      name: `main-x-${i}`
    }))
    const run = await runSimulated(
      simulatedWorld(),
      { project_id: PROJECT, branch_id: 'main' },
      {
        serve: offsetPagedSearch([
          [...others, main],
          [main, { id: 'br-main-y-000001', name: 'main-y' }]
        ])
      }
    )
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContain('info: Gating branch main (br-the-main-000001)')
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

describe('the operations list stopped by the API, not at its end', () => {
  const BRANCH = 'br-paging-000001'
  const MINUTE = 60_000
  /**
   * A busy project (510 newer operations of another branch, past a page of 500, `everyMs` apart)
   * and, on page 2, a start of the gated branch's compute that ended in error; the compute has been
   * idle since.
   */
  function failedStartPastThePage(everyMs = 3 * MINUTE) {
    const setup = simulatedWorld({ history: 510, historyEveryMs: everyMs })
    const oldest = setup.world.now() - 520 * everyMs
    setup.world.addBranch(PROJECT, { id: BRANCH, name: 'preview/pr-42', createdAt: oldest - 2 })
    const failed = setup.world.addOperation(PROJECT, {
      action: 'start_compute',
      branchId: BRANCH,
      endpointId: 'ep-preview-000001',
      createdAt: oldest,
      error: 'out of capacity',
      timeline: [{ status: 'error' }]
    })
    return { setup, failed }
  }

  it.each<[string, ListStop, string]>([
    ['a page without a cursor', 'no cursor', 'a page without a cursor to read on from'],
    [
      'a page that gives no pagination at all',
      'no pagination',
      'a page without a cursor to read on from'
    ],
    ['a cursor handed out twice', 'first cursor again', 'a page cursor handed out twice']
  ])(
    '%s before the branch’s history: an error, never a pass over the unread error',
    async (_, how, stop) => {
      const { setup } = failedStartPastThePage()
      setup.api.addFault(stoppedList({ answer: how === 'first cursor again' ? 2 : 1, how }))
      const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
      expect(run.report.outcome).toBe('error')
      expect(run.report.error).toMatch(
        /^Unexpected response from GET \/projects\/[^/]+\/operations: the branch gate read \d+ operations, back to .+, and stopped there \(/
      )
      expect(run.report.error).toContain(`(${stop}), short of the branch's creation (created `)
      expect(run.report.error).toContain('its older history cannot be judged')
    }
  )

  it('with every cursor: the error on page 2 fails the gate', async () => {
    const { setup, failed } = failedStartPastThePage()
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations).toContainEqual(
      expect.objectContaining({ id: failed.id, status: 'error' })
    )
  })

  it('on the whole project, within its 24 h: a warning, and its state stands for what lies past the page', async () => {
    const { setup } = failedStartPastThePage(MINUTE)
    setup.api.addFault(stoppedList({ answer: 1, how: 'no cursor' }))
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContain(
      "warning: Project gate: the API's list of operations stopped at a page without a cursor to read on from; the project's computes and branches stand for what lies past it"
    )
    expect(run.requests.map((request) => request.route)).toContain('project-computes')
  })
})

describe('listing projects ends, whatever the cursors', () => {
  it('a cursor handed out before ends the walk with a warning', async () => {
    const setup = simulatedWorld({ extraProjects: 3 * 400 })
    // A server that lost the cursor: its third answer is its first again, cursor and all.
    const answers: unknown[] = []
    setup.api.addFault({
      kind: 'altered',
      route: 'projects',
      alter: (body) => (answers.push(body) === 3 ? answers[0] : body)
    })
    const run = await runSimulated(setup, { list_projects: 'true' })
    expect(run.report.outcome).toBe('success')
    // Two pages' worth: the first page, read twice, counts once.
    expect(run.report.listing?.projects).toHaveLength(800)
    expect(run.lines).toContainEqual(
      expect.stringContaining('warning: The API handed out a page cursor it had given before')
    )
    expect(run.requests).toHaveLength(3)
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

describe('a branch name not found costs at most the page cap in all', () => {
  it('the search and the whole list share 50 pages; the warning speaks of the name, not of children', async () => {
    const setup = simulatedWorld()
    for (let i = 0; i < 6000; i++) {
      setup.world.addBranch(PROJECT, { id: `br-other-${String(i).padStart(6, '0')}` })
    }
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'preview/pr-404' })
    expect(run.report.outcome).toBe('error')
    // Not "no such branch": the rest of the list was not read (before a delete, that read gone).
    expect(run.report.error).toContain(
      `no branch named "preview/pr-404" among the 4900 branches of project "${PROJECT}" read before the list stopped (49 pages); the others were not read`
    )
    const lists = run.requests.filter((request) => request.route === 'branches')
    // Pages read (a 429 of the server's 40 a second per route, retried, is not one).
    const read = lists.filter((request) => request.status === 200)
    expect(read).toHaveLength(50)
    expect(read.filter((request) => request.query.search !== undefined)).toHaveLength(1)
    expect(run.lines).toContain(
      `warning: Read 4900 branches of project "${PROJECT}" and stopped there (49 pages): a branch named "preview/pr-404" among the others is not seen`
    )
    expect(run.lines.join('\n')).not.toContain('child')
  })
})
