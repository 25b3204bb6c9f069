/** Ready-made worlds for the demo, the end-to-end tests and the benchmark. */
import { World } from './world.ts'

export const ORG = 'org-demo-000001'
export const OTHER_ORG = 'org-other-000002'
export const PROJECT = 'demo-project-000001'
export const OTHER_PROJECT = 'other-project-000002'

/** Demo keys: not secrets, they only open this local server. */
export const KEYS = {
  personal: 'napi_local_personal_5f0c2d9a7e61',
  organization: 'napi_local_organization_83b1e4c7',
  project: 'napi_local_project_scoped_2a9d61f0',
  otherProject: 'napi_local_other_project_9c4e7b12',
  multiOrg: 'napi_local_multi_org_6d2f8a35c0e4',
  revoked: 'napi_local_revoked_0e7c4b9f2d18'
} as const

/**
 * Two organizations; the demo one holds PROJECT (with `history` finished operations of the past, one
 * every `historyEveryMs`, default 10 min) and
 * `extraProjects` more projects; every kind of key of spec 2.1, plus a revoked one.
 */
export function demoWorld(
  options: {
    history?: number
    historyEveryMs?: number
    extraProjects?: number
    now?: () => number
  } = {}
): World {
  const world = new World(options.now)
  world.addKey({ token: KEYS.personal, type: 'personal', accountId: 'user-1', orgIds: [ORG] })
  world.addKey({ token: KEYS.organization, type: 'organization', accountId: ORG, orgIds: [ORG] })
  world.addKey({
    token: KEYS.project,
    type: 'project',
    accountId: ORG,
    orgIds: [ORG],
    projectId: PROJECT
  })
  world.addKey({
    token: KEYS.otherProject,
    type: 'project',
    accountId: OTHER_ORG,
    orgIds: [OTHER_ORG],
    projectId: OTHER_PROJECT
  })
  world.addKey({
    token: KEYS.multiOrg,
    type: 'personal',
    accountId: 'user-2',
    orgIds: [ORG, OTHER_ORG]
  })
  world.addKey({
    token: KEYS.revoked,
    type: 'personal',
    accountId: 'user-1',
    orgIds: [ORG],
    revoked: true
  })
  world.addProject({
    id: PROJECT,
    name: 'Demo app',
    orgId: ORG,
    regionId: 'aws-eu-central-1',
    pgVersion: 17
  })
  world.addProject({ id: OTHER_PROJECT, name: 'Other team', orgId: OTHER_ORG, pgVersion: 16 })
  for (let i = 1; i <= (options.extraProjects ?? 2); i++) {
    world.addProject({
      id: `extra-project-${String(i).padStart(6, '0')}`,
      name: `Extra ${i}`,
      orgId: ORG,
      pgVersion: 15 + (i % 3)
    })
  }
  world.addHistory(PROJECT, options.history ?? 40, { everyMs: options.historyEveryMs })
  return world
}
