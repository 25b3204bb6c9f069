/*
 * npm run simulate: the fleet benchmark and the lone gate in a storm, with the action's own gate()
 * on a simulated clock and network (__tests__/support/fleet/simulation.ts), in seconds instead of minutes per
 * design. Designs are compared here first, then measured with the real bundle (npm run benchmark
 * -- storm fleet). Nothing is asserted. Beside each fleet's figures, the fewest 429s a gate that any
 * pacing within the contract could have had (__tests__/support/fleet/fleet-floor.ts).
 *
 *   npm run simulate [-- runs [first seed]]
 */
import type { Attempt } from '../../__tests__/support/fleet/fleet-floor.ts'
import {
  FLEET_PER_SECOND_PER_ROUTE,
  FLEET_WINDOW,
  type FleetFigures,
  fleetFigures,
  fleetPlan,
  PACKED_SPREAD_MS,
  seeded,
  SPREAD_MS
} from '../../__tests__/support/fleet/fleet-plan.ts'
import { RateLimiter } from '../../__tests__/support/neon/limits.ts'
import { rateLimitedAnswer } from '../../__tests__/support/neon/answers.ts'
import {
  operationAnswer,
  simulatedTransport,
  startGate
} from '../../__tests__/support/fleet/simulation.ts'
import type { SimulatedHandling } from '../../__tests__/support/neon/simulated-network.ts'
import { SimulatedTime } from '../../__tests__/support/time/clock.ts'

/** From a gate's planned start to its first request: a bundle's start-up (START_MS to change it). */
const START_MS = Number(process.env.START_MS ?? 150)

/** One fleet run of the benchmark's plan (`seed`, `spreadMs`), simulated. */
export async function simulateFleet(
  seed: number,
  spreadMs: number,
  retryAfter: boolean,
  /** The gates' jitter draws: the bundles' own are Math.random's, so a plan is run with several. */
  jitterSeed = 1
): Promise<FleetFigures> {
  const time = new SimulatedTime()
  const random = seeded(seed * 7919 + jitterSeed)
  const latency = seeded(seed * 7919 + jitterSeed + 1)
  const limiter = new RateLimiter({
    perMinute: FLEET_WINDOW.capacity,
    accountWindowMs: FLEET_WINDOW.windowMs,
    perSecondPerRoute: FLEET_PER_SECOND_PER_ROUTE,
    retryAfter: retryAfter ? 'seconds' : 'none'
  })
  const attempts: Attempt[] = []
  const plan = fleetPlan(seed, spreadMs)
  const runs = plan.map((planned, i) => {
    const id = operationId(i)
    const transport = simulatedTransport(time, latency, (now): SimulatedHandling => {
      const refusal = limiter.refuse('account', 'operation', now)
      const retryAfterMs = refusal?.['Retry-After'] ? Number(refusal['Retry-After']) * 1000 : 0
      attempts.push({ gate: id, at: now, admitted: !refusal, retryAfterMs })
      if (refusal) return { kind: 'answer', answer: rateLimitedAnswer(refusal) }
      return operationAnswer(id, planned.operationMs, now)
    })
    return new Promise<boolean>((resolve) =>
      time.at(planned.startAt + START_MS, () => {
        const report = startGate(time, {
          id,
          intervalMs: FLEET_WINDOW.intervalMs,
          timeoutMs: 300 * FLEET_WINDOW.intervalMs,
          random,
          transport
        })
        void report.then((done) => resolve(done.outcome === 'success'))
      })
    )
  })
  const [succeeded] = await Promise.all([Promise.all(runs), time.run()])
  const finals = plan.map((planned, i) => ({ gate: operationId(i), finalAt: planned.operationMs }))
  return fleetFigures(attempts, finals, succeeded.filter((ok) => !ok).length)
}

/** The UUID of gate `i`'s operation. */
const operationId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`

type Trouble = () => SimulatedHandling

/** One gate at interval 5 s; every request from 4 s to 4 s + `stormMs` meets `trouble`. */
async function simulateStorm(seed: number, stormMs: number, trouble: Trouble) {
  const time = new SimulatedTime()
  const stormEnd = 4000 + stormMs
  const finalAt = stormEnd + 2000
  const times: number[] = []
  const transport = simulatedTransport(time, seeded(seed + 1), (now) => {
    times.push(now)
    return now >= 4000 && now < stormEnd ? trouble() : operationAnswer(operationId(0), finalAt, now)
  })
  let exitAt = Infinity
  time.at(500, () => {
    void startGate(time, {
      id: operationId(0),
      intervalMs: 5000,
      timeoutMs: 3_600_000,
      random: seeded(seed),
      transport
    }).then(() => (exitAt = time.now()))
  })
  await time.run()
  const gaps = times.slice(1).map((at, i) => at - times[i])
  return {
    afterEnd: times.find((at) => at >= stormEnd)! - stormEnd,
    exitAfterEnd: exitAt - stormEnd,
    smallestGap: Math.min(...gaps)
  }
}

const range = (values: number[], digits = 0) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 10)
  const firstSeed = Number(process.argv[3] ?? 1)
  const seeds = Array.from({ length: runs }, (_, i) => firstSeed + i)
  for (const [label, spreadMs] of [
    ['starts over 20 intervals', SPREAD_MS],
    ['packed starts (4 intervals)', PACKED_SPREAD_MS]
  ] as const) {
    for (const retryAfter of [false, true]) {
      const fleets: FleetFigures[] = []
      for (const seed of seeds) fleets.push(await simulateFleet(seed, spreadMs, retryAfter))
      console.log(
        `fleet, ${label}, ${retryAfter ? 'with' : 'without'} Retry-After, seeds ${seeds[0]}–${seeds.at(-1)}: ` +
          `429s a gate ${range(
            fleets.map((f) => f.perGate),
            2
          )} (each: ${fleets.map((f) => f.perGate.toFixed(2)).join(' ')}), share ${range(
            fleets.map((f) => (100 * f.limited) / f.requests),
            1
          )} %, lag median ${range(
            fleets.map((f) => f.lagMedian),
            1
          )}, p95 ${range(
            fleets.map((f) => f.lagP95),
            1
          )} intervals, failed ${Math.max(...fleets.map((f) => f.failed))}; floor ${range(
            fleets.map((f) => f.floorPerGate),
            2
          )} a gate`
      )
    }
  }
  const status = (code: number, headers?: Record<string, string>): Trouble => {
    return (): SimulatedHandling => ({
      kind: 'answer',
      answer: { status: code, headers, body: { message: 'trouble' } }
    })
  }
  const troubles: [string, Trouble][] = [
    ['429', status(429)],
    ['429 Retry-After 12', status(429, { 'Retry-After': '12' })],
    ['429 Retry-After 3', status(429, { 'Retry-After': '3' })],
    ['503', status(503)],
    ['reset', () => ({ kind: 'drop' })],
    ['no answer', () => ({ kind: 'none' })]
  ]
  for (const stormMs of [30_000, 120_000]) {
    for (const [name, trouble] of troubles) {
      const results = []
      for (const seed of seeds) results.push(await simulateStorm(seed, stormMs, trouble))
      console.log(
        `storm ${stormMs / 1000} s of ${name}: next request ${range(
          results.map((r) => r.afterEnd / 1000),
          1
        )} s after it ends (bound 15 s, or Retry-After + 5 s), exit ${range(
          results.map((r) => r.exitAfterEnd / 1000),
          1
        )} s, smallest gap ${range(
          results.map((r) => r.smallestGap / 1000),
          1
        )} s`
      )
    }
  }
}

if (import.meta.main) await main()
