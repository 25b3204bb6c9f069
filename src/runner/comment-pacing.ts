/*
 * The timing of the sticky comment's writes when legs write at once (comment-writes.ts): each
 * round trip to GitHub timed, whether the last read was fresh, and the pause before a check.
 *
 * A write from a read lands about one round trip of the writer's after GitHub answered that read,
 * and drops whatever another leg wrote in between. That leg sees the loss only if it is still
 * watching: every leg checks at least MIN_PAUSE_MS after each write of its own, longer when it
 * knows a slower leg. So a read is fresh when its round trip was within MIN_PAUSE_MS: a write from
 * it lands while every leg that wrote since still watches.
 */
import type { Clock } from '../domain/clock.js'

/**
 * The shortest pause before a check, whatever the round trips measured; and the longest round trip
 * of a read from which the shared comment is updated before this leg's result is on GitHub.
 */
const MIN_PAUSE_MS = 250

/** Round trips to GitHub, timed, and the pauses they call for. */
export class Pacing {
  /** This leg's slowest round trip, and the slowest that other legs wrote in the comment (ms). */
  slowest = 0
  others = 0
  /** The round trip of the last read. */
  private lastRead = Infinity

  constructor(
    private readonly options: {
      clock: Clock
      /** Jitter of the pauses, so that legs drift apart. */
      random: () => number
      /** When (on `clock`) everything must be done. */
      deadline: number
      signal?: AbortSignal
    }
  ) {}

  /** `call`, timed; a read's time is kept for `fresh`. */
  async trip<T>(call: () => Promise<T>, kind: 'read' | 'write' = 'write'): Promise<T> {
    const start = this.options.clock.now()
    try {
      return await call()
    } finally {
      const took = this.options.clock.now() - start
      this.slowest = Math.max(this.slowest, took)
      if (kind === 'read') this.lastRead = took
    }
  }

  /** Whether a write sent now lands within the shortest watch of any leg after the last read. */
  fresh(): boolean {
    return this.lastRead <= MIN_PAUSE_MS
  }

  /**
   * Pauses before the next check: 1 to 2 times the longest of MIN_PAUSE_MS and the round trips
   * known, cut to what leaves time for the check; false, without a pause, when not even the
   * shortest of those fits before the deadline.
   */
  async pause(): Promise<boolean> {
    const { clock, random, deadline, signal } = this.options
    signal?.throwIfAborted()
    const floor = Math.max(MIN_PAUSE_MS, this.slowest, this.others)
    const left = deadline - clock.now() - 2 * this.slowest
    if (left < floor) return false
    await clock.sleep(Math.min(floor * (1 + random()), left), signal)
    return true
  }
}
