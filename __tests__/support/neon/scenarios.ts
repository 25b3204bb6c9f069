/** Ready-made worlds for the demo, the end-to-end tests and the benchmark. */
import type { BranchRecord, OperationRecord } from './records.ts'
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

const DAY_MS = 86_400_000

/**
 * Preview branches a teardown missed, beside those still in use (issue 69's sweep), in the project
 * (PROJECT unless given), on the world's clock: with `sweep: preview/pr-{pr}` and `older_than: 7d`,
 * pr-3 (quiet 30 days), pr-4 (9 days, with a child: blocked) and pr-6 (8 days, its deletes
 * restricted) are stale by age; pr-5 is quiet 20 days but its compute was active yesterday; pr-8
 * changed 2 days ago; pr-9 is protected and pr-10 a root branch, never stale however old. The pull
 * requests' states are GitHub's to give (pr-8: closed, in the demo).
 */
export function addStalePreviews(world: World, projectId = PROJECT) {
  const ago = (days: number) => world.now() - days * DAY_MS
  const preview = (pr: number, days: number, fields: Partial<BranchRecord> = {}) =>
    world.addBranch(projectId, {
      id: `br-preview-pr-${pr}`,
      name: `preview/pr-${pr}`,
      createdAt: ago(days + 1),
      updatedAt: ago(days),
      ...fields
    })
  const branches = [
    preview(3, 30),
    preview(4, 9),
    world.addBranch(projectId, {
      id: 'br-preview-pr-4-debug',
      name: 'debug/pr-4',
      parentId: 'br-preview-pr-4',
      createdAt: ago(2),
      updatedAt: ago(2)
    }),
    preview(5, 20),
    preview(6, 8, {
      restrictedActions: [{ name: 'delete-rw-endpoint', reason: 'used by a demo' }]
    }),
    preview(8, 2),
    preview(9, 60, { protected: true }),
    preview(10, 90, { parentId: null })
  ]
  world.addCompute(projectId, {
    id: 'ep-preview-pr-5',
    branchId: 'br-preview-pr-5',
    lastActive: ago(1)
  })
  world.addCompute(projectId, {
    id: 'ep-preview-pr-3',
    branchId: 'br-preview-pr-3',
    lastActive: ago(25)
  })
  return branches
}

/**
 * Beside addStalePreviews': two stale previews more that nothing blocks, quieter still. One is
 * preview/pr-2 (br-preview-pr-2, 40 days). The other is preview/pr-1, whose id, br-legacy-1, Neon's
 * CLI would read as a branch name: neonctl takes `br-` and three parts of a-z and 0-9 as an id
 * (looksLikeBranchId, src/utils/formats.ts). And a branch named br-legacy-1, active yesterday and
 * no preview, which a delete of that "name" would reach instead.
 */
export function addStaleBeyondTheCli(world: World, projectId = PROJECT) {
  const ago = (days: number) => world.now() - days * DAY_MS
  world.addBranch(projectId, {
    id: 'br-preview-pr-2',
    name: 'preview/pr-2',
    createdAt: ago(41),
    updatedAt: ago(40)
  })
  world.addBranch(projectId, {
    id: 'br-legacy-1',
    name: 'preview/pr-1',
    createdAt: ago(51),
    updatedAt: ago(50)
  })
  world.addBranch(projectId, {
    id: 'br-named-like-an-id',
    name: 'br-legacy-1',
    createdAt: ago(3),
    updatedAt: ago(1)
  })
}

/**
 * More branches than the sweep reads (50 pages of 100), none a preview, each updated a day ago:
 * after addStalePreviews' (read first, the least recently updated), the branch list stops at its
 * page cap short of its end, and the sweep's `cut` is true.
 */
export function addBusyBranches(world: World, projectId = PROJECT) {
  for (let i = 0; i < 5000; i++) {
    world.addBranch(projectId, {
      id: `br-busy-${i}`,
      name: `feature/busy-${i}`,
      createdAt: world.now() - 2 * DAY_MS,
      updatedAt: world.now() - DAY_MS
    })
  }
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
  }))
]
