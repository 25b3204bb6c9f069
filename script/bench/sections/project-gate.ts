/* The project gate: cost of the first and of each later poll, by history size and in-flight count. */
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import { polls, type Row, run, withServer } from '../common.ts'
import { MAIN_BRANCH, PROJECT } from '../../../__tests__/support/neon/ids.ts'

const CASES: [history: number, everyMs: number, inFlight: number][] = [
  [100, 600_000, 1],
  [2000, 60_000, 1],
  [2000, 60_000, 20],
  [10_000, 10_000, 1]
]

export async function projectGate(row: Row): Promise<void> {
  for (const [history, everyMs, inFlight] of CASES) {
    const world = demoWorld({ history: 0 })
    world.addHistory(PROJECT, history, { everyMs, ageMs: 60_000 })
    for (let i = 0; i < inFlight; i++) {
      world.addOperation(PROJECT, {
        action: 'apply_config',
        createdAt: world.now() - i * 1000,
        timeline: [{ status: 'running', ms: 2500 + i * 20 }, { status: 'finished' }]
      })
    }
    const result = await withServer(world, {}, async (server) => {
      const outcome = await run(server, { interval: '1s' })
      return { outcome, groups: polls(server.requests) }
    })
    const later = result.groups.slice(1).map((group) => group.length)
    row(
      `gate: ${history} past operations (one every ${everyMs / 1000} s), ${inFlight} in flight`,
      `first poll ${result.groups[0].length} requests; later polls ${later.join(', ')} requests`,
      `outcome ${result.outcome.outputs.outcome}`
    )
  }
}

const DAY_MS = 86_400_000

/**
 * The branch gate on a project with 5,000 operations in the last day: a new preview branch, main
 * (created with the project, a day ago), and a branch 3 days old whose compute last ran 30 h ago,
 * each with one operation in flight. The first read goes back as far as the branch needs; later
 * polls read only what was listed since.
 */
export async function branchGate(row: Row): Promise<void> {
  const cases: [name: string, branchId: string, ageMs: number, computeLastMs?: number][] = [
    ['a preview branch 10 min old', 'br-preview-bench-1', 600_000],
    ['main (created a day ago)', MAIN_BRANCH, DAY_MS],
    [
      'a branch 3 days old, its compute last run 30 h ago',
      'br-old-bench-1',
      3 * DAY_MS,
      30 * 3_600_000
    ]
  ]
  for (const [name, branchId, ageMs, computeLastMs] of cases) {
    const world = demoWorld({ history: 0 })
    world.addHistory(PROJECT, 5000, { everyMs: DAY_MS / 5000, ageMs: 60_000 })
    if (branchId !== MAIN_BRANCH) {
      world.addBranch(PROJECT, { id: branchId, createdAt: world.now() - ageMs })
      world.addOperation(PROJECT, {
        action: 'start_compute',
        branchId,
        endpointId: `ep-${branchId.slice(3)}`,
        createdAt: world.now() - (computeLastMs ?? ageMs - 1000),
        timeline: [{ status: 'running', ms: 2000 }, { status: 'finished' }]
      })
    }
    world.addOperation(PROJECT, {
      action: 'apply_config',
      branchId,
      createdAt: world.now() - 1000,
      timeline: [{ status: 'running', ms: 3500 }, { status: 'finished' }]
    })
    const result = await withServer(world, {}, async (server) => {
      const outcome = await run(server, { interval: '1s', branch_id: branchId })
      return { outcome, groups: polls(server.requests) }
    })
    const later = result.groups.slice(1).map((group) => group.length)
    row(
      `branch gate, 5,000 operations in the last day: ${name}`,
      `first poll ${result.groups[0].length} requests; later polls ${later.join(', ')} requests`,
      `outcome ${result.outcome.outputs.outcome}`
    )
  }
}
