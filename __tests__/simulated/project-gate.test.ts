/*
 * The project gate and the listings, in process over the local API server on simulated time: which
 * pages each poll reads, the operations it keeps, one branch's gate, the organizations of a
 * personal key. What the step shows of them over real HTTP is e2e/gate.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { KEYS } from '../../script/servers/neon-api/scenarios.ts'
import { PROJECT, runSimulated, simulatedWorld } from '../fixtures/simulated-gate.js'

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
    // pages of 500 and the empty one after them. Every later poll reads one page of 100 from the top.
    expect(run.requests.map((request) => request.query)).toEqual([
      { limit: '500' },
      { limit: '500', cursor: expect.any(String) },
      { limit: '500', cursor: expect.any(String) },
      { limit: '100' },
      { limit: '100' },
      { limit: '100' }
    ])
    // Discovery is the first read of both, and start_compute is final on its fourth.
    expect(run.report.wait?.polls).toBe(4)
  })

  it('with branch_id only that branch counts; the branch is read before the first poll and after the last', async () => {
    const setup = simulatedWorld()
    setup.world.addOperation(PROJECT, {
      action: 'apply_config',
      branchId: 'br-other',
      timeline: [{ status: 'running' }]
    })
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

describe('listings', () => {
  it('a personal key in several organizations lists with org_id; without it, an input error', async () => {
    const setup = simulatedWorld({ history: 0 })
    const without = await runSimulated(setup, { api_key: KEYS.multiOrg, list_projects: 'true' })
    expect(without.report.outcome).toBe('error')
    expect(without.report.error).toContain('org_id is required')
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
