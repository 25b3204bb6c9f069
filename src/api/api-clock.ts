/*
 * The API's clock. The API's timestamps (an operation's `created_at`, a `Retry-After` date) are on
 * the server's wall clock, and a runner's can be minutes or hours off (self-hosted runners drift):
 * every comparison with them uses the server's clock as its answers' `Date` header gives it, never
 * the runner's. Deadlines, waits and the pace stay on the runner's monotonic clock.
 */
import type { Clock } from '../domain/clock.js'
import { formatDuration } from '../domain/duration.js'
import type { Logger } from '../domain/logger.js'

/** A runner clock further off than this from the API's is warned about (once). */
export const CLOCK_SKEW_WARNING_MS = 60_000
/** A `Date` header gives whole seconds (RFC 9110's IMF-fixdate). */
const DATE_RESOLUTION_MS = 1000

/** The runner's clock, its wall time set to the API's by the answers' `Date` headers. */
export class ApiClock implements Clock {
  /** The API's wall clock minus the runner's. */
  private offsetMs = 0
  private warned = false

  constructor(
    private readonly runner: Clock,
    private readonly logger: Logger
  ) {}

  now(): number {
    return this.runner.now()
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.runner.sleep(ms, signal)
  }

  /** The API's wall clock: the runner's until an answer's `Date` header disagrees with it. */
  wallNow(): number {
    return this.runner.wallNow() + this.offsetMs
  }

  /** The API's clock minus the runner's, once they are more than CLOCK_SKEW_WARNING_MS apart. */
  disagreementMs(): number {
    return Math.abs(this.offsetMs) > CLOCK_SKEW_WARNING_MS ? this.offsetMs : 0
  }

  /**
   * An answer's `Date` header, for a request sent at `sentAt` (monotonic) and answered now. The
   * server wrote it within that span, in the second it names: while this clock puts some moment of
   * the span in that second it is kept (so a runner in step keeps its milliseconds); else it is set
   * to the middle of that second at the middle of the span, and a runner more than
   * CLOCK_SKEW_WARNING_MS off is warned about once.
   */
  observe(date: string | undefined, sentAt: number): void {
    // An HTTP date (RFC 9110: "Sun, 29 Nov 2026 12:00:00 GMT"), not one of the API's timestamps.
    const second = Date.parse(date ?? '')
    if (Number.isNaN(second)) return
    const answeredAt = this.runner.wallNow()
    const sentAtWall = answeredAt - (this.runner.now() - sentAt)
    const inStep =
      sentAtWall + this.offsetMs < second + DATE_RESOLUTION_MS &&
      answeredAt + this.offsetMs >= second
    if (inStep) return
    this.offsetMs = second + DATE_RESOLUTION_MS / 2 - (sentAtWall + answeredAt) / 2
    if (this.warned || Math.abs(this.offsetMs) <= CLOCK_SKEW_WARNING_MS) return
    this.warned = true
    const side = this.offsetMs < 0 ? 'ahead of' : 'behind'
    this.logger.warning(
      `The runner's clock is ${formatDuration(Math.abs(this.offsetMs))} ${side} the API's (its Date header): one of them is wrong, so each age the gate words is the least either clock allows`
    )
  }
}
