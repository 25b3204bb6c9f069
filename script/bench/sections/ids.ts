/*
 * Several ids: each read until it is final, never again; and 10 ids against an account allowed 6
 * requests per 5 s.
 */
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import { polls, type Row, run, withServer } from '../common.ts'
import { PROJECT } from '../../../__tests__/support/neon/ids.ts'

export async function ids(row: Row): Promise<void> {
  await readUntilFinal(row)
  await rateLimited(row)
}

async function readUntilFinal(row: Row): Promise<void> {
  const world = demoWorld()
  const ids = Array.from(
    { length: 10 },
    (_, i) =>
      world.addOperation(PROJECT, {
        action: 'start_compute',
        timeline: [{ status: 'running', ms: 500 + i * 400 }, { status: 'finished' }]
      }).id
  )
  const result = await withServer(world, {}, async (server) => {
    const outcome = await run(server, { operation_id: ids.join(','), interval: '1s' })
    return { outcome, groups: polls(server.requests) }
  })
  const perPoll = result.groups.map((group) => group.length)
  row(
    '10 operation ids finishing 0.5-4.1 s apart',
    `requests per poll ${perPoll.join(', ')} (${perPoll.reduce((a, b) => a + b, 0)} in all)`,
    `naive: ${10 * perPoll.length}`
  )
}

async function rateLimited(row: Row): Promise<void> {
  const world = demoWorld()
  const ids = Array.from(
    { length: 10 },
    () =>
      world.addOperation(PROJECT, {
        action: 'start_compute',
        timeline: [{ status: 'running', ms: 4000 }, { status: 'finished' }]
      }).id
  )
  const result = await withServer(
    world,
    { perMinute: 6, accountWindowMs: 5000 },
    async (server) => {
      const outcome = await run(server, {
        operation_id: ids.join(','),
        interval: '1s',
        timeout: '2m'
      })
      return { outcome, requests: server.requests }
    }
  )
  const limited = result.requests.filter((request) => request.status === 429).length
  const seconds = (result.outcome.durationMs / 1000).toFixed(1)
  row(
    '10 ids, server limit 6 requests / 5 s, Retry-After',
    `${result.requests.length} requests, ${limited} answered 429, ${seconds} s`,
    `outcome ${result.outcome.outputs.outcome}`
  )
}
