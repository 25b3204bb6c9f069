import type { Clock } from './clock.js'
import { ApiError, DeadlineExceededError, NetworkError } from './errors.js'

/** Statuses that say "try again later"; every request of the action is a GET, so retrying is safe. */
const RETRYABLE_STATUSES = new Set([408, 423, 429, 500, 502, 503, 504])

export interface RetryDecision {
  delayMs: number
  /** Why: `HTTP 429, Retry-After 3` or `connection error`. */
  reason: string
}

export interface RetryPolicyOptions {
  initialDelayMs?: number
  maxDelayMs?: number
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number
}

/**
 * When to retry and how long to wait first. Retry-After (seconds or an HTTP date) is honoured and
 * never shortened; otherwise the wait grows exponentially from `initialDelayMs` to `maxDelayMs`,
 * each wait drawn from the upper half of its step (so never below `initialDelayMs`).
 */
export class RetryPolicy {
  readonly initialDelayMs: number
  readonly maxDelayMs: number
  private readonly random: () => number

  constructor(options: RetryPolicyOptions = {}) {
    this.initialDelayMs = options.initialDelayMs ?? 1000
    this.maxDelayMs = options.maxDelayMs ?? 60_000
    this.random = options.random ?? Math.random
  }

  /** The wait before retry number `attempt` (1 = first retry), or undefined: do not retry. */
  decide(error: unknown, attempt: number, now: number): RetryDecision | undefined {
    if (error instanceof NetworkError) {
      return { delayMs: this.backoff(attempt), reason: `no answer (${error.detail})` }
    }
    if (!(error instanceof ApiError) || !RETRYABLE_STATUSES.has(error.status)) return undefined
    const retryAfterMs = parseRetryAfter(error.retryAfter, now)
    if (retryAfterMs !== undefined) {
      return {
        delayMs: Math.max(retryAfterMs, this.initialDelayMs),
        reason: `HTTP ${error.status}, Retry-After ${error.retryAfter}`
      }
    }
    return { delayMs: this.backoff(attempt), reason: `HTTP ${error.status}` }
  }

  backoff(attempt: number): number {
    const step = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** Math.max(0, attempt - 1))
    return Math.max(this.initialDelayMs, Math.round(step / 2 + (this.random() * step) / 2))
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
  /** Absolute time (clock.now()) after which no retry is started. */
  deadline: number
  signal?: AbortSignal
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
      const decision = context.policy.decide(error, retry, context.clock.now())
      if (decision === undefined) throw error
      const lastError = error as Error
      if (context.clock.now() + decision.delayMs > context.deadline) {
        throw new DeadlineExceededError(lastError)
      }
      context.onRetry?.(decision, lastError, retry)
      await context.clock.sleep(decision.delayMs, context.signal)
    }
  }
}
