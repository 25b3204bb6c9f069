import type { Clock } from '../domain/clock.js'
import { formatDuration } from '../domain/duration.js'
import type { Logger } from '../domain/logger.js'
import { RECOVERY_INTERVALS } from './retry-policy.js'

/** How much slower the pace gets on each 429: from `interval`, to the recovery bound at once. */
const SLOWDOWN_FACTOR = 3
/** Recovery comes back 10 % quicker with each poll that met no 429... */
const QUICK_RECOVERY = 0.9
/** ...to this multiple of the pace at which the last 429 came, held while the gate remembers it... */
const PLATEAU_MARGIN = 2
/** ...that is, until its last 429 is this old, or MEMORY_INTERVALS intervals if that is longer. */
const MEMORY_MS = 150_000
const MEMORY_INTERVALS = 30
/** While slowed, each wait is the pace ± 25 %, at random. */
const WAIT_JITTER = 0.25

/**
 * How often a gate polls. The account's request budget is shared by every gate of every workflow,
 * and gates cannot talk to each other, so each one paces itself the way TCP flows share a link.
 *
 * A 429 triples the pace, up to the recovery bound (RECOVERY_INTERVALS intervals, so that a gate
 * whose trouble is over is back within it): one 429 takes a gate at `interval` straight to the
 * bound. Each poll answered without a 429 makes it quicker again, 10 % a poll, back to a plateau of
 * 2 times the pace at which the last 429 came, held while the gate remembers that 429: once the
 * 429 is 150 s old (30 intervals, if that is longer) and a poll is answered, the pace is `interval`
 * again. Each fresh 429 renews the memory, so a gate that keeps meeting them stays slow.
 *
 * The memory is counted in time, not in polls: the account's budget is a window in time, and a
 * slowed gate polls less often. Its length is the fleet's. In the simulation of 90 gates at 1.5x
 * the budget (`npm run simulate`, the action's own code), gates that come back to `interval` while
 * the fleet's operations still run fill the window again and meet a second crunch: with the 60 s
 * the contract asks for, about 0.85 more 429s a gate whatever the pace in between; 150 s is the
 * shortest memory with which both of its fleets meet no more 429s than with a memory that never
 * ends (docs/benchmarks.md has the figures).
 *
 * While slowed, each wait is drawn within ±25 % of the pace, so that gates slowed by the same
 * crunch do not come back in the same second. A gate that meets no 429 polls at exactly `interval`.
 */
export class Pace {
  private paceMs: number
  /** The pace at which the last 429 came; 0 before any. */
  private limitedAtMs = 0
  /** When the last 429 came, on `clock`. */
  private lastLimitedAt = 0
  private limitedThisPoll = false
  /** Answers of 429 met in the whole run. */
  rateLimited = 0
  /** The slowest pace reached. */
  slowestMs: number

  constructor(
    readonly intervalMs: number,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random
  ) {
    this.paceMs = intervalMs
    this.slowestMs = intervalMs
  }

  onRateLimited(): void {
    this.rateLimited++
    this.lastLimitedAt = this.clock.now()
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

  /**
   * A poll is over, answered: once the last 429 is old enough the pace is `interval` again (even
   * when this poll met it, and its retries went on that long); else, if this poll met no 429, it
   * recovers a step toward the plateau.
   */
  onPollDone(): void {
    const limited = this.limitedThisPoll
    this.limitedThisPoll = false
    if (this.paceMs === this.intervalMs) return
    const memoryMs = Math.max(MEMORY_MS, MEMORY_INTERVALS * this.intervalMs)
    if (this.clock.now() - this.lastLimitedAt >= memoryMs) {
      this.paceMs = this.intervalMs
      this.logger.info(
        `No 429 for ${formatDuration(memoryMs)}: polling every ${formatDuration(this.intervalMs)} again`
      )
      return
    }
    if (limited) return
    const plateauMs = Math.min(this.paceMs, this.limitedAtMs * PLATEAU_MARGIN)
    this.paceMs = Math.max(plateauMs, this.paceMs * QUICK_RECOVERY)
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
