/*
 * The project gate and the listings, in process over the local API server on simulated time: which
 * pages each poll reads, the operations it keeps, one branch's gate, the organizations of a
 * personal key. What the step shows of them over real HTTP is e2e/gate.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { addBranchInitTwice, operationIn } from '../support/neon/scenarios.js'

describe('the project gate', () => {
  it('waits for everything in flight behind a long history, one request per later poll', async () => {
    const setup = simulatedWorld({ history: 700, historyEveryMs: 60_000 })
    const [create, start] = setup.world.createBranch(PROJECT, { byReads: true })
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([
      start.id,
      create.id
    ])
    // History: one operation a minute, all 702 within the 24 h the first poll looks back: two
    // pages of 500 and the empty one after them. Every later poll reads one page of 100 from the top;
    // the last, its operations final, the project's computes and branches once (an operation tied
    // with a page's last one is listed on neither page: the state stands for it).
    expect(run.requests.map((request) => [request.route, request.query])).toEqual([
      ['operations', { limit: '500' }],
      ['operations', { limit: '500', cursor: expect.any(String) }],
      ['operations', { limit: '500', cursor: expect.any(String) }],
      ['operations', { limit: '100' }],
      ['operations', { limit: '100' }],
      ['operations', { limit: '100' }],
      ['project-computes', {}],
      ['branches', { limit: '100' }]
    ])
    // Discovery is the first read of both, and start_compute is final on its fourth.
    expect(run.report.wait?.polls).toBe(4)
  })

  it('with branch_id only that branch counts; the branch is read before the first poll and after the last', async () => {
    const setup = simulatedWorld()
    operationIn(setup.world, 'running', { branchId: 'br-other' })
    const [create] = setup.world.createBranch(PROJECT, { branchId: 'br-mine', byReads: true })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'br-mine' })
    expect(run.report.outcome).toBe('success')
    expect(run.report.wait?.operations).toHaveLength(2)
    expect(run.report.wait?.operations.every((op) => op.branch_id === create.branchId)).toBe(true)
    expect(run.report.branch).toMatchObject({ id: 'br-mine', name: 'preview/br-mine' })
    expect(run.requests[0].route).toBe('branch')
    expect(run.requests.at(-1)?.route).toBe('branch')
    expect(run.report.wait?.polls).toBe(4)
  })
})

describe('each later poll reads back to what the previous one had seen', () => {
  const BRANCH = 'br-preview-000042'

  /**
   * A branch that reads `init` twice after its resolution, so the gate polls on; 2.5 s after the
   * gate's start (between its first two polls) a start_compute of the branch begins, running for
   * `runningMs` and then `then`, and then `burst` operations on other branches. The branch's gate
   * run on that, and the start_compute.
   */
  async function gateUnderBurst(runningMs: number, then: string, burst: number) {
    const setup = simulatedWorld({ history: 50, historyEveryMs: 60_000 })
    addBranchInitTwice(setup.world, BRANCH)
    let start: { id: string } | undefined
    setup.time.at(2500, () => {
      const now = setup.world.now()
      start = setup.world.addOperation(PROJECT, {
        action: 'start_compute',
        branchId: BRANCH,
        endpointId: 'ep-preview-000042',
        createdAt: now,
        error: 'out of capacity',
        timeline: [{ status: 'running', ms: runningMs }, { status: then }]
      })
      for (let i = 1; i <= burst; i++) {
        operationIn(setup.world, 'finished', { branchId: `br-other-${i % 7}`, createdAt: now + i })
      }
    })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    return { run, start: start! }
  }

  const listReads = (
    run: { requests: { route?: string; t: number }[] },
    from: number,
    to: number
  ) => run.requests.filter((r) => r.route === 'operations' && r.t >= from && r.t < to).length

  it('a start_compute that ends in error under a burst of 150 on other branches fails the gate', async () => {
    const { run, start } = await gateUnderBurst(1000, 'error', 150)
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([start.id])
    expect(run.report.wait?.polls).toBe(2)
    // The second poll read two pages of 100: the second got back to what the first had seen.
    expect(listReads(run, 5000, 6000)).toBe(2)
  })

  it('one still running under the burst is waited on until it finishes', async () => {
    const { run, start } = await gateUnderBurst(20_000, 'finished', 150)
    expect(run.report.outcome).toBe('success')
    expect(run.report.wait?.operations).toEqual([
      expect.objectContaining({ id: start.id, status: 'finished' })
    ])
    // It finished 22.5 s after the gate's start: the poll at 25 s saw it.
    expect(run.endedAt).toBeGreaterThanOrEqual(25_000)
  })

  it('a burst past the page cap: a warning, no pass; the next poll reads on and finds the operation', async () => {
    const { run, start } = await gateUnderBurst(1000, 'error', 1050)
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([start.id])
    expect(run.lines).toContain(
      'warning: Project gate: read 1000 operations listed since the previous poll in 10 pages, stopped at the page cap short of those it had seen; the next poll reads on, and the gate cannot pass till then'
    )
    // Poll 2 stopped at its cap of 10 pages; poll 3 read the top page (nothing new), then on.
    expect(listReads(run, 5000, 6000)).toBe(10)
    expect(listReads(run, 10_000, 11_000)).toBe(2)
    expect(run.report.wait?.polls).toBe(3)
  })
})

describe('listings', () => {
  it('a personal key in several organizations lists with org_id; without it, an input error', async () => {
    const setup = simulatedWorld({ history: 0 })
    const without = await runSimulated(setup, { api_key: KEYS.multiOrg, list_projects: 'true' })
    expect(without.report.outcome).toBe('error')
    expect(without.report.error).toContain('input "org_id": required, because')
    const withOrg = await runSimulated(setup, {
      api_key: KEYS.multiOrg,
      list_projects: 'true',
      org_id: 'org-other-000002'
    })
    expect(withOrg.report.outcome).toBe('success')
    expect(withOrg.report.listing?.projects.map((project) => project.id)).toEqual([
      'other-project-000002'
    ])
  })
})
