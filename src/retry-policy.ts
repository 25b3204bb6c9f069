import type { Clock } from './clock.js'
import { ApiError, DeadlineExceededError, NetworkError } from './errors.js'

/** Statuses that say "try again later"; every request of the action is a GET, so retrying is safe. */
const RETRYABLE_STATUSES = new Set([408, 423, 429, 500, 502, 503, 504])
/** Share of a Retry-After added at random on top of it (never taken off). */
const RETRY_AFTER_JITTER = 0.1

export interface RetryDecision {
  delayMs: number
  /** Why: `HTTP 429, Retry-After 3` or `no answer (ECONNRESET)`. */
  reason: string
}

/** A 429's back-off range is this many doublings wider than other errors'. */
const RATE_LIMIT_SPREAD_DOUBLINGS = 2

/**
 * What a retry is paced by, read when the retry is decided, after the answer that asked for it (a
 * 429 has already slowed the pace): `minimumMs` is never undercut (during a wait: `interval`), nor
 * is `nextPollMs`, the wait the next poll would have now, so a retry never goes out sooner than a
 * poll would.
 */
export interface RetryPacing {
  minimumMs: number
  nextPollMs: number
}

export interface RetryPolicyOptions {
  maxDelayMs?: number
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number
}

/**
 * When to retry and how long to wait first: the longest of three waits. The minimum (`interval`
 * during a wait); the wait of the next poll; and a full-jitter back-off, anywhere from 0 to
 * minimum × 2^attempt. For a 429 that range is four times wider (up to 8 intervals on the first
 * retry): a 429 means the account's window is full, and it frees only as old requests age out, so
 * gates refused in the same crunch spread their retries over that time instead of coming back
 * together into the same full window. Capped at 60 s (or at the minimum, if that is longer). A
 * Retry-After (seconds or an HTTP date) that asks for longer wins and is never shortened; it does
 * not narrow the spread, because it names when the window frees its first slot, and every gate
 * refused in the same second hears the same time.
 */
export class RetryPolicy {
  readonly maxDelayMs: number
  private readonly random: () => number

  constructor(options: RetryPolicyOptions = {}) {
    this.maxDelayMs = options.maxDelayMs ?? 60_000
    this.random = options.random ?? Math.random
  }

  /**
   * The wait before retry number `attempt` (1 = first retry), or undefined: do not retry. `wallNow`
   * (epoch ms) is what a Retry-After date is compared with.
   */
  decide(
    error: unknown,
    attempt: number,
    wallNow: number,
    pacing: RetryPacing
  ): RetryDecision | undefined {
    if (error instanceof NetworkError) {
      return { delayMs: this.backoff(attempt, pacing), reason: `no answer (${error.detail})` }
    }
    if (!(error instanceof ApiError) || !RETRYABLE_STATUSES.has(error.status)) return undefined
    const retryAfterMs = parseRetryAfter(error.retryAfter, wallNow)
    // Retry-After too: a window that frees one slot then has no room for every gate refused with it.
    const spread = error.status === 429 ? attempt + RATE_LIMIT_SPREAD_DOUBLINGS : attempt
    const backoffMs = this.backoff(spread, pacing)
    if (retryAfterMs !== undefined) {
      const honoured = Math.round(retryAfterMs * (1 + this.random() * RETRY_AFTER_JITTER))
      return {
        delayMs: Math.max(honoured, backoffMs),
        reason: `HTTP ${error.status}, Retry-After ${error.retryAfter}`
      }
    }
    return { delayMs: backoffMs, reason: `HTTP ${error.status}` }
  }

  /** max(minimum, next poll, U(0, minimum × 2^doublings)), capped at max(60 s, minimum). */
  backoff(doublings: number, { minimumMs, nextPollMs }: RetryPacing): number {
    const cap = Math.max(minimumMs, this.maxDelayMs)
    const spread = this.random() * Math.min(cap, minimumMs * 2 ** doublings)
    return Math.round(Math.min(cap, Math.max(minimumMs, nextPollMs, spread)))
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
  /** Monotonic time (clock.now()) after which no retry is started. */
  deadline: number
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
        context.pacing()
      )
      if (decision === undefined) throw error
      const lastError = error as Error
      if (now + decision.delayMs > context.deadline) throw new DeadlineExceededError(lastError)
      context.onRetry?.(decision, lastError, retry)
      await context.clock.sleep(decision.delayMs, context.signal)
    }
  }
}
