/*
 * npm run benchmark: request counts and timings of the real bundle against the local API server.
 * Figures go into README.md ("Benchmarks"); nothing here is asserted, the machines are noisy.
 */
import {
  type ApiServer,
  type Fault,
  type Limits,
  type RequestRecord,
  startApiServer
} from '../servers/neon-api/server.ts'
import { demoWorld, KEYS, PROJECT } from '../servers/neon-api/scenarios.ts'
import type { World } from '../servers/neon-api/world.ts'
import { execFile } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { BUNDLE, runBundle } from '../runner/run-bundle.ts'
import { firstRetryFloor } from './first-retry-floor.ts'
import { connect, createServer } from 'node:net'
import pg from 'pg'
import { startPostgres } from '../servers/postgres.ts'

const DIST = join(BUNDLE, '..')

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
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]

/** `npm run benchmark -- storm fleet` runs only those sections; no argument runs them all. */
const chosen = process.argv.slice(2)
const wanted = (section: string) => chosen.length === 0 || chosen.includes(section)
const rows: string[][] = []
const row = (...cells: (string | number)[]) => {
  rows.push(cells.map(String))
  console.error(`measured: ${cells[0]}`)
}

// 1. Start-up: one read of a finished operation, wait: false.
if (wanted('startup')) {
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

// 1b. Lean: from spawn to the server receiving the first request, the bundle against bare node
// sending the same GET; and the size of the bundle and of the chunk that holds Octokit.
if (wanted('startup')) {
  const world = demoWorld()
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    timeline: [{ status: 'finished' }]
  })
  const { bundle, bare } = await withServer(world, {}, async (server) => {
    const firstRequestAfter = async (start: () => Promise<unknown>) => {
      const before = server.requests.length
      const spawnedAt = Date.now()
      await start()
      return server.requests[before].at - spawnedAt
    }
    const url = `${server.apiHost}/projects/${PROJECT}/operations/${op.id}`
    const bundle: number[] = []
    const bare: number[] = []
    for (let i = 0; i < 15; i++) {
      bundle.push(
        await firstRequestAfter(() => run(server, { operation_id: op.id, wait: 'false' }))
      )
      bare.push(
        await firstRequestAfter(
          () =>
            new Promise((resolve) =>
              execFile(
                process.execPath,
                ['-e', `require('node:http').get(${JSON.stringify(url)}, (r) => r.resume())`],
                resolve
              )
            )
        )
      )
    }
    return { bundle, bare }
  })
  const size = (name: string) => `${(statSync(join(DIST, name)).size / 1024).toFixed(0)} KiB`
  const chunk = readdirSync(DIST).find(
    (name) => /^\d+\.index\.js$/.test(name) && statSync(join(DIST, name)).size > 10_000
  )
  row(
    'lean: spawn → first API request (bundle vs bare node sending the same GET)',
    // Each spawn of the bundle is paired with the bare one right after it, under the same load.
    `median ${median(bundle)} ms vs ${median(bare)} ms: +${median(bundle.map((ms, i) => ms - bare[i]))} ms, median of ${bundle.length} pairs (bound ≤ 150 ms)`,
    `dist/index.js ${size('index.js')} (bound ≤ 2048 KiB); Octokit chunk ${chunk ? `${chunk} ${size(chunk)}` : 'none'}, loaded only to comment`
  )
}

// 2. Latency: from the moment the operation is final to the action's exit.
for (const interval of wanted('latency') ? ['1s', '5s'] : []) {
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
for (const [history, everyMs, inFlight] of (wanted('gate')
  ? [
      [100, 600_000, 1],
      [2000, 60_000, 1],
      [2000, 60_000, 20],
      [10_000, 10_000, 1]
    ]
  : []) as [number, number, number][]) {
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
if (wanted('ids')) {
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
if (wanted('ids')) {
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
if (wanted('silent')) {
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

// 7. Storm: one gate at the default interval (5 s); every request fails from 4 s after its start
// for 30 s or 120 s (429 with or without Retry-After, 503, connection resets, requests that get no
// answer until the action's own limit cuts them), and its operation is
// final 2 s after the trouble ends. Goals: no two requests closer than the interval, at most one
// request per interval during the trouble, the first request after it within 3 intervals (or the
// Retry-After plus one interval), the exit within that plus one interval. Every storm of a run at
// once (lone gates, each with its own server), STORM_RUNS runs (3).
const STORM_RUNS = Number(process.env.STORM_RUNS ?? 3)
const INTERVAL_MS = 5000
const storms: [string, Fault, number][] = [
  ['429 without Retry-After', { kind: 'status', status: 429 }, 0],
  ['429 with Retry-After: 12', { kind: 'status', status: 429, retryAfter: '12' }, 12_000],
  ['503', { kind: 'status', status: 503 }, 0],
  ['connection resets', { kind: 'drop' }, 0],
  ['time-outs (no answer)', { kind: 'slow', delayMs: 300_000 }, 0]
]

async function storm(fault: Fault, stormMs: number) {
  const world = demoWorld()
  const started = Date.now()
  const stormStart = started + 4000
  const stormEnd = stormStart + stormMs
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    createdAt: started,
    timeline: [{ status: 'running', ms: stormEnd + 2000 - started }, { status: 'finished' }]
  })
  return withServer(world, {}, async (server) => {
    server.addFault({ ...fault, from: stormStart, until: stormEnd })
    const outcome = await runBundle(
      {
        api_key: KEYS.organization,
        project_id: PROJECT,
        operation_id: op.id,
        api_host: server.apiHost,
        timeout: '5m'
      },
      { killAfterMs: 400_000 }
    )
    const times = server.requests.map((request) => request.at)
    return {
      outcome: outcome.outputs.outcome,
      during: times.filter((at) => at >= stormStart && at < stormEnd).length,
      smallestGap: Math.min(...times.slice(1).map((at, i) => at - times[i])),
      nextAfter: (times.find((at) => at >= stormEnd) ?? Infinity) - stormEnd,
      exitAfter: started + outcome.durationMs - stormEnd
    }
  })
}

if (wanted('storm')) {
  const cases = [30_000, 120_000].flatMap((stormMs) =>
    storms.map(([name, fault, retryAfterMs]) => ({ name, fault, retryAfterMs, stormMs }))
  )
  const results = await Promise.all(
    Array.from({ length: STORM_RUNS }, () =>
      Promise.all(cases.map((each) => storm(each.fault, each.stormMs)))
    )
  )
  cases.forEach(({ name, stormMs, retryAfterMs }, i) => {
    const runs = results.map((run) => run[i])
    const boundMs = Math.max(3 * INTERVAL_MS, retryAfterMs + INTERVAL_MS)
    const seconds = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(1)).join(', ')
    row(
      `storm: ${stormMs / 1000} s of ${name}, interval 5 s, ${runs.length} runs`,
      `next request ${seconds(runs.map((run) => run.nextAfter))} s after it (goal ≤ ${boundMs / 1000} s); exit ${seconds(runs.map((run) => run.exitAfter))} s after it (goal ≤ ${(boundMs + INTERVAL_MS) / 1000} s)`,
      `requests during it ${runs.map((run) => run.during).join(', ')} (goal ≤ ${Math.ceil(stormMs / INTERVAL_MS)}); smallest gap ${seconds(runs.map((run) => run.smallestGap))} s (goal ≥ 5); ${[...new Set(runs.map((run) => run.outcome))].join(', ')}`
    )
  })
}

// 7b. The database probe (#30): start-up with and without database_url, the probe's own time on a
// ready server, and how long after a late server comes up the gate passes, at the default interval.
if (wanted('database')) {
  const postgres = await startPostgres()
  const admin = new pg.Client({ connectionString: postgres.adminUrl(), ssl: false })
  await admin.connect()
  await admin.query(`CREATE ROLE bench LOGIN PASSWORD 'bench-password'`)
  await admin.query('CREATE DATABASE bench OWNER bench')
  await admin.end()
  const databaseUrl = (port: number) =>
    `postgresql://bench:bench-password@127.0.0.1:${port}/bench?sslmode=disable`
  const world = demoWorld()
  const op = world.addOperation(PROJECT, {
    action: 'start_compute',
    timeline: [{ status: 'finished' }]
  })
  const [without, withProbe, probeMs] = await withServer(world, {}, async (server) => {
    const plain: number[] = []
    const probed: number[] = []
    const probes: number[] = []
    for (let i = 0; i < 7; i++) {
      plain.push((await run(server, { operation_id: op.id, wait: 'false' })).durationMs)
      const probedRun = await run(server, {
        operation_id: op.id,
        wait: 'false',
        database_url: databaseUrl(postgres.port)
      })
      probed.push(probedRun.durationMs)
      const after = /answered after 1 attempt, ([\d.]+) (ms|s) after/.exec(probedRun.summary)
      if (after) probes.push(Number(after[1]) * (after[2] === 's' ? 1000 : 1))
    }
    return [plain, probed, probes]
  })
  row(
    'database probe: start-up without and with database_url (wait: false, one read)',
    `median ${median(without)} ms without, ${median(withProbe)} ms with (+${median(withProbe) - median(without)} ms: pg loaded, one connection, SELECT 1, SHOW server_version)`,
    `the probe itself on a ready server: median ${median(probeMs)} ms of 7`
  )
  // A server that comes up 7 s after the gate starts: refused until then, then forwarded.
  const lags: number[] = []
  for (let i = 0; i < 3; i++) {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const upAfterMs = 7000
    const forward = createServer((socket) => {
      const upstream = connect(postgres.port, '127.0.0.1')
      socket.pipe(upstream).pipe(socket)
      upstream.on('error', () => socket.destroy())
      socket.on('error', () => upstream.destroy())
    })
    const upAt = Date.now() + upAfterMs
    setTimeout(() => forward.listen(port, '127.0.0.1'), upAfterMs)
    const { result, ended } = await withServer(world, {}, async (server) => {
      const result = await run(server, { operation_id: op.id, database_url: databaseUrl(port) })
      return { result, ended: Date.now() }
    })
    forward.close()
    // The step started when the bundle was spawned: `durationMs` before it ended.
    const stepStart = ended - result.durationMs
    lags.push(Number(result.outputs.database_ready_ms) - (upAt - stepStart))
  }
  row(
    'database probe: server up 7 s after the start, interval 5 s (default)',
    `ready after the server came up: ${lags.map((lag) => `${(lag / 1000).toFixed(1)} s`).join(', ')} (3 runs; bound: one interval)`,
    'ECONNREFUSED until then, retried at the pace'
  )
  await postgres.stop()
}

// 8. Fleet: 90 gates of one account, each waiting on its own operation (40-60 s), against the
// account limit with time running 5x faster (700 requests per sliding 12 s window; 40 a second per
// route becomes 200), at interval 1 s (5 s scaled), starts spread over 4 s: demand is 1.5x the
// budget. Beside it, in the same run, the honest baseline: a naive poller that polls at a fixed
// interval, and meets a 429 by simply polling again at the next tick (no retries into it).
// Three runs in a row (FLEET_RUNS), each printed with its own baseline.
const FLEET = 90
const FLEET_START_SPREAD_MS = 4000
const FLEET_RUNS = Number(process.env.FLEET_RUNS ?? 3)
/** The account's window and the gates' interval, shared by the server, the gates and the floor. */
const FLEET_WINDOW = { capacity: 700, windowMs: 12_000, intervalMs: 1000 }
const FLEET_LIMITS: Partial<Limits> = {
  perMinute: FLEET_WINDOW.capacity,
  accountWindowMs: FLEET_WINDOW.windowMs,
  perSecondPerRoute: 200,
  retryAfter: 'seconds'
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

async function naivePoller(server: ApiServer, id: string): Promise<boolean> {
  const url = `${server.apiHost}/projects/${PROJECT}/operations/${id}`
  const headers = { Authorization: `Bearer ${KEYS.organization}`, Accept: 'application/json' }
  const started = Date.now()
  for (let tick = 0; Date.now() < started + 300_000; tick++) {
    await sleep(started + tick * 1000 - Date.now())
    const response = await fetch(url, { headers })
    if (response.status === 200) {
      const { operation } = (await response.json()) as { operation: { status: string } }
      if (operation.status === 'finished') return true
    } else {
      await response.body?.cancel()
    }
  }
  return false
}

async function fleet(kind: 'action' | 'naive') {
  const world = demoWorld({ history: 0 })
  const durations = Array.from(
    { length: FLEET },
    (_, i) => 40_000 + Math.round((i * 20_000) / FLEET)
  )
  const ops = durations.map((ms) =>
    world.addOperation(PROJECT, {
      action: 'start_compute',
      timeline: [{ status: 'running', ms }, { status: 'finished' }]
    })
  )
  return withServer(world, FLEET_LIMITS, async (server) => {
    const succeeded = await Promise.all(
      ops.map(async (op, i) => {
        await sleep((i * FLEET_START_SPREAD_MS) / FLEET)
        if (kind === 'naive') return naivePoller(server, op.id)
        const run = await runBundle(
          {
            api_key: KEYS.organization,
            project_id: PROJECT,
            operation_id: op.id,
            api_host: server.apiHost,
            interval: `${FLEET_WINDOW.intervalMs / 1000}s`,
            timeout: '5m'
          },
          { killAfterMs: 400_000 }
        )
        return run.outputs.outcome === 'success'
      })
    )
    // Detection lag: from the moment an operation is final to the first answer that said so.
    const lags = ops.map((op, i) => {
      const finalAt = op.createdAt + durations[i]
      const seen = server.requests.find(
        (request) => request.status === 200 && request.path.endsWith(op.id) && request.at >= finalAt
      )
      return seen ? (seen.at - finalAt) / 1000 : Infinity
    })
    const limited = server.requests.filter((request) => request.status === 429).length
    const floor = firstRetryFloor(
      server.requests
        .filter((request) => request.status === 200 || request.status === 429)
        .map((request) => ({
          gate: request.path,
          at: request.at,
          admitted: request.status === 200,
          retryAfterMs: request.retryAfter ? Number(request.retryAfter) * 1000 : undefined
        })),
      FLEET_WINDOW
    )
    if (process.env.FLEET_TRACE && kind === 'action') {
      // When the 429s came, in seconds from the first request: which crunch they belong to.
      const first = server.requests[0]?.at ?? 0
      const bySecond = new Map<number, number>()
      for (const request of server.requests.filter((each) => each.status === 429)) {
        const second = Math.floor((request.at - first) / 1000)
        bySecond.set(second, (bySecond.get(second) ?? 0) + 1)
      }
      console.error(`429s by second: ${[...bySecond].map(([at, n]) => `${at}s:${n}`).join(' ')}`)
    }
    return {
      requests: server.requests.length,
      limited,
      failed: succeeded.filter((ok) => !ok).length,
      floor,
      rampMs: startUpRamp(server.requests),
      lagMedian: median(lags),
      lagP95: percentile(lags, 0.95)
    }
  })
}

/** How long the gates took to send their first requests, the first to the last. */
function startUpRamp(requests: ApiServer['requests']): number {
  const firsts = new Map<string, number>()
  for (const request of requests)
    if (!firsts.has(request.path)) firsts.set(request.path, request.at)
  return Math.max(...firsts.values()) - Math.min(...firsts.values())
}

if (wanted('fleet')) {
  for (let run = 1; run <= FLEET_RUNS; run++) {
    const action = await fleet('action')
    const naive = await fleet('naive')
    const share = ((100 * action.limited) / action.requests).toFixed(1)
    const fewer = (naive.limited / Math.max(1, action.limited)).toFixed(1)
    row(
      `fleet run ${run}: ${FLEET} gates, 1.5x the account budget (time x5), interval 1 s`,
      `action: ${action.limited} × 429 of ${action.requests} requests, ${(action.limited / FLEET).toFixed(2)} a gate (goal ≤ 1.25), ${share} % (goal ≤ 5 %), ${action.failed} gates failed; detection lag median ${action.lagMedian.toFixed(1)}, p95 ${action.lagP95.toFixed(1)} intervals (goals ≤ 2, ≤ 5); first requests over ${(action.rampMs / 1000).toFixed(1)} s, after which the lone-gate rule allows no fewer than ${((action.floor.refusedInCrunch + action.floor.secondRefusals) / FLEET).toFixed(2)} a gate (${action.floor.refusedInCrunch} refused in the crunch, ${action.floor.secondRefusals} of them again)`,
      `naive fixed-interval poller: ${naive.limited} × 429 of ${naive.requests} requests (${fewer}x the action's, goal ≥ 8x), ${naive.failed} failed; lag median ${naive.lagMedian.toFixed(1)}, p95 ${naive.lagP95.toFixed(1)}`
    )
  }
}

console.log('| scenario | measured | requests / result |')
console.log('|---|---|---|')
for (const cells of rows) console.log(`| ${cells.join(' | ')} |`)
