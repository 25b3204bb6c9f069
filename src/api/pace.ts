import { formatDuration } from '../domain/duration.js'
import type { Logger } from '../domain/logger.js'
import { RECOVERY_INTERVALS } from './retry-policy.js'

/** How much slower the pace gets on each 429: from `interval`, to the recovery bound at once. */
const SLOWDOWN_FACTOR = 3
/** Recovery comes back quickly to this multiple of the pace at which the last 429 came... */
const PLATEAU_MARGIN = 2
/** ...10 % quicker with each poll that met no 429... */
const QUICK_RECOVERY = 0.9
/** ...then probes toward `interval` slowly, 0.5 % a poll. */
const PROBING_RECOVERY = 0.995
/** While slowed, each wait is the pace ± 25 %, at random. */
const WAIT_JITTER = 0.25

/**
 * How often a gate polls. The account's request budget is shared by every gate of every workflow,
 * and gates cannot talk to each other, so each one paces itself the way TCP flows share a link.
 *
 * A 429 triples the pace, up to the recovery bound (RECOVERY_INTERVALS intervals, so that a gate
 * whose trouble is over is back within it): one 429 takes a gate at `interval` straight to the
 * bound. Each poll answered without a 429 makes it quicker again, the way TCP CUBIC does: quickly
 * (10 % a poll) back to a plateau of 2 times the pace at which the last 429 came, then slowly
 * (0.5 % a poll) toward `interval`, never below it. Without that memory a fleet of gates climbs
 * straight back to the pace that filled the account's window, and every gate meets a 429 again in
 * the next crunch; with it, the fleet settles under the budget. In the simulation of a fleet whose
 * starts spread over 20 s (`npm run simulate`, the action's own code), doubling with a plateau of
 * 1.75 left a second crunch, 1.27 429s a gate; tripling with a plateau of 2 left none, 1.03–1.22.
 *
 * While slowed, each wait is drawn within ±25 % of the pace, so that gates slowed by the same
 * crunch do not come back in the same second. A gate that meets no 429 polls at exactly `interval`.
 */
export class Pace {
  private paceMs: number
  /** The pace at which the last 429 came; 0 before any. */
  private limitedAtMs = 0
  private limitedThisPoll = false
  /** Answers of 429 met in the whole run. */
  rateLimited = 0
  /** The slowest pace reached. */
  slowestMs: number

  constructor(
    readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random
  ) {
    this.paceMs = intervalMs
    this.slowestMs = intervalMs
  }

  onRateLimited(): void {
    this.rateLimited++
    // The pace that was too quick: the first 429 of a poll says so, its retries' 429s do not.
    if (!this.limitedThisPoll) this.limitedAtMs = this.paceMs
    this.limitedThisPoll = true
    const next = Math.min(this.slowestAllowedMs, this.paceMs * SLOWDOWN_FACTOR)
    if (next > this.paceMs) {
      this.paceMs = next
      this.slowestMs = Math.max(this.slowestMs, next)
      this.logger.info(`429: polling every ${formatDuration(next)} for now`)
    }
  }

  /** A poll is over; if it met no 429, the pace recovers a step toward `interval`. */
  onPollDone(): void {
    const limited = this.limitedThisPoll
    this.limitedThisPoll = false
    if (limited || this.paceMs === this.intervalMs) return
    const plateauMs = this.limitedAtMs * PLATEAU_MARGIN
    const next =
      this.paceMs > plateauMs
        ? Math.max(plateauMs, this.paceMs * QUICK_RECOVERY)
        : this.paceMs * PROBING_RECOVERY
    this.paceMs = Math.max(this.intervalMs, next)
    if (this.paceMs === this.intervalMs) {
      this.logger.info(`No 429 lately: polling every ${formatDuration(this.intervalMs)} again`)
    }
  }

  /**
   * How long to wait before the next poll: `interval`, or while slowed the pace ± 25 %, never
   * below `interval` nor past the recovery bound.
   */
  nextPollDelayMs(): number {
    if (this.paceMs === this.intervalMs) return this.intervalMs
    const jittered = this.paceMs * (1 + WAIT_JITTER * (2 * this.random() - 1))
    return Math.round(Math.min(this.slowestAllowedMs, Math.max(this.intervalMs, jittered)))
  }

  private get slowestAllowedMs(): number {
    return RECOVERY_INTERVALS * this.intervalMs
  }
}
