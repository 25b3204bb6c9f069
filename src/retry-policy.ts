import type { Clock } from './clock.js'
import { ApiError, DeadlineExceededError, NetworkError } from './errors.js'

/** Statuses that say "try again later"; every request of the action is a GET, so retrying is safe. */
const RETRYABLE_STATUSES = new Set([408, 423, 429, 500, 502, 503, 504])
/** Share of a wait added at random, so that gates refused together do not come back together. */
const JITTER = 0.5
/** Share of a Retry-After added at random on top of it (never taken off). */
const RETRY_AFTER_JITTER = 0.1

export interface RetryDecision {
  delayMs: number
  /** Why: `HTTP 429, Retry-After 3` or `no answer (ECONNRESET)`. */
  reason: string
}

export interface RetryPolicyOptions {
  maxDelayMs?: number
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number
}

/**
 * When to retry and how long to wait first. The wait starts at `floorMs` (during a wait: the
 * current polling pace, so a retry never goes out sooner than the next poll would have) and doubles
 * with each retry, with up to 50 % jitter on top, capped at 60 s (or at the floor, if that is
 * longer). A Retry-After (seconds or an HTTP date) that asks for longer wins and is never shortened.
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
    floorMs: number
  ): RetryDecision | undefined {
    if (error instanceof NetworkError) {
      return { delayMs: this.backoff(attempt, floorMs), reason: `no answer (${error.detail})` }
    }
    if (!(error instanceof ApiError) || !RETRYABLE_STATUSES.has(error.status)) return undefined
    const backoffMs = this.backoff(attempt, floorMs)
    const retryAfterMs = parseRetryAfter(error.retryAfter, wallNow)
    if (retryAfterMs !== undefined) {
      const honoured = Math.round(retryAfterMs * (1 + this.random() * RETRY_AFTER_JITTER))
      return {
        delayMs: Math.max(honoured, backoffMs),
        reason: `HTTP ${error.status}, Retry-After ${error.retryAfter}`
      }
    }
    return { delayMs: backoffMs, reason: `HTTP ${error.status}` }
  }

  /** floor × 2^(attempt−1), plus up to 50 % jitter, capped at max(60 s, floor); never below floor. */
  backoff(attempt: number, floorMs: number): number {
    const cap = Math.max(floorMs, this.maxDelayMs)
    const step = Math.min(cap, floorMs * 2 ** Math.max(0, attempt - 1))
    return Math.round(Math.min(cap, step * (1 + this.random() * JITTER)))
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
  /** The first wait before a retry; the policy grows it from there. */
  floorMs: number
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
      const decision = context.policy.decide(error, retry, context.clock.wallNow(), context.floorMs)
      if (decision === undefined) throw error
      const lastError = error as Error
      if (now + decision.delayMs > context.deadline) throw new DeadlineExceededError(lastError)
      context.onRetry?.(decision, lastError, retry)
      await context.clock.sleep(decision.delayMs, context.signal)
    }
  }
}
