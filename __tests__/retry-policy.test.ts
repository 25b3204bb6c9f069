import { describe, expect, it } from '@jest/globals'
import { ApiError, DeadlineExceededError, NetworkError } from '../src/errors.js'
import { parseRetryAfter, RetryPolicy, withRetries } from '../src/retry-policy.js'
import { FakeClock } from './fixtures/fake-clock.js'

const apiError = (status: number, retryAfter?: string) =>
  new ApiError({ status, endpoint: 'GET /projects', subject: 'the list of projects', retryAfter })

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z')
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7000)
    expect(parseRetryAfter('0.5', now)).toBe(500)
  })
  it('reads an HTTP date', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0)
  })
  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
    expect(parseRetryAfter('soon', now)).toBeUndefined()
  })
})

describe('RetryPolicy', () => {
  it('retries 408, 423, 429, 500, 502, 503, 504 and network errors, nothing else', () => {
    const policy = new RetryPolicy({ random: () => 0 })
    for (const status of [408, 423, 429, 500, 502, 503, 504]) {
      expect(policy.decide(apiError(status), 1, 0)).toBeDefined()
    }
    expect(policy.decide(new NetworkError('GET /x', 'ECONNRESET'), 1, 0)).toBeDefined()
    for (const status of [400, 401, 403, 404, 409, 422, 501]) {
      expect(policy.decide(apiError(status), 1, 0)).toBeUndefined()
    }
    expect(policy.decide(new Error('bug'), 1, 0)).toBeUndefined()
  })

  it('honours Retry-After and never waits less than it says', () => {
    const policy = new RetryPolicy({ random: () => 0 })
    expect(policy.decide(apiError(429, '12'), 1, 0)).toEqual({
      delayMs: 12_000,
      reason: 'HTTP 429, Retry-After 12'
    })
    // Retry-After: 0 does not make the action send at once.
    expect(policy.decide(apiError(429, '0'), 1, 0)?.delayMs).toBe(1000)
  })

  it('backs off exponentially with jitter from 1 s, capped at 60 s', () => {
    const low = new RetryPolicy({ random: () => 0 })
    const high = new RetryPolicy({ random: () => 0.999999 })
    const lows = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((attempt) => low.backoff(attempt))
    const highs = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((attempt) => high.backoff(attempt))
    expect(lows).toEqual([1000, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000])
    expect(highs).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000])
    for (let attempt = 1; attempt < 20; attempt++) {
      const delay = new RetryPolicy().backoff(attempt)
      expect(delay).toBeGreaterThanOrEqual(1000)
      expect(delay).toBeLessThanOrEqual(60_000)
    }
  })

  it('draws different waits for the same attempt (jitter)', () => {
    const values = [0.1, 0.9]
    const policy = new RetryPolicy({ random: () => values.shift() ?? 0 })
    expect(policy.backoff(5)).not.toBe(policy.backoff(5))
  })
})

describe('withRetries', () => {
  it('retries until success, sleeping as the policy says', async () => {
    const clock = new FakeClock(0)
    const failures = [apiError(503), apiError(429, '3'), new NetworkError('GET /x', 'ECONNRESET')]
    let calls = 0
    const retries: number[] = []
    const value = await withRetries(
      async () => {
        calls++
        const failure = failures.shift()
        if (failure) throw failure
        return 'ok'
      },
      {
        policy: new RetryPolicy({ random: () => 0 }),
        clock,
        deadline: 60_000,
        onRetry: (decision) => retries.push(decision.delayMs)
      }
    )
    expect(value).toBe('ok')
    expect(calls).toBe(4)
    expect(clock.sleeps).toEqual([1000, 3000, 2000])
    expect(retries).toEqual(clock.sleeps)
  })

  it('does not retry a final error', async () => {
    const clock = new FakeClock(0)
    await expect(
      withRetries(
        async () => {
          throw apiError(401)
        },
        { policy: new RetryPolicy(), clock, deadline: 60_000 }
      )
    ).rejects.toMatchObject({ status: 401 })
    expect(clock.sleeps).toEqual([])
  })

  it('stops when the next wait would pass the deadline, keeping the last error', async () => {
    const clock = new FakeClock(0)
    const error = await withRetries(
      async () => {
        throw apiError(429, '120')
      },
      { policy: new RetryPolicy(), clock, deadline: 30_000 }
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect((error as DeadlineExceededError).lastError).toMatchObject({ status: 429 })
    expect(clock.sleeps).toEqual([])
  })
})
