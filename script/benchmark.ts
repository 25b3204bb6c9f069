/*
 * npm run benchmark: request counts and timings of the real bundle against the local API server.
 * Figures go into README.md ("Benchmarks"); nothing here is asserted, the machines are noisy.
 */
import {
  type ApiServer,
  type Limits,
  type RequestRecord,
  startApiServer
} from './api-server/server.ts'
import { demoWorld, KEYS, PROJECT } from './api-server/scenarios.ts'
import type { World } from './api-server/world.ts'
import { runBundle } from './run-bundle.ts'

async function withServer<T>(
  world: World,
  limits: Partial<Limits>,
  body: (server: ApiServer) => Promise<T>
): Promise<T> {
  const server = await startApiServer(world, { limits })
  try {
    return await body(server)
  } finally {
    await server.close()
  }
}

function run(server: ApiServer, inputs: Record<string, string>) {
  return runBundle({
    api_key: KEYS.organization,
    project_id: PROJECT,
    api_host: server.apiHost,
    ...inputs
  })
}

/** Splits the request log into polls: requests less than 500 ms after the previous one belong together. */
function polls(requests: RequestRecord[]): RequestRecord[][] {
  const groups: RequestRecord[][] = []
  for (const request of requests) {
    const last = groups.at(-1)
    if (last && request.at - last[last.length - 1].at < 500) last.push(request)
    else groups.push([request])
  }
  return groups
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const rows: string[][] = []
const row = (...cells: (string | number)[]) => {
  rows.push(cells.map(String))
  console.error(cells.join(' | '))
}

// 1. Start-up: one read of a finished operation, wait: false.
{
  const world = demoWorld()
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    timeline: [{ status: 'finished' }]
  })
  const times = await withServer(world, {}, async (server) => {
    const durations: number[] = []
    for (let i = 0; i < 7; i++)
      durations.push((await run(server, { operation_id: op.id, wait: 'false' })).durationMs)
    return durations
  })
  row(
    'start-up: node dist/index.js, one read, exit',
    `median ${median(times)} ms of 7 runs`,
    '1 request'
  )
}

// 2. Latency: from the moment the operation is final to the action's exit.
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

// 3. The project gate: cost of the first and of each later poll, by history size and in-flight count.
for (const [history, everyMs, inFlight] of [
  [100, 600_000, 1],
  [2000, 60_000, 1],
  [2000, 60_000, 20],
  [10_000, 10_000, 1]
] as const) {
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

// 4. Several ids: each read until it is final, never again.
{
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

// 5. Rate limits: 10 ids against an account allowed 6 requests per 5 s.
{
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

// 6. A server that holds the request open: the process must still end at the deadline.
{
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

console.log('| scenario | measured | requests / result |')
console.log('|---|---|---|')
for (const cells of rows) console.log(`| ${cells.join(' | ')} |`)
