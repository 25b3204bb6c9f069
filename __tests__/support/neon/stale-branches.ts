/** Worlds of stale preview branches, for the sweep: its end-to-end tests, its recipes, the demo. */
import type { BranchRecord } from './records.ts'
import type { World } from './world.ts'
import { PROJECT } from './ids.ts'

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
 * More branches than the sweep reads (50 pages of 100), each updated a day ago, named `name`-0 to
 * -4999 (none a preview unless `name` says so), their ids br-<the name's last part>-0 and on:
 * after addStalePreviews' or any older branches (read first, the least recently updated), the
 * branch list stops at its page cap short of its end, and the sweep's `cut` is true.
 */
export function addBusyBranches(world: World, name = 'feature/busy') {
  const idPart = name.split('/').at(-1)
  for (let i = 0; i < 5000; i++) {
    world.addBranch(PROJECT, {
      id: `br-${idPart}-${i}`,
      name: `${name}-${i}`,
      createdAt: world.now() - 2 * DAY_MS,
      updatedAt: world.now() - DAY_MS
    })
  }
}
