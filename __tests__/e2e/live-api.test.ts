/*
 * Where the live API has moved from the first specification, over the bundle: branch searches that
 * are paged, personal keys that must name their organization, and branches that exist before they
 * can be queried.
 */
import { describe, expect, it } from '@jest/globals'
import { PROJECT, runAction, serve } from '../fixtures/e2e.js'
import { KEYS, ORG } from '../../script/api-server/scenarios.ts'

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

describe('personal keys find their organization', () => {
  it('in one organization: listed, and the log says which', async () => {
    const { server } = await serve()
    const run = await runAction(server, { api_key: KEYS.personal, list_projects: 'true' })
    expect(run.code).toBe(0)
    expect(run.outputs.project_count).toBe('3')
    expect(run.stdout).toContain(
      `A personal key must name its organization: listing the projects of its only one, Demo org (${ORG})`
    )
    expect(
      server.requests.map((request) => [request.route, request.status, request.query.org_id])
    ).toEqual([
      ['projects', 400, undefined],
      ['organizations', 200, undefined],
      ['projects', 200, ORG]
    ])
  })

  it('in three: an input error naming org_id, listing them (id and name, escaped)', async () => {
    const { world, server } = await serve()
    world.addOrganization('org-third-000003', 'Third <b>team</b>\n::warning::x')
    const key = 'napi_local_three_orgs_4b7e1a9c'
    world.addKey({
      token: key,
      type: 'personal',
      accountId: 'user-3',
      orgIds: [ORG, 'org-other-000002', 'org-third-000003']
    })
    const run = await runAction(server, { api_key: key, list_projects: 'true' })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      '::error::input "org_id": org_id is required, because the key belongs to 3 organizations: org-demo-000001 ("Demo org"), org-other-000002 ("Other team"), org-third-000003 ("Third <b>team</b>\\n::warning::x"); set org_id to one of them'
    )
    expect(run.summary).toContain('Third &lt;b&gt;team&lt;/b&gt;')
    expect(run.stdout).not.toMatch(/^::warning::x/m)
  })
})

describe('the branch must be ready, not just created', () => {
  it('a branch that stays init for 3 polls, then is ready: the gate waits, then passes', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, {
      id: 'br-preview-pr-31',
      name: 'preview/pr-31',
      state: { current: 'init' },
      statesByRead: [
        { current: 'init' },
        { current: 'init' },
        { current: 'init' },
        { current: 'ready' }
      ]
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'preview/pr-31' })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.branch_state).toBe('ready')
    expect(run.stdout).toContain('Branch preview/pr-31 (br-preview-pr-31) is init')
    expect(run.stdout).toContain('Branch preview/pr-31 (br-preview-pr-31) is ready')
    // Each poll reads the newest operations (one may have started meanwhile) and then the branch;
    // the search that resolved the name is the ninth request.
    expect(server.requests.filter((request) => request.route === 'branch')).toHaveLength(4)
    expect(server.requests.filter((request) => request.route === 'operations')).toHaveLength(4)
    expect(run.summary).toContain(' · 4 polls · 9 requests · ')
    expect(run.summary).toContain('branch state <code>ready</code>')
  })

  it('resetting: waits until it is ready again', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, {
      id: 'br-staging-000007',
      name: 'staging',
      // Resolving the id reads it once, then each poll.
      statesByRead: [{ current: 'resetting' }, { current: 'resetting' }, { current: 'ready' }]
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'br-staging-000007' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Branch staging (br-staging-000007) is resetting')
    expect(run.outputs.branch_state).toBe('ready')
  })

  it('archived: passes, with a warning that the first queries will be slow', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-old-000009', name: 'old', state: { current: 'archived' } })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'old' })
    expect(run.code).toBe(0)
    expect(run.outputs.branch_state).toBe('archived')
    expect(run.stdout).toContain(
      '::warning::Branch old (br-old-000009) is archived: its first queries will be slow'
    )
  })

  it('timeout while the branch is still init: the outcome, the error line and the first line say so', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-slow-000011', name: 'slow', state: { current: 'init' } })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'slow', timeout: '2s' })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.outputs.branch_state).toBe('init')
    expect(run.stdout).toContain('::error::timeout ran out while branch slow is still init')
    expect(run.summary).toMatch(
      /<p><b>⌛ timeout<\/b> after [\d.]+ s: branch <code>slow<\/code> is still <code>init<\/code><\/p>/
    )
  })

  it('without branch_id, no branch is read', async () => {
    const { server } = await serve()
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(0)
    expect(run.outputs.branch_state).toBeUndefined()
    expect(server.requests.some((request) => request.route?.startsWith('branch'))).toBe(false)
  })
})
