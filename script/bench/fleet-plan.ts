/*
 * The fleet both the benchmark and the simulation run, from one seed: 90 gates of one account, each
 * waiting on its own operation of 40–60 s, their starts spread uniformly over `spreadMs`, against
 * the account's sliding window with time running 5x faster (700 requests per 12 s; 40 a second per
 * route becomes 200) at interval 1 s (5 s scaled). Once all have started, demand is 1.5x the budget.
 */

import { median, percentile } from './common.ts'
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

export const FLEET_GATES = 90
/** The account's window and the gates' interval, shared by the server, the gates and the floor. */
export const FLEET_WINDOW = { capacity: 700, windowMs: 12_000, intervalMs: 1000 }
export const FLEET_PER_SECOND_PER_ROUTE = 200

/** Where fleets of matrix jobs start: on runners of their own, over tens of seconds. */
export const SPREAD_MS = 20_000
/** 90 gates started within 4 s: more than 2 cores can start, so they spread over 8–10 s. */
export const PACKED_SPREAD_MS = 4000

export interface FleetGate {
  /** When the gate is started, from the fleet's start. */
  startAt: number
  /** How long its operation runs, from the fleet's start. */
  operationMs: number
}

/** The gates of one run: starts uniform over `spreadMs` (sorted), operations of 40–60 s. */
export function fleetPlan(seed: number, spreadMs: number): FleetGate[] {
  const random = seeded(seed)
  const starts = Array.from({ length: FLEET_GATES }, () => random() * spreadMs).sort(
    (a, b) => a - b
  )
  return starts.map((startAt, i) => ({
    startAt,
    operationMs: 40_000 + Math.round((i * 20_000) / FLEET_GATES)
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
