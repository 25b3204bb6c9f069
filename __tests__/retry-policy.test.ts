import { describe, expect, it } from '@jest/globals'
import { ApiError, DeadlineExceededError, NetworkError } from '../src/errors.js'
import { parseRetryAfter, RetryPolicy, withRetries } from '../src/retry-policy.js'
import { FakeClock } from './fixtures/fake-clock.js'

/** Pacing with the next poll at the minimum, as a gate that met no 429. */
const paced = (minimumMs: number, nextPollMs = minimumMs) => ({ minimumMs, nextPollMs })

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
      expect(policy.decide(apiError(status), 1, 0, paced(1000))).toBeDefined()
    }
    expect(policy.decide(new NetworkError('GET /x', 'ECONNRESET'), 1, 0, paced(1000))).toBeDefined()
    for (const status of [301, 302, 400, 401, 403, 404, 409, 422, 501]) {
      expect(policy.decide(apiError(status), 1, 0, paced(1000))).toBeUndefined()
    }
    expect(policy.decide(new Error('bug'), 1, 0, paced(1000))).toBeUndefined()
  })

  it('honours a Retry-After longer than the floor and never waits less than it says', () => {
    const policy = new RetryPolicy({ random: () => 0 })
    expect(policy.decide(apiError(429, '12'), 1, 0, paced(5000))).toEqual({
      delayMs: 12_000,
      reason: 'HTTP 429, Retry-After 12'
    })
    // Jitter only ever adds to Retry-After: up to 10 % of it, or the spread of a 429's back-off.
    for (const random of [0.3, 0.999]) {
      const jittered = new RetryPolicy({ random: () => random })
      const delay = jittered.decide(apiError(429, '12'), 1, 0, paced(5000))!.delayMs
      expect(delay).toBeGreaterThanOrEqual(12_000)
      expect(delay).toBeLessThanOrEqual(Math.max(13_200, 40_000 * random))
    }
  })

  it('a Retry-After shorter than the floor (0, a past date) waits the floor: never sooner than the next poll', () => {
    const policy = new RetryPolicy({ random: () => 0 })
    const now = Date.parse('2026-11-21T12:00:00Z')
    expect(policy.decide(apiError(429, '0'), 1, now, paced(5000))?.delayMs).toBe(5000)
    expect(policy.decide(apiError(429, '1'), 1, now, paced(5000))?.delayMs).toBe(5000)
    const past = 'Sat, 21 Nov 2026 11:00:00 GMT'
    expect(policy.decide(apiError(429, past), 1, now, paced(5000))?.delayMs).toBe(5000)
  })

  it.each([
    ['429 without Retry-After', apiError(429)],
    ['503', apiError(503)],
    ['408', apiError(408)],
    ['423', apiError(423)],
    ['a reset', new NetworkError('GET /x', 'ECONNRESET')],
    ['a time-out', new NetworkError('GET /x', 'no answer within 30.0 s')]
  ])('after %s the first retry waits at least the floor', (_kind, error) => {
    for (const random of [0, 0.5, 0.999]) {
      const policy = new RetryPolicy({ random: () => random })
      for (const floor of [1000, 5000, 30_000, 600_000]) {
        expect(policy.decide(error, 1, 0, paced(floor))!.delayMs).toBeGreaterThanOrEqual(floor)
      }
    }
  })

  it('waits the longest of the minimum, the next poll’s wait, and a full-jitter back-off', () => {
    const low = new RetryPolicy({ random: () => 0 })
    const high = new RetryPolicy({ random: () => 0.999999 })
    const doublings = [1, 2, 3, 4, 5, 6, 7]
    // Unlucky draws: never below the minimum, nor sooner than the next poll.
    expect(doublings.map((n) => low.backoff(n, paced(5000)))).toEqual(doublings.map(() => 5000))
    expect(low.backoff(1, paced(5000, 20_000))).toBe(20_000)
    // The back-off's range doubles with each doubling, capped at 60 s.
    expect(doublings.map((n) => high.backoff(n, paced(5000)))).toEqual([
      10_000, 20_000, 40_000, 60_000, 60_000, 60_000, 60_000
    ])
    for (let attempt = 1; attempt < 20; attempt++) {
      const delay = new RetryPolicy().backoff(attempt, paced(1000, 8000))
      expect(delay).toBeGreaterThanOrEqual(8000)
      expect(delay).toBeLessThanOrEqual(60_000)
    }
  })

  it('a 429 without Retry-After spreads its retry four times wider than other errors', () => {
    const high = new RetryPolicy({ random: () => 0.999999 })
    expect(high.decide(apiError(503), 1, 0, paced(5000))?.delayMs).toBe(10_000)
    expect(high.decide(apiError(429), 1, 0, paced(5000))?.delayMs).toBe(40_000)
    expect(high.decide(apiError(429), 2, 0, paced(5000))?.delayMs).toBe(60_000)
    // Retry-After names when the first slot frees, the same for every gate refused with this one:
    // never sooner, but spread as widely.
    expect(high.decide(apiError(429, '3'), 1, 0, paced(5000))?.delayMs).toBe(40_000)
    expect(high.decide(apiError(429, '50'), 1, 0, paced(5000))?.delayMs).toBe(55_000)
  })

  it('spreads the retries of many gates refused together over the back-off range', () => {
    const policy = new RetryPolicy()
    const waits = Array.from({ length: 400 }, () => policy.backoff(3, paced(1000)))
    const seconds = new Set(waits.map((wait) => Math.floor(wait / 1000)))
    // From 1 s (the minimum) to 8 s: every second of it gets some of them, none gets most.
    expect([...seconds].sort()).toEqual([1, 2, 3, 4, 5, 6, 7])
    for (const second of seconds) {
      expect(waits.filter((wait) => Math.floor(wait / 1000) === second).length).toBeLessThan(200)
    }
  })

  it('a minimum above 60 s (a long interval) is the wait itself', () => {
    const policy = new RetryPolicy({ random: () => 0.999 })
    expect(policy.backoff(1, paced(300_000))).toBe(300_000)
    expect(policy.backoff(4, paced(300_000))).toBe(300_000)
  })

  it('draws different waits for the same attempt (jitter)', () => {
    const values = [0.1, 0.9]
    const policy = new RetryPolicy({ random: () => values.shift() ?? 0 })
    expect(policy.backoff(2, paced(1000))).not.toBe(policy.backoff(2, paced(1000)))
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
        pacing: () => paced(1000),
        deadline: 60_000,
        onRetry: (decision) => retries.push(decision.delayMs)
      }
    )
    expect(value).toBe('ok')
    expect(calls).toBe(4)
    expect(clock.sleeps).toEqual([1000, 3000, 1000])
    expect(retries).toEqual(clock.sleeps)
  })

  it('reads the pacing at each retry, after the answer that slowed it', async () => {
    const clock = new FakeClock(0)
    let paceMs = 1000
    await withRetries(
      async () => {
        throw apiError(429)
      },
      {
        policy: new RetryPolicy({ random: () => 0 }),
        clock,
        pacing: () => paced(1000, paceMs),
        deadline: 20_000,
        onFailure: () => (paceMs *= 2)
      }
    ).catch(() => undefined)
    // The next poll's wait, read after each 429 doubled it: 2, 4, 8 s (16 s would pass 20 s).
    expect(clock.sleeps).toEqual([2000, 4000, 8000])
  })

  it('does not retry a final error', async () => {
    const clock = new FakeClock(0)
    await expect(
      withRetries(
        async () => {
          throw apiError(401)
        },
        { policy: new RetryPolicy(), clock, pacing: () => paced(1000), deadline: 60_000 }
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
      { policy: new RetryPolicy(), clock, pacing: () => paced(1000), deadline: 30_000 }
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect((error as DeadlineExceededError).lastError).toMatchObject({ status: 429 })
    expect(clock.sleeps).toEqual([])
  })

  it('tells every failure, retried or not', async () => {
    const clock = new FakeClock(0)
    const seen: unknown[] = []
    const failures = [apiError(429), apiError(404)]
    await withRetries(
      async () => {
        throw failures.shift()
      },
      {
        policy: new RetryPolicy({ random: () => 0 }),
        clock,
        pacing: () => paced(1000),
        deadline: 60_000,
        onFailure: (error) => seen.push(error)
      }
    ).catch(() => undefined)
    expect(seen.map((error) => (error as ApiError).status)).toEqual([429, 404])
  })
})
