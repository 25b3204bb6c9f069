/** Ready-made worlds for the demo, the end-to-end tests and the benchmark. */
import type { OperationRecord } from './records.ts'
import { World } from './world.ts'

import { KEYS, MAIN_ENDPOINT, ORG, OTHER_ORG, OTHER_PROJECT, PROJECT } from './ids.ts'

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
    /**
     * How far the server's clock is ahead of `now` (negative: behind), in its timestamps and its
     * Date header: a runner whose clock is off by the opposite.
     */
    clockSkewMs?: number
  } = {}
): World {
  const base = options.now ?? Date.now
  const skew = options.clockSkewMs ?? 0
  const world = new World(() => base() + skew)
  world.addOrganization(ORG, 'Demo org')
  world.addOrganization(OTHER_ORG, 'Other team')
  addDemoKeys(world)
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

/** Every kind of key of spec 2.1, in the demo organization and the other one, plus a revoked one. */
function addDemoKeys(world: World): void {
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
}

/**
 * A preview branch whose compute cannot start, beside a change still applying on main: the
 * failure with one still in flight of the e2e suites, the demo's pictures and the README. The
 * timelines start when the gate first reads them.
 */
export function addFailingPreview(world: World, projectId = PROJECT) {
  const startOnFirstRead = true
  world.addBranch(projectId, { id: 'br-preview-pr-7', name: 'preview/pr-7' })
  const apply = world.addOperation(projectId, {
    action: 'apply_config',
    endpointId: MAIN_ENDPOINT,
    startOnFirstRead,
    timeline: [{ status: 'running' }]
  })
  const create = world.addOperation(projectId, {
    action: 'create_branch',
    branchId: 'br-preview-pr-7',
    startOnFirstRead,
    timeline: [{ status: 'running', ms: 1200 }, { status: 'finished' }]
  })
  const start = world.addOperation(projectId, {
    action: 'start_compute',
    branchId: 'br-preview-pr-7',
    endpointId: 'ep-preview-pr-7',
    error: 'compute failed to start: out of capacity',
    startOnFirstRead,
    timeline: [
      { status: 'scheduling', ms: 1200 },
      { status: 'failed', ms: 1000 },
      { status: 'error' }
    ]
  })
  return { apply, create, start }
}

/**
 * One operation of the project (PROJECT unless `projectId`), in `status` now; with `then`, in
 * `status` for its first `reads` reads (1 unless given) and in `then` from the next one on: the
 * "operation in status X" of most tests. apply_config on the main branch unless `fields` say
 * otherwise.
 */
export function operationIn(
  world: World,
  status: string,
  options: Partial<Omit<OperationRecord, 'timeline'>> & {
    then?: string
    reads?: number
    projectId?: string
  } = {}
): OperationRecord {
  const { then, reads, projectId = PROJECT, ...fields } = options
  const timeline =
    then === undefined ? [{ status }] : [{ status, reads: reads ?? 1 }, { status: then }]
  return world.addOperation(projectId, { action: 'apply_config', ...fields, timeline })
}

/**
 * The preview branch `id` (preview/pr-42) of the project: ready when the gate resolves it, then
 * `init` for two reads, then ready again, so that the gate polls on with nothing of it in flight.
 */
export function addBranchInitTwice(world: World, id: string) {
  return world.addBranch(PROJECT, {
    id,
    name: 'preview/pr-42',
    statesByRead: [
      { current: 'ready' },
      { current: 'init' },
      { current: 'init' },
      { current: 'ready' }
    ]
  })
}

/**
 * Names near a preview branch's, each an input error before a teardown, never gone: the branch
 * (its id and name) and what the error says after `has no branch named "<name>", `. The bundles
 * show two of each kind (e2e/teardown.test.ts); these run in process, in both front ends' words.
 */
export const NEAR_NAMES: { branch: { id: string; name: string }; name: string; why: string }[] = [
  {
    branch: { id: 'br-preview-pr-7', name: 'preview/pr-7' },
    name: 'preview-pr-7',
    why: 'but has preview/pr-7 (br-preview-pr-7): names are exact'
  },
  {
    branch: { id: 'br-preview-pr-7', name: 'preview/pr-7' },
    name: 'preview/pr-',
    why: 'and the name looks unfinished'
  },
  {
    branch: { id: 'br-preview-pr-7', name: 'preview/pr-7' },
    name: 'preview/pr-undefined',
    why: 'and the name looks unfinished (it holds "undefined", what a template writes for an empty value)'
  },
  ...['previews/pr-12', 'preview/12', 'preview/pr-012'].map((name) => ({
    branch: { id: 'br-preview-pr-7', name: 'preview/pr-12' },
    name,
    why: 'but has preview/pr-12 (br-preview-pr-7)'
  })),
  // The number 0 is a number: written with a leading zero, or beside a letter more.
  ...[
    ['br-preview-pr-0', 'preview/pr-00', 'preview/pr-0'],
    ['br-db-shard-0', 'db/shard-0', 'dbs/shard-0']
  ].map(([id, branchName, name]) => ({
    branch: { id, name: branchName },
    name,
    why: `but has ${branchName} (${id})`
  }))
]
