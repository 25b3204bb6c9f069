/*
 * The fewest 429s that any pacing within the contract could have had in a fleet's first crunch,
 * computed from one run's record of requests (the benchmark's server log or the simulation's), so
 * that a goal for the fleet can be checked against what the contract leaves possible.
 *
 * What the contract fixes: a gate that has not met a 429 polls at `interval` (its first read at
 * once); after a 429 its next request goes out no sooner than `max(Retry-After, interval)`, the
 * first retry no later than one interval after that; and no wait, a poll's or a retry's, is longer
 * than 3 intervals (or one interval past a longer Retry-After). So until the first retry of any
 * gate can go out (R0), every pacing sends the same requests: the crunch up to R0 is the same.
 *
 * From R0 to any time T before R0 + window, some requests are forced whatever the pacing, until a
 * gate's operation is final:
 * - each gate refused before R0: its retry (by its latest time), then a request every 3 intervals;
 * - each gate not refused by R0: its polls at `interval` (the first an interval after its last
 *   request, or its first request if it started later), as long as it is not refused. Refused,
 *   it sends fewest if that was its first poll: then its retry, then a request every 3 intervals.
 *   Gates that poll earlier save more by being refused, so the fewest 429s come with the k
 *   earliest refused, for some k.
 * Retry-After, where the run had it, is taken as the longest the run heard.
 * The window admits in [R0, T] at most `capacity` minus what it admitted in (T − window, R0): every
 * forced request beyond that is refused. The floor is the crunch's refusals, plus the fewest over k
 * of k and the largest such excess over T. It takes every gate's cheapest course at once, so no
 * real pacing reaches it.
 */
import { RECOVERY_INTERVALS } from '../../../src/api/retry-policy.js'
import { median } from './statistics.ts'

export interface Attempt {
  gate: string
  at: number
  admitted: boolean
  /** The Retry-After of a refusal, in ms. */
  retryAfterMs?: number
}

export interface FleetFloor {
  /** Gates refused before any retry could go out: the crunch that no pacing changes. */
  refusedInCrunch: number
  /** The fewest refusals from R0 on: forced retries and polls beyond the window's free slots. */
  refusedAfterCrunch: number
}

export interface FleetLimits {
  capacity: number
  windowMs: number
  intervalMs: number
}

export function fleetFloor(
  attempts: Attempt[],
  limits: FleetLimits,
  /** When each gate's operation was final; a gate missing here waits past the window. */
  finalAt: ReadonlyMap<string, number> = new Map(),
  /** How many intervals after `max(Retry-After, interval)` the rule lets the retry go: 1. */
  graceIntervals = 1
): FleetFloor {
  const { capacity, windowMs, intervalMs } = limits
  const sorted = [...attempts].sort((a, b) => a.at - b.at)
  const { r0, crunch } = crunchOf(sorted, intervalMs)
  // A refusal the record does not have may wait as long as the longest Retry-After of the run, so
  // that no request is counted as forced too soon (without Retry-After, the interval).
  const longestRetryAfterMs = Math.max(0, ...sorted.map((attempt) => attempt.retryAfterMs ?? 0))
  const graceMs = graceIntervals * intervalMs
  const endOf = (gate: string) => finalAt.get(gate) ?? Infinity
  const refusedGates = crunch.map((refusal) => ({
    retryBy: refusal.at + Math.max(refusal.retryAfterMs ?? 0, intervalMs) + graceMs,
    end: endOf(refusal.gate)
  }))
  const pollers = pollersAtR0(sorted, crunch, r0, intervalMs, endOf).map((poller) => ({
    ...poller,
    retryBy: poller.firstPoll + Math.max(longestRetryAfterMs, intervalMs) + graceMs
  }))
  const spacingMs = Math.max(RECOVERY_INTERVALS * intervalMs, longestRetryAfterMs + intervalMs)
  const horizon = r0 + windowMs
  /** The requests a gate refused once sends by `moment`: its retry, then one every spacing. */
  const afterRefusal = ({ retryBy, end }: { retryBy: number; end: number }, moment: number) =>
    retryBy > moment ? 0 : 1 + countBy(retryBy + spacingMs, spacingMs, Math.min(moment, end))
  const slotsBy = (moment: number) =>
    capacity -
    sorted.filter(
      (attempt) => attempt.admitted && attempt.at < r0 && attempt.at > moment - windowMs
    ).length

  // The excess only grows when a request falls due, so it is largest at one of those moments.
  // From R0 + window on, a slot taken at R0 is free again (a request counts while it is younger
  // than the window), so one slot can serve two requests: the bound no longer holds.
  const moments = dueMoments(refusedGates, pollers, spacingMs, [r0, horizon])
  // At each moment, what is forced whichever pollers are refused, less the free slots; then, for
  // each poller, what it forces never refused and what refused at its first poll.
  const base = moments.map(
    (moment) =>
      sum(refusedGates.map((gate) => afterRefusal(gate, moment))) - Math.max(0, slotsBy(moment))
  )
  const polling = pollers.map((poller) =>
    moments.map((moment) =>
      countBy(poller.firstPoll, poller.periodMs, Math.min(moment, poller.end))
    )
  )
  const refused = pollers.map((poller) => moments.map((moment) => afterRefusal(poller, moment)))
  return {
    refusedInCrunch: crunch.length,
    refusedAfterCrunch: fewestRefusals(base, polling, refused)
  }
}

/**
 * The fewest refusals from R0 on, given at each moment what is forced whichever pollers are
 * refused (`base`), and for each poller what it forces never refused (`polling`) and refused at
 * its first poll (`refused`).
 */
function fewestRefusals(base: number[], polling: number[][], refused: number[][]): number {
  // With none refused, then the earliest one, two, ... refused: the fewest 429s is one of these.
  const excess = base.map((forced, m) => forced + sum(polling.map((counts) => counts[m])))
  let fewest = Math.max(0, ...excess)
  polling.forEach((_, index) => {
    excess.forEach((_, m) => (excess[m] += refused[index][m] - polling[index][m]))
    fewest = Math.min(fewest, index + 1 + Math.max(0, ...excess))
  })
  return fewest
}

/** R0, the earliest a retry can go out, and the gates refused before it. */
function crunchOf(sorted: Attempt[], intervalMs: number): { r0: number; crunch: Attempt[] } {
  const firstRefusal = new Map<string, Attempt>()
  for (const attempt of sorted) {
    if (!attempt.admitted && !firstRefusal.has(attempt.gate))
      firstRefusal.set(attempt.gate, attempt)
  }
  const refusals = [...firstRefusal.values()]
  const r0 = Math.min(
    ...refusals.map((refusal) => refusal.at + Math.max(refusal.retryAfterMs ?? 0, intervalMs))
  )
  return { r0, crunch: refusals.filter((refusal) => refusal.at < r0) }
}

/**
 * When a request falls due from R0 to the horizon: the retries of the gates refused in the crunch
 * and what follows them, and each poller's polls and its retry's course were it refused.
 */
function dueMoments(
  refusedGates: { retryBy: number }[],
  pollers: { firstPoll: number; periodMs: number; retryBy: number }[],
  spacingMs: number,
  [r0, horizon]: [number, number]
): number[] {
  return (
    [
      ...refusedGates.flatMap(({ retryBy }) => dueTimes(retryBy, spacingMs, horizon)),
      ...pollers.flatMap(({ firstPoll, periodMs, retryBy }) => [
        ...dueTimes(firstPoll, periodMs, horizon),
        ...dueTimes(retryBy, spacingMs, horizon)
      ])
    ]
      // A poll due before R0 by the interval goes out at R0 at the earliest (the record has none).
      .map((moment) => Math.max(moment, r0))
      .filter((moment) => moment < horizon)
  )
}

/** `first`, `first + every`, ... before `horizon`. */
function dueTimes(first: number, every: number, horizon: number): number[] {
  return Array.from({ length: countBy(first, every, horizon) }, (_, index) => first + index * every)
}

/** How many of `first`, `first + every`, `first + 2 × every`... are at or before `last`. */
function countBy(first: number, every: number, last: number): number {
  return last < first ? 0 : Math.floor((last - first) / every) + 1
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)

/**
 * The gates that R0 finds waiting and not refused, earliest poll first: when each polls next (an
 * interval after its last request before R0, or its first request if it started later), at what
 * period (the interval with its round trip: the median gap between two polls before R0, which every
 * pacing shares), and when its operation is final.
 */
function pollersAtR0(
  sorted: Attempt[],
  crunch: Attempt[],
  r0: number,
  intervalMs: number,
  endOf: (gate: string) => number
): { firstPoll: number; periodMs: number; end: number }[] {
  const inCrunch = new Set(crunch.map((refusal) => refusal.gate))
  const gates = new Map<string, { before: number[]; firstAfter?: number }>()
  for (const attempt of sorted) {
    if (inCrunch.has(attempt.gate)) continue
    const gate = gates.get(attempt.gate) ?? { before: [] }
    if (attempt.at < r0) gate.before.push(attempt.at)
    else gate.firstAfter ??= attempt.at
    gates.set(attempt.gate, gate)
  }
  const gaps = [...gates.values()].flatMap(({ before }) =>
    before.slice(1).map((at, index) => at - before[index])
  )
  const periodMs = gaps.length === 0 ? intervalMs : median(gaps)
  return [...gates.entries()]
    .map(([gate, { before, firstAfter }]) => ({
      firstPoll: before.length === 0 ? firstAfter! : before.at(-1)! + periodMs,
      periodMs,
      end: endOf(gate)
    }))
    .filter(({ firstPoll, end }) => firstPoll < end)
    .sort((a, b) => a.firstPoll - b.firstPoll)
}
