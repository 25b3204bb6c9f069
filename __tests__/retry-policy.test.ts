import { describe, expect, it } from '@jest/globals'
import { ApiError, DeadlineExceededError, NetworkError } from '../src/domain/errors.js'
import {
  parseRetryAfter,
  requestTimeLimitMs,
  RetryPolicy,
  withRetries
} from '../src/api/retry-policy.js'
import { FakeClock } from './support/time/clock.js'

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

  it('after a first 429, the retry goes out within one interval after max(Retry-After, interval)', () => {
    for (const random of [0, 0.5, 0.999999]) {
      const policy = new RetryPolicy({ random: () => random })
      for (const [retryAfter, intervalMs] of [
        ['12', 5000],
        ['3', 5000],
        ['3', 1000],
        ['0', 5000],
        [undefined, 5000],
        ['Sat, 21 Nov 2026 11:00:00 GMT', 5000]
      ] as const) {
        const now = Date.parse('2026-11-21T12:00:00Z')
        const from = Math.max(intervalMs, parseRetryAfter(retryAfter, now) ?? 0)
        const delay = policy.decide(
          apiError(429, retryAfter),
          1,
          now,
          paced(intervalMs, 4 * intervalMs)
        )!.delayMs
        // Never sooner than Retry-After nor the interval; late in the interval after that, never
        // all at the same moment.
        expect(delay).toBeGreaterThanOrEqual(from + 0.9 * intervalMs)
        expect(delay).toBeLessThanOrEqual(from + intervalMs)
      }
    }
    expect(
      new RetryPolicy({ random: () => 0 }).decide(apiError(429, '12'), 1, 0, paced(5000))
    ).toEqual({ delayMs: 17_000, reason: 'HTTP 429, Retry-After 12' })
  })

  it.each([
    ['429 without Retry-After', apiError(429)],
    ['429 with Retry-After: 1', apiError(429, '1')],
    ['503', apiError(503)],
    ['408', apiError(408)],
    ['423', apiError(423)],
    ['a reset', new NetworkError('GET /x', 'ECONNRESET')],
    ['a time-out', new NetworkError('GET /x', 'no answer within 30.0 s')]
  ])(
    'after %s every wait lies between 1 and 3 intervals, however long the trouble',
    (_kind, error) => {
      for (const random of [0, 0.5, 0.999999]) {
        const policy = new RetryPolicy({ random: () => random })
        for (const intervalMs of [1000, 5000, 60_000]) {
          for (let attempt = 1; attempt <= 30; attempt++) {
            // Even when the pace has slowed the next poll far past the bound.
            const delay = policy.decide(
              error,
              attempt,
              0,
              paced(intervalMs, 20 * intervalMs)
            )!.delayMs
            expect(delay).toBeGreaterThanOrEqual(intervalMs)
            expect(delay).toBeLessThanOrEqual(3 * intervalMs)
          }
        }
      }
    }
  )

  it('a Retry-After longer than 2 intervals is honoured, and waited at most one interval past', () => {
    for (const random of [0, 0.5, 0.999999]) {
      const policy = new RetryPolicy({ random: () => random })
      for (let attempt = 1; attempt <= 10; attempt++) {
        for (const status of [429, 503]) {
          const delay = policy.decide(apiError(status, '30'), attempt, 0, paced(5000))!.delayMs
          expect(delay).toBeGreaterThanOrEqual(30_000)
          expect(delay).toBeLessThanOrEqual(35_000)
        }
      }
    }
  })

  it('other errors wait from the next poll’s wait (within the bound), the first retry late in the interval after it', () => {
    const low = new RetryPolicy({ random: () => 0 })
    const high = new RetryPolicy({ random: () => 0.999999 })
    expect(low.backoff(1, paced(5000))).toBe(10_000)
    expect(high.backoff(1, paced(5000))).toBe(9500)
    expect(low.backoff(1, paced(5000, 7000))).toBe(12_000)
    // Later retries: anywhere in the two intervals after the floor, capped at 3 intervals.
    expect(low.backoff(2, paced(5000))).toBe(5000)
    expect(high.backoff(2, paced(5000))).toBe(15_000)
    expect(high.backoff(2, paced(5000, 12_000))).toBe(15_000)
    expect(low.backoff(2, paced(5000, 60_000))).toBe(15_000)
  })

  it('after no answer, counts the time the request went on as waited; after an answer, waits in full', () => {
    const policy = new RetryPolicy({ random: () => 0 })
    const cut = new NetworkError('GET /x', 'no answer within 15.0 s')
    // A request cut after 15 s at interval 5 s: the next goes out at once (15 s after the last).
    expect(policy.decide(cut, 1, 0, paced(5000), 15_000)!.delayMs).toBe(0)
    expect(policy.decide(cut, 1, 0, paced(5000), 4000)!.delayMs).toBe(6000)
    // A slow answer: its wait, and its Retry-After, count from the answer.
    expect(policy.decide(apiError(503), 1, 0, paced(5000), 8000)!.delayMs).toBe(10_000)
    expect(policy.decide(apiError(429, '3'), 1, 0, paced(1000), 10_000)!.delayMs).toBe(4000)
  })

  it('cuts a request without an answer at the recovery bound, within 10 and 30 s', () => {
    expect(requestTimeLimitMs(5000)).toBe(15_000)
    expect(requestTimeLimitMs(1000)).toBe(10_000)
    expect(requestTimeLimitMs(8000)).toBe(24_000)
    expect(requestTimeLimitMs(300_000)).toBe(30_000)
  })

  it('spreads the later retries of gates refused together over two intervals', () => {
    // 400 gates whose random draws cover [0, 1) evenly: the spread is the policy's, not luck's.
    let draw = 0
    const policy = new RetryPolicy({ random: () => (draw++ + 0.5) / 400 })
    const waits = Array.from({ length: 400 }, () => policy.backoff(3, paced(1000)))
    const tenths = new Set(waits.map((wait) => Math.floor(wait / 250)))
    // From 1 s to 3 s, in every quarter second of it, none holding most of them.
    expect([...tenths].sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8, 9, 10, 11])
    for (const tenth of tenths) {
      expect(waits.filter((wait) => Math.floor(wait / 250) === tenth).length).toBeLessThan(200)
    }
  })

  it('a long interval: the waits follow it', () => {
    const policy = new RetryPolicy({ random: () => 0.5 })
    expect(policy.backoff(1, paced(300_000))).toBe(585_000)
    expect(policy.backoff(4, paced(300_000))).toBe(600_000)
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
    // 503: the first retry late in the interval after the next poll; 429 with Retry-After 3: from
    // it; the reset: from the next poll's wait, anywhere in the two intervals after it.
    expect(clock.sleeps).toEqual([2000, 3000, 1000])
    expect(retries).toEqual(clock.sleeps)
  })

  it('reads the pacing at each retry, after the answer that slowed it, within the bound', async () => {
    const clock = new FakeClock(0)
    let paceMs = 1000
    await withRetries(
      async () => {
        throw apiError(503)
      },
      {
        policy: new RetryPolicy({ random: () => 0.999999 }),
        clock,
        pacing: () => paced(1000, paceMs),
        deadline: 12_000,
        onFailure: () => (paceMs *= 2)
      }
    ).catch(() => undefined)
    // From the next poll's wait, read after each failure doubled it (2, 4, 8, 16 s), never past 3 s.
    expect(clock.sleeps).toEqual([2900, 3000, 3000, 3000])
  })

  it('a request that hung until its limit: the retry follows at once, and recovery stays within 3 intervals', async () => {
    const clock = new FakeClock(0)
    const starts: number[] = []
    const limitMs = requestTimeLimitMs(5000)
    await withRetries(
      async () => {
        starts.push(clock.now())
        if (starts.length < 4) {
          clock.advance(limitMs)
          throw new NetworkError('GET /x', `no answer within ${limitMs} ms`)
        }
        return 'read'
      },
      {
        policy: new RetryPolicy({ random: () => 0.999999 }),
        clock,
        pacing: () => paced(5000),
        deadline: 300_000
      }
    )
    // Whenever the server answers again, the next request is at most 15 s (3 intervals) away.
    expect(starts).toEqual([0, 15_000, 30_000, 45_000])
    expect(clock.sleeps).toEqual([0, 0, 0])
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
    // Time was left: it says that no retry fits, with the numbers, never that time ran out.
    expect((error as DeadlineExceededError).noRetryFits).toBe(
      'no retry fits before the deadline: the retry after HTTP 429, Retry-After 120 would wait 2 min 01 s, with 30.0 s of the timeout left'
    )
    expect((error as Error).message).toMatch(/left; last error: .* failed with HTTP 429$/)
  })

  it('a retry decided with no time left is the timeout that ran out, not "no retry fits"', async () => {
    const clock = new FakeClock(0)
    const error = await withRetries(
      async () => {
        clock.advance(31_000)
        throw apiError(503)
      },
      { policy: new RetryPolicy(), clock, pacing: () => paced(1000), deadline: 30_000 }
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect((error as DeadlineExceededError).noRetryFits).toBeUndefined()
    expect((error as Error).message).toMatch(/^last error: .* failed with HTTP 503$/)
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
