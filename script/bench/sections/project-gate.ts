/* The project gate: cost of the first and of each later poll, by history size and in-flight count. */
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import { polls, type Row, run, withServer } from '../common.ts'
import { PROJECT } from '../../../__tests__/support/neon/ids.ts'

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
