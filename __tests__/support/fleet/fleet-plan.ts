/*
 * The fleet both the benchmark and the simulation run, from one seed: 90 gates of one account at the
 * default interval (5 s), each waiting on its own operation of 40–60 intervals, their starts spread
 * uniformly over `spreadMs` (20 intervals), against the account's sliding window (700 requests a
 * minute, 40 a second per route). Once all have started, demand is 1.5x the budget.
 *
 * FLEET_SPEEDUP=5 runs the same plan with time 5x faster (interval 1 s, 700 requests per 12 s, 200
 * a second per route), as every run did before issue #53: a fifth of the wall-clock time, but the
 * gates' memory of a 429 is counted in seconds (at least 120 s), so at interval 1 s it lasts 5x more
 * intervals than at the default, and such a run does not measure it.
 */

import { median, percentile } from './statistics.ts'
import { type Attempt, fleetFloor } from './fleet-floor.ts'

/** A seeded random source (mulberry32), so that runs can be repeated. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const FLEET_GATES = 90
/** How many times faster than the account's time the plan runs: 1, or 5 (see above). */
const FLEET_SPEEDUP = Number(process.env.FLEET_SPEEDUP ?? 1)
/** The account's window and the gates' interval, shared by the server, the gates and the floor. */
export const FLEET_WINDOW = {
  capacity: 700,
  windowMs: 60_000 / FLEET_SPEEDUP,
  intervalMs: 5000 / FLEET_SPEEDUP
}
export const FLEET_PER_SECOND_PER_ROUTE = 40 * FLEET_SPEEDUP

/** Where fleets of matrix jobs start: on runners of their own, over 20 intervals (100 s). */
export const SPREAD_MS = 20 * FLEET_WINDOW.intervalMs
/** 90 gates started within 4 intervals (20 s; 4 s at FLEET_SPEEDUP=5, more than 2 cores can start). */
export const PACKED_SPREAD_MS = 4 * FLEET_WINDOW.intervalMs

export interface FleetGate {
  /** When the gate is started, from the fleet's start. */
  startAt: number
  /** How long its operation runs, from the fleet's start. */
  operationMs: number
}

/** The gates of one run: starts uniform over `spreadMs` (sorted), operations of 40–60 intervals. */
export function fleetPlan(seed: number, spreadMs: number): FleetGate[] {
  const random = seeded(seed)
  const starts = Array.from({ length: FLEET_GATES }, () => random() * spreadMs).sort(
    (a, b) => a - b
  )
  return starts.map((startAt, i) => ({
    startAt,
    operationMs: Math.round((40 + (i * 20) / FLEET_GATES) * FLEET_WINDOW.intervalMs)
  }))
}

/** What one fleet run measured; the benchmark adds what only real processes show. */
export interface FleetFigures {
  requests: number
  limited: number
  perGate: number
  /** Detection lag in intervals: from an operation being final to the first answer saying so. */
  lagMedian: number
  lagP95: number
  /** The fewest 429s a gate the contract allows on this run (fleet-floor.ts). */
  floorPerGate: number
  failed: number
}

/**
 * The figures of one run, from its requests (the benchmark's server log or the simulation's) and
 * when each gate's operation became final; `failed` is how many gates did not pass.
 */
export function fleetFigures(
  attempts: Attempt[],
  finals: { gate: string; finalAt: number }[],
  failed: number
): FleetFigures {
  const limited = attempts.filter((attempt) => !attempt.admitted).length
  const lags = finals.map(({ gate, finalAt }) => {
    const seen = attempts.find(
      (attempt) => attempt.gate === gate && attempt.admitted && attempt.at >= finalAt
    )
    return seen ? (seen.at - finalAt) / FLEET_WINDOW.intervalMs : Infinity
  })
  const floor = fleetFloor(
    attempts,
    FLEET_WINDOW,
    new Map(finals.map(({ gate, finalAt }) => [gate, finalAt]))
  )
  return {
    requests: attempts.length,
    limited,
    perGate: limited / FLEET_GATES,
    lagMedian: median(lags),
    lagP95: percentile(lags, 0.95),
    floorPerGate: (floor.refusedInCrunch + floor.refusedAfterCrunch) / FLEET_GATES,
    failed
  }
}
