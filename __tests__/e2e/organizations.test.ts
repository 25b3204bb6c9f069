/*
 * Personal keys and their organizations, over the real bundle against the local API server: one
 * organization is listed and named in the log; several are an input error naming `org_id`.
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { KEYS, ORG } from '../support/neon/ids.js'

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
      '::error::input "org_id": required, because the key belongs to 3 organizations: org-demo-000001 ("Demo org"), org-other-000002 ("Other team"), org-third-000003 ("Third <b>team</b>\\n::warning::x"); set org_id to one of them'
    )
    expect(run.summary).toContain('Third &lt;b&gt;team&lt;/b&gt;')
    expect(run.stdout).not.toMatch(/^::warning::x/m)
  })
})
