/*
 * The loss rate of matrix legs that write the sticky comment at once, on the simulated network:
 * trials of eight legs (the sixth red), each leg the action's own comment code, in five network
 * shapes. Each trial counts the results the comment lost, whether the red one was among them,
 * whether any leg warned, duplicates left, and each leg's time in the comment. The simulated
 * tests run a few trials of each shape; docs/pull-requests.md gives the figures of many
 * (COMMENT_LEGS_TRIALS=300, see comment-legs.test.ts).
 */
import type { Contract } from '../openapi-contract.ts'
import { seeded } from '../fleet/fleet-plan.ts'
import { SimulatedTime } from '../time/clock.ts'
import { gateComments, type Leg, runLegs, staleWrites, TOKEN } from './matrix-legs.ts'
import { ACTIONS_BOT, createGitHubApi } from './server.ts'

/**
 * `even`: each leg's half trips 10 to 180 ms (its own range within that); `spikes`: the same, with
 * one half trip in 20 five times longer; `slow leg`: one leg's half trips 5 to 10 times the
 * others' mean (175 to 1,050 ms); `slower leg`: one leg's round trips about 2.5 s (half trips
 * 625 to 1,875 ms), beyond what was measured, so that its writes may be cut short by the 5 s.
 */
export type NetworkShape = 'even' | 'spikes' | 'slow leg' | 'slow leg first' | 'slower leg'
export const NETWORK_SHAPES: NetworkShape[] = [
  'even',
  'spikes',
  'slow leg',
  'slow leg first',
  'slower leg'
]

export const RED_LEG = 5
const LEGS = 8
/** The others' mean base half trip (ms): 20 + 100 × 0.5. */
const MEAN_BASE_MS = 70
/** The `slower leg`'s base half trip (ms): round trips of 2.5 s on average. */
const SLOWER_BASE_MS = 1250

export interface Trial {
  /** Results missing from the comment once every leg is done, and whether the red one is. */
  lost: number
  redLost: boolean
  /** Some leg warned (a lost result should never go unsaid). */
  warned: boolean
  /** The gate's comments left (1 when every duplicate was merged and deleted). */
  comments: number
  /** Each leg's time in the comment (ms, simulated), from its start to its end. */
  legMs: number[]
  /** Writes from a read older than another leg's write: the race happened. */
  stale: number
  /** The leg whose result the (first) comment shows: the red one, when it is there. */
  shown?: string
  /** Every leg's comment_url is the comment that holds the results. */
  urlsAgree: boolean
  violations: number
}

/** A half-trip source: `base` ms times 0.5 to 1.5, one in 20 times 5 with `spikes`. */
function halfTrips(random: () => number, base: number, spikes: boolean): () => number {
  return () => base * (0.5 + random()) * (spikes && random() < 0.05 ? 5 : 1)
}

/** Eight legs of one run, the sixth red, starting within `spreadMs`, on network `shape`. */
export function legsOf(shape: NetworkShape, random: () => number, spreadMs: number): Leg[] {
  const slow = Math.floor(random() * LEGS)
  const first = shape === 'slow leg first'
  return Array.from({ length: LEGS }, (_, i) => {
    // The same draws as before the `slower leg` shape, so that the other shapes' trials stay.
    const slowLeg = i === slow && shape !== 'even' && shape !== 'spikes'
    const base = !slowLeg
      ? 20 + 100 * random()
      : shape === 'slower leg'
        ? SLOWER_BASE_MS
        : MEAN_BASE_MS * (5 + 5 * random())
    return {
      name: `leg-${i}`,
      outcome: i === RED_LEG ? 'failure' : 'success',
      startMs: first ? (i === slow ? 0 : 200 + 800 * random()) : random() * spreadMs,
      halfTripMs: halfTrips(random, base, shape === 'spikes')
    }
  })
}

/**
 * One trial of `shape` from `seed`: legs start within 1 s (at the same instant for seeds 1-4), on a
 * pull request with no comment of the gate (odd seeds) or an earlier run's (even seeds).
 */
export async function runTrial(
  shape: NetworkShape,
  seed: number,
  contract?: Contract
): Promise<Trial> {
  const random = seeded(seed * 7919 + NETWORK_SHAPES.indexOf(shape))
  const github = createGitHubApi({ apiUrl: 'https://api.github.com', contract })
  github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: true })
  const time = new SimulatedTime()
  // Even seeds: the pull request has the comment of an earlier run (a push before), red.
  if (seed % 2 === 0) {
    const earlier = { name: 'earlier', outcome: 'failure' as const, halfTripMs: () => 50 }
    await runLegs(time, github, [earlier], { seed, runId: '8' })
  }
  const legs = legsOf(shape, random, seed <= 4 ? 0 : 1000)
  const { urls, lines, endMs } = await runLegs(time, github, legs, { seed })
  const comments = gateComments(github)
  const held = new Set(
    comments.flatMap(({ content }) => content?.results.results ?? []).map((r) => r.leg)
  )
  const missing = legs.filter((leg) => !held.has(leg.name))
  const [first] = comments
  return {
    lost: missing.length,
    redLost: missing.some((leg) => leg.outcome === 'failure'),
    warned: lines.flat().some((line) => line.startsWith('warning')),
    comments: comments.length,
    legMs: legs.map((leg, i) => endMs[i] - (leg.startMs ?? 0)),
    stale: staleWrites(github),
    shown: first?.content?.results.shown,
    urlsAgree: comments.length === 1 && urls.every((url) => url === first.comment.html_url),
    violations: github.violations.length
  }
}

export interface LossRate {
  shape: NetworkShape
  trials: number
  /** Trials that lost a result, results lost (of trials × 8), and those of them no leg warned of. */
  trialsLosing: number
  resultsLost: number
  unwarned: number
  redLost: number
  /** Trials whose first comment does not show the red result (a stray comment may hold it). */
  redHidden: number
  /** Trials where some leg warned, and where a duplicate comment was left. */
  warned: number
  duplicatesLeft: number
  /** Legs' time in the comment (ms): median, 95th percentile, longest. */
  medianMs: number
  p95Ms: number
  maxMs: number
}

/** `trials` trials of `shape`, seeds 1 to `trials`. */
export async function measureLossRate(shape: NetworkShape, trials: number): Promise<LossRate> {
  const all: Trial[] = []
  for (let seed = 1; seed <= trials; seed++) all.push(await runTrial(shape, seed))
  const times = all.flatMap((trial) => trial.legMs).sort((a, b) => a - b)
  const at = (fraction: number) => Math.round(times[Math.floor(fraction * (times.length - 1))])
  return {
    shape,
    trials,
    trialsLosing: all.filter((trial) => trial.lost > 0).length,
    resultsLost: all.reduce((sum, trial) => sum + trial.lost, 0),
    unwarned: all.filter((trial) => trial.lost > 0 && !trial.warned).length,
    redLost: all.filter((trial) => trial.redLost).length,
    redHidden: all.filter((trial) => trial.shown !== `leg-${RED_LEG}`).length,
    warned: all.filter((trial) => trial.warned).length,
    duplicatesLeft: all.filter((trial) => trial.comments > 1).length,
    medianMs: at(0.5),
    p95Ms: at(0.95),
    maxMs: at(1)
  }
}
