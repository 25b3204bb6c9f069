/* Latency: from the moment the operation is final to the action's exit, at interval 1 s and 5 s. */
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import { type Row, run, withServer } from '../common.ts'
import { PROJECT } from '../../../__tests__/support/neon/ids.ts'

export async function latency(row: Row): Promise<void> {
  for (const interval of ['1s', '5s']) {
    const world = demoWorld()
    const op = world.addOperation(PROJECT, {
      action: 'create_branch',
      timeline: [{ status: 'running', ms: 2300 }, { status: 'finished' }]
    })
    const result = await withServer(world, {}, async (server) => {
      const started = Date.now()
      const outcome = await run(server, { operation_id: op.id, interval })
      return {
        outcome,
        requests: server.requests.length,
        late: started + outcome.durationMs - (op.createdAt + 2300)
      }
    })
    row(
      `final → exit, interval ${interval}`,
      `${result.late} ms after the operation was final`,
      `${result.requests} requests`
    )
  }
}
