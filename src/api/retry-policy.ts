import type { Clock } from '../domain/clock.js'
import { ApiError, DeadlineExceededError, NetworkError, NotJsonError } from '../domain/errors.js'

/** Statuses that say "try again later"; every request of the action is a GET, so retrying is safe. */
const RETRYABLE_STATUSES = new Set([408, 423, 429, 500, 502, 503, 504])

/**
 * The recovery bound: no wait, a retry's or a poll's, is longer than this many intervals, unless a
 * Retry-After asks for longer (then at most one interval more than it asks). However long trouble
 * lasts, the request after it ends comes within this bound.
 */
export const RECOVERY_INTERVALS = 3
/**
 * The first retry goes out at most this many intervals after `max(Retry-After, interval)`, and at
 * least FIRST_RETRY_JITTER less: as late as that allows, never all at the same moment.
 */
const FIRST_RETRY_LATEST = 1
const FIRST_RETRY_JITTER = 0.1
/** Later retries, the gate's own consecutive failures, spread over this many intervals. */
const LATER_RETRY_INTERVALS = 2
/** A request without an answer is cut after the recovery bound, but never this soon... */
const SHORTEST_REQUEST_LIMIT_MS = 10_000
/** ...nor later than this. */
const LONGEST_REQUEST_LIMIT_MS = 30_000

/**
 * How long one request may go without an answer: RECOVERY_INTERVALS intervals (15 s at the
 * default interval), so that a server that stops answering costs a gate no more than any other
 * trouble once it answers again; at least 10 s, so that a short interval does not cut a slow but
 * working answer (with `interval` under 3⅓ s the bound after time-outs is 10 s), and at most 30 s.
 */
export function requestTimeLimitMs(intervalMs: number): number {
  return Math.min(
    LONGEST_REQUEST_LIMIT_MS,
    Math.max(SHORTEST_REQUEST_LIMIT_MS, RECOVERY_INTERVALS * intervalMs)
  )
}

export interface RetryDecision {
  delayMs: number
  /** Why: `HTTP 429, Retry-After 3` or `no answer (ECONNRESET)`. */
  reason: string
}

/**
 * What a retry is paced by, read when the retry is decided, after the answer that asked for it (a
 * 429 has already slowed the pace): `minimumMs` is the interval (during a wait), never undercut,
 * and the unit of the spread and of the recovery bound; `nextPollMs`, the wait the next poll would
 * have now, is not undercut either by a retry after an error other than a 429.
 */
export interface RetryPacing {
  minimumMs: number
  nextPollMs: number
}

export interface RetryPolicyOptions {
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number
}

/**
 * When to retry and how long to wait first. A wait after an answer (a 429, a 5xx) counts from the
 * answer; a wait after no answer (a reset, a time-out) counts from the start of the request, whose
 * time went by without a word from the server (so a request cut after 3 intervals is retried at
 * once). Each wait is measured from a floor: after a 429,
 * `max(Retry-After, interval)` (never sooner than the server says, never faster than polling); after
 * a 5xx, 408, 423, a reset or a time-out, the next poll's wait. The first retry goes out late in the
 * interval after its floor, the later ones (the gate's own consecutive failures) anywhere in the two
 * intervals after it; no wait is longer than RECOVERY_INTERVALS intervals, or one interval past a
 * longer Retry-After. So a lone gate is back within that bound once trouble ends, however long it
 * lasted, and the fleet's courtesy comes from the pace (src/api/pace.ts), which every 429 slows.
 *
 * Why late, and never exactly on the floor: a sliding window's Retry-After names when its first
 * slot frees, and every gate refused in the same crunch hears the same moment; the window frees
 * slots at the pace it admitted requests a window ago, so the later in the allowed interval the
 * refused gates come back, the more room they find (the discrete-event simulation,
 * `npm run simulate`, and docs/benchmarks.md have the numbers).
 */
export class RetryPolicy {
  private readonly random: () => number

  constructor(options: RetryPolicyOptions = {}) {
    this.random = options.random ?? Math.random
  }

  /**
   * The wait before retry number `attempt` (1 = first retry), from now, or undefined: do not retry.
   * `wallNow` (epoch ms) is what a Retry-After date is compared with; `spentMs`, how long a request
   * that got no answer went on, is counted as waited already.
   */
  decide(
    error: unknown,
    attempt: number,
    wallNow: number,
    pacing: RetryPacing,
    spentMs = 0
  ): RetryDecision | undefined {
    if (error instanceof NetworkError) {
      const delayMs = Math.max(0, this.backoff(attempt, pacing) - spentMs)
      const what = error instanceof NotJsonError ? 'a body that is not JSON' : 'no answer'
      return { delayMs, reason: `${what} (${error.detail})` }
    }
    if (!(error instanceof ApiError) || !RETRYABLE_STATUSES.has(error.status)) return undefined
    const retryAfterMs = parseRetryAfter(error.retryAfter, wallNow)
    const reason =
      retryAfterMs !== undefined
        ? `HTTP ${error.status}, Retry-After ${error.retryAfter}`
        : `HTTP ${error.status}`
    const askedMs = retryAfterMs ?? 0
    const fromMs =
      error.status === 429
        ? Math.max(pacing.minimumMs, askedMs)
        : Math.max(askedMs, this.nextPollFloor(pacing))
    const capMs = Math.max(RECOVERY_INTERVALS * pacing.minimumMs, askedMs + pacing.minimumMs)
    return { delayMs: this.spread(attempt, fromMs, pacing.minimumMs, capMs), reason }
  }

  /** A retry after an error other than a 429, without Retry-After, from the failed request's start. */
  backoff(attempt: number, pacing: RetryPacing): number {
    const capMs = RECOVERY_INTERVALS * pacing.minimumMs
    return this.spread(attempt, this.nextPollFloor(pacing), pacing.minimumMs, capMs)
  }

  /** The next poll's wait, never under the minimum nor past the recovery bound. */
  private nextPollFloor({ minimumMs, nextPollMs }: RetryPacing): number {
    return Math.max(minimumMs, Math.min(nextPollMs, RECOVERY_INTERVALS * minimumMs))
  }

  /**
   * After `fromMs`: on the first retry, late in the interval after it (its last tenth, at random);
   * on later ones, anywhere in the two intervals after it; never past `capMs`.
   */
  private spread(attempt: number, fromMs: number, intervalMs: number, capMs: number): number {
    const share =
      attempt === 1
        ? FIRST_RETRY_LATEST - FIRST_RETRY_JITTER * this.random()
        : LATER_RETRY_INTERVALS * this.random()
    return Math.round(Math.min(capMs, fromMs + share * intervalMs))
  }
}

/** Retry-After is either delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export interface RetryContext {
  policy: RetryPolicy
  clock: Clock
  /** What retries are paced by, read at each retry. */
  pacing: () => RetryPacing
  /**
   * Monotonic time (clock.now()) after which no retry is started: one for every retry, or the one
   * for a retry after this error, read at each retry.
   */
  deadline: number | ((error: unknown) => number)
  signal?: AbortSignal
  /** Each failed attempt, retried or not. */
  onFailure?: (error: unknown) => void
  onRetry?: (decision: RetryDecision, error: Error, attempt: number) => void
}

/**
 * Runs `attempt` until it succeeds, the policy says the error is final, or the next wait would end
 * past the deadline (then DeadlineExceededError, carrying the last error).
 */
export async function withRetries<T>(attempt: () => Promise<T>, context: RetryContext): Promise<T> {
  for (let retry = 1; ; retry++) {
    const startedAt = context.clock.now()
    try {
      return await attempt()
    } catch (error) {
      if (context.signal?.aborted) throw error
      context.onFailure?.(error)
      const now = context.clock.now()
      const decision = context.policy.decide(
        error,
        retry,
        context.clock.wallNow(),
        context.pacing(),
        now - startedAt
      )
      if (decision === undefined) throw error
      const lastError = error as Error
      const deadline =
        typeof context.deadline === 'number' ? context.deadline : context.deadline(error)
      if (now + decision.delayMs > deadline) {
        const { reason, delayMs } = decision
        throw new DeadlineExceededError(lastError, { reason, delayMs, leftMs: deadline - now })
      }
      context.onRetry?.(decision, lastError, retry)
      await context.clock.sleep(decision.delayMs, context.signal)
    }
  }
}
