/* A server that holds the request open: the process must still end at the deadline. */
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import { type Row, run, withServer } from '../common.ts'
import { PROJECT } from '../../../__tests__/support/neon/ids.ts'

export async function silent(row: Row): Promise<void> {
  const world = demoWorld()
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    timeline: [{ status: 'running' }]
  })
  const result = await withServer(world, {}, async (server) => {
    server.addFault({ kind: 'slow', delayMs: 20_000 })
    return run(server, { operation_id: op.id, timeout: '3s' })
  })
  row(
    'server silent for 20 s, timeout 3s',
    `process exits after ${(result.durationMs / 1000).toFixed(2)} s`,
    `outcome ${result.outputs.outcome}`
  )
}
