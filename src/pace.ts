import { formatDuration } from './duration.js'
import type { Logger } from './logger.js'

/** The slowest the pace grows under 429s (never below `interval` though). */
export const MAX_PACE_MS = 60_000
/** How much slower the pace gets on each 429. */
const SLOWDOWN_FACTOR = 2
/** How much of the extra time is taken off after each poll that met no 429. */
const RECOVERY_FACTOR = 0.85
/** The wait between polls gets up to this share of `interval` added at random. */
const POLL_JITTER = 0.1

/**
 * How often a gate polls. The account's request budget is shared by every gate of every workflow,
 * and gates cannot talk to each other, so each one paces itself the way TCP flows share a link: a
 * 429 doubles the pace (up to 60 s), and each poll answered without a 429 brings it back toward
 * `interval` (never below it). A little jitter on every wait keeps gates that started in the same
 * second from polling in lock-step.
 */
export class Pace {
  private paceMs: number
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

  /** Time between polls right now; also the floor of every retry. */
  get currentMs(): number {
    return this.paceMs
  }

  onRateLimited(): void {
    this.rateLimited++
    this.limitedThisPoll = true
    const next = Math.max(this.intervalMs, Math.min(MAX_PACE_MS, this.paceMs * SLOWDOWN_FACTOR))
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
    const next = this.intervalMs + (this.paceMs - this.intervalMs) * RECOVERY_FACTOR
    this.paceMs = next - this.intervalMs < 100 ? this.intervalMs : next
    if (this.paceMs === this.intervalMs) {
      this.logger.info(`No 429 lately: polling every ${formatDuration(this.intervalMs)} again`)
    }
  }

  /** How long to wait before the next poll: the pace plus a little jitter. */
  nextPollDelayMs(): number {
    return Math.round(this.paceMs + this.random() * POLL_JITTER * this.intervalMs)
  }
}
