/*
 * The API's clock (api-clock.ts): the runner's monotonic time, and wall time set by the answers'
 * Date headers. Over the local API server, skewed both ways, in simulated/api-clock.test.ts and
 * e2e/api-clock.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { ApiClock, CLOCK_SKEW_WARNING_MS } from '../src/api/api-clock.js'
import { FakeClock } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'

const NOW = Date.parse('2026-11-23T10:00:00.250Z')
const httpDate = (ms: number) => new Date(ms).toUTCString()

/** An ApiClock over a fake runner clock at NOW; `answer` observes a Date header for a request of `tookMs` that ends now. */
function apiClock() {
  const runner = new FakeClock(NOW)
  const { logger, lines } = collectingLogger()
  const clock = new ApiClock(runner, logger)
  const answer = (date: string | undefined, tookMs = 100) => {
    const sentAt = runner.now()
    runner.advance(tookMs)
    clock.observe(date, sentAt)
  }
  return { runner, clock, answer, lines }
}

describe('ApiClock', () => {
  it("is the runner's clock until an answer says otherwise: monotonic time and sleeps are the runner's", async () => {
    const { runner, clock } = apiClock()
    expect(clock.now()).toBe(NOW)
    expect(clock.wallNow()).toBe(NOW)
    await clock.sleep(5000)
    expect(runner.sleeps).toEqual([5000])
    expect(clock.now()).toBe(NOW + 5000)
    const controller = new AbortController()
    controller.abort(new Error('cancelled'))
    await expect(clock.sleep(1, controller.signal)).rejects.toThrow('cancelled')
  })

  it('a Date header in step with the runner (the same second, within the exchange) changes nothing', () => {
    const { clock, answer, lines } = apiClock()
    // The request went out at .250 and the answer came at .350, both in second :00.
    answer(httpDate(NOW))
    expect(clock.wallNow()).toBe(NOW + 100)
    // An exchange that spans a second boundary is in step with either second.
    answer(httpDate(NOW + 1000), 800)
    expect(clock.wallNow()).toBe(NOW + 900)
    expect(lines).toEqual([])
  })

  it('a Date header out of step sets the clock to the middle of its second at the middle of the exchange', () => {
    const { clock, answer, lines } = apiClock()
    // 16 minutes behind the runner: the answer names second :00 of 09:44.
    answer(httpDate(NOW - 16 * 60_000), 200)
    const middle = NOW + 100
    const serverThen = Date.parse(httpDate(NOW - 16 * 60_000)) + 500
    expect(clock.wallNow()).toBe(serverThen + (NOW + 200 - middle))
    expect(lines).toEqual([
      "warning: The runner's clock is 16 min 00 s ahead of the API's (its Date header): one of them is wrong, so each age the gate words is the least either clock allows"
    ])
    // In step now: kept, and not warned about again.
    answer(httpDate(clock.wallNow() + 100))
    expect(lines).toHaveLength(1)
  })

  it('just off by more than the second: set, no warning under 60 s; a later larger skew is warned once', () => {
    const { clock, answer, lines } = apiClock()
    answer(httpDate(NOW + 3000))
    expect(clock.wallNow() - (NOW + 100)).toBe(3000 + 500 - 250 - 50)
    expect(lines).toEqual([])
    answer(httpDate(NOW + 2 * 60 * 60_000))
    answer(httpDate(NOW - 2 * 60 * 60_000))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^warning: The runner's clock is 2 h 00 min behind the API's/)
  })

  it('the warning is for more than 60 s off, either way', () => {
    const off = (ms: number) => {
      const { answer, lines } = apiClock()
      // Exchange from .250 to .250 (no time): the server's second, its middle at .500.
      answer(httpDate(NOW - 250 + 500 + ms), 0)
      return lines.length
    }
    expect(off(CLOCK_SKEW_WARNING_MS - 1000)).toBe(0)
    expect(off(-(CLOCK_SKEW_WARNING_MS - 1000))).toBe(0)
    expect(off(CLOCK_SKEW_WARNING_MS + 1000)).toBe(1)
    expect(off(-(CLOCK_SKEW_WARNING_MS + 1000))).toBe(1)
  })

  it("disagrees (the API's minus the runner's) only past the warning's 60 s, either way", () => {
    const off = (ms: number) => {
      const { clock, answer } = apiClock()
      answer(httpDate(NOW - 250 + 500 + ms), 0)
      return clock.disagreementMs()
    }
    // The header's whole second, its middle (.500) at the exchange (.250): 250 ms more.
    expect(off(CLOCK_SKEW_WARNING_MS - 1000)).toBe(0)
    expect(off(-(CLOCK_SKEW_WARNING_MS - 1000))).toBe(0)
    expect(off(CLOCK_SKEW_WARNING_MS + 1000)).toBe(CLOCK_SKEW_WARNING_MS + 1250)
    expect(off(-(CLOCK_SKEW_WARNING_MS + 1000))).toBe(-(CLOCK_SKEW_WARNING_MS + 750))
    expect(apiClock().clock.disagreementMs()).toBe(0)
  })

  it('no Date header, or one that cannot be read, changes nothing', () => {
    const { clock, answer, lines } = apiClock()
    for (const date of [undefined, '', 'yesterday']) answer(date, 0)
    expect(clock.wallNow()).toBe(NOW)
    expect(lines).toEqual([])
  })
})

describe('ApiClock: a runner in step keeps its milliseconds', () => {
  it('a request that crosses a second boundary is in step with the second it was sent in, and the one it was answered in', () => {
    // Sent at :00.250, answered at :01.050: the server wrote its Date in either second.
    for (const date of [httpDate(NOW), httpDate(NOW + 1000)]) {
      const { clock, answer, lines } = apiClock()
      answer(date, 800)
      expect([date, clock.wallNow()]).toEqual([date, NOW + 800])
      expect(clock.disagreementMs()).toBe(0)
      expect(lines).toEqual([])
    }
  })
})
