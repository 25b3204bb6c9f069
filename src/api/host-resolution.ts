/*
 * Whether the API's host name resolves, over the run's requests. A runner's resolver fails briefly
 * now and then, so a name that does not resolve is retried for RECOVERY_INTERVALS intervals from
 * the first such answer; a name that never resolved before the deadline is a misspelled api_host.
 */
import type { Clock } from '../domain/clock.js'
import { formatDuration } from '../domain/duration.js'
import { DeadlineExceededError, UnrecoverableRequestError } from '../domain/errors.js'
import type { Pace } from './pace.js'
import { RECOVERY_INTERVALS } from './retry-policy.js'
import type { TransportError } from './transport-error.js'

export class HostResolution {
  /** When the host name first failed to resolve, in the streak of such failures now running. */
  private unresolvedSince?: number
  /** The last such failure, and what to check for it. */
  private lastUnresolved?: { detail: string; culprit: TransportError['culprit'] }
  /** Whether a host name of this run resolved at least once (an answer, or another failure). */
  private resolvedOnce = false

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly pace: Pace
  ) {}

  /** An answer came: the name resolved. */
  resolved(): void {
    this.unresolvedSince = undefined
    this.resolvedOnce = true
  }

  /**
   * A host name that does not resolve is retried for RECOVERY_INTERVALS intervals from the first
   * such answer; past that, it is an error.
   */
  check(error: TransportError, endpoint: string, detail: string): void {
    if (!error.unresolved) {
      this.resolved()
      return
    }
    this.lastUnresolved = { detail, culprit: error.culprit }
    const now = this.clock.now()
    this.unresolvedSince ??= now
    const lastedMs = now - this.unresolvedSince
    if (lastedMs >= RECOVERY_INTERVALS * this.pace.intervalMs) {
      throw new UnrecoverableRequestError(
        endpoint,
        `${detail}; the name has not resolved for ${formatDuration(lastedMs)}`,
        error.culprit
      )
    }
  }

  /**
   * The deadline came while no host name of this run had ever resolved (every request failed so):
   * a misspelled api_host, not a gate that waited too long. It ends as the error it would have
   * become after RECOVERY_INTERVALS intervals, naming what to check, also when `timeout` is shorter
   * than that. A name that resolved once and then failed is the resolver's moment: a timeout.
   */
  async toTheEnd<T>(endpoint: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (error) {
      const last = this.lastUnresolved
      const neverResolved = !this.resolvedOnce && this.unresolvedSince !== undefined && last
      if (!(error instanceof DeadlineExceededError) || !neverResolved) throw error
      throw new UnrecoverableRequestError(
        endpoint,
        `${last.detail}; the name never resolved before the timeout ran out`,
        last.culprit
      )
    }
  }
}
