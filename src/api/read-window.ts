/*
 * Reading once (`wait: false`, or a sweep), the time a request may go on without a usable answer:
 * RECOVERY_INTERVALS intervals from its start, before that is an error. The waits a 429 asks for do
 * not count: a rate limit is the API answering, so a sweep over hundreds of pages rides a storm of
 * them out until `timeout`, while silence, a 5xx or a proxy's page still ends the read within
 * 3 intervals. Unset while waiting: then a request retries until the deadline.
 */
import { ApiError } from '../domain/errors.js'

/** A 429: the API answered, asking for a wait. */
export function rateLimited(error: unknown): boolean {
  return error instanceof ApiError && error.status === 429
}

export class ReadWindow {
  private endsAt: number

  /** From `now`, `withinMs` long (undefined: no window), within the run's `deadline`. */
  constructor(
    now: number,
    withinMs: number | undefined,
    private readonly deadline: number
  ) {
    this.endsAt = withinMs === undefined ? Infinity : now + withinMs
  }

  /** When the request gives up (monotonic clock time); Infinity without a window. */
  get giveUpAt(): number {
    return this.endsAt
  }

  /**
   * Whether the window, not the run's deadline, ended a read whose last error was `lastError` (then
   * it is no timeout): never after a 429, whose retries only the deadline ends.
   */
  endedRead(lastError: unknown): boolean {
    return !rateLimited(lastError) && this.endsAt <= this.deadline
  }

  /**
   * The last moment a retry after `error` may start: the deadline after a 429; else before the
   * window's end, as a request started when it ends has no time (the least, 1 ms, goes unanswered).
   */
  retryDeadline(error: unknown): number {
    return rateLimited(error) ? this.deadline : Math.min(this.deadline, this.endsAt - 1)
  }

  /** A retry after `error` is about to wait `delayMs`: a 429's wait moves the window's end on. */
  waiting(error: unknown, delayMs: number): void {
    if (rateLimited(error)) this.endsAt += delayMs
  }
}
