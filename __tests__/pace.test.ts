import { describe, expect, it } from '@jest/globals'
import { Pace } from '../src/api/pace.js'
import { FakeClock } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'

/** A draw of 0.5 puts a slowed wait at the pace itself: `nextPollDelayMs()` reads the pace. */
const MIDDLE = () => 0.5

function pace(intervalMs = 5000, random = MIDDLE) {
  const { logger, lines } = collectingLogger()
  const clock = new FakeClock(0)
  return { pace: new Pace(intervalMs, clock, logger, random), lines, clock }
}

/** Polls answered without a 429, one every `everyMs` of the clock, until `untilMs`: the waits seen. */
function pollUntil(p: Pace, clock: FakeClock, untilMs: number, everyMs = 1000): number[] {
  const waits: number[] = []
  while (clock.now() + everyMs <= untilMs) {
    clock.advance(everyMs)
    p.onPollDone()
    waits.push(p.nextPollDelayMs())
  }
  return waits
}

/** One poll answered without a 429 at `atMs`: the wait it leaves. */
function pollAt(p: Pace, clock: FakeClock, atMs: number): number {
  clock.time = atMs
  p.onPollDone()
  return p.nextPollDelayMs()
}

describe('Pace', () => {
  it('a gate that meets no 429 polls at exactly interval', () => {
    expect(pace().pace.nextPollDelayMs()).toBe(5000)
    expect(pace(5000, () => 0.999).pace.nextPollDelayMs()).toBe(5000)
  })

  it('while slowed, each wait is the pace ± 25 %, never under interval nor past 3 intervals', () => {
    const low = pace(5000, () => 0).pace
    const high = pace(5000, () => 0.999999).pace
    const middle = pace(5000).pace
    for (const p of [low, high, middle]) for (let i = 0; i < 3; i++) p.onRateLimited()
    expect(middle.nextPollDelayMs()).toBe(15_000)
    expect(low.nextPollDelayMs()).toBe(11_250)
    expect(high.nextPollDelayMs()).toBe(15_000)
    const once = pace(5000, () => 0).pace
    once.onRateLimited()
    expect(once.nextPollDelayMs()).toBe(11_250)
  })

  it('triples on a 429, up to the recovery bound (3 intervals): one 429 at interval reaches it', () => {
    const { pace: p, lines } = pace()
    const seen: number[] = []
    for (let i = 0; i < 4; i++) {
      p.onRateLimited()
      seen.push(p.nextPollDelayMs())
    }
    expect(seen).toEqual([15_000, 15_000, 15_000, 15_000])
    expect(lines).toEqual(['info: 429: polling every 15.0 s for now'])
    expect(p.rateLimited).toBe(4)
    expect(p.slowestMs).toBe(15_000)
  })

  it('a 429 below a third of the bound triples the pace, not more', () => {
    const { pace: p, lines, clock } = pace(1000)
    p.onRateLimited() // 3 s, the plateau 2 s
    p.onPollDone()
    expect(pollUntil(p, clock, 149_000).at(-1)).toBe(2000)
    expect(pollAt(p, clock, 150_000)).toBe(1000) // the 429 is 150 s old
    // Back at interval, a 429 triples it again (3 s); from 0.9 s it would be 2.7 s, never 3.
    p.onRateLimited()
    expect(p.nextPollDelayMs()).toBe(3000)
    expect(lines.filter((line) => line.includes('429: polling every'))).toHaveLength(2)
  })

  it('never waits past 3 intervals, whatever the random draw and however many 429s', () => {
    for (const random of [0, 0.5, 0.999999]) {
      const p = pace(1000, () => random).pace
      for (let i = 0; i < 50; i++) {
        p.onRateLimited()
        expect(p.nextPollDelayMs()).toBeLessThanOrEqual(3000)
        expect(p.nextPollDelayMs()).toBeGreaterThanOrEqual(1000)
      }
    }
  })

  it('comes back quickly to 2 times the pace of the last 429 and holds it while it remembers', () => {
    const { pace: p, clock } = pace()
    p.onRateLimited() // at 5 s: the plateau is 10 s
    p.onRateLimited() // a retry's 429 in the same poll does not move it
    p.onPollDone() // the poll that met the 429s: no recovery yet
    expect(p.nextPollDelayMs()).toBe(15_000)
    const trail = pollUntil(p, clock, 149_999, 5000)
    // 10 % a poll down to the plateau, then the plateau, however many polls: no probing.
    expect(trail.slice(0, 5)).toEqual([13_500, 12_150, 10_935, 10_000, 10_000])
    expect(new Set(trail.slice(3))).toEqual(new Set([10_000]))
    expect(p.slowestMs).toBe(15_000)
  })

  it('forgets a 429 once it is 150 s old, counted in time, not in polls', () => {
    // Two gates meet a 429 at 10 s; one polls every 5 s, the other every 40 s.
    for (const everyMs of [5000, 40_000]) {
      const { pace: p, lines, clock } = pace()
      clock.advance(10_000)
      p.onRateLimited()
      p.onPollDone()
      const slowed = pollUntil(p, clock, 159_999, everyMs)
      expect(Math.min(...slowed)).toBeGreaterThanOrEqual(10_000)
      expect(pollAt(p, clock, 160_000)).toBe(5000) // 150 s after the 429, exactly
      expect(lines).toEqual([
        'info: 429: polling every 15.0 s for now',
        'info: No 429 for 2 min 30 s: polling every 5.0 s again'
      ])
      // And for good: no 429, no slowing, however long.
      expect(new Set(pollUntil(p, clock, 600_000, everyMs))).toEqual(new Set([5000]))
      expect(lines).toHaveLength(2)
    }
  })

  it('a millisecond short of 150 s it still remembers', () => {
    const { pace: p, clock } = pace()
    p.onRateLimited()
    p.onPollDone()
    expect(pollAt(p, clock, 149_999)).toBe(13_500)
  })

  it('forgets only when an answer comes through: a poll must end after the 429 is 150 s old', () => {
    const { pace: p, clock } = pace()
    p.onRateLimited()
    clock.time = 600_000 // trouble other than 429s, say: no poll came through
    expect(p.nextPollDelayMs()).toBe(15_000)
    p.onPollDone()
    expect(p.nextPollDelayMs()).toBe(5000)
  })

  it('counts from the last 429: each fresh one renews the memory', () => {
    const { pace: p, clock } = pace()
    // Three 429s in a row in one poll (the retries' too), the last at 20 s.
    p.onRateLimited()
    clock.time = 10_000
    p.onRateLimited()
    clock.time = 20_000
    p.onRateLimited()
    p.onPollDone()
    expect(pollUntil(p, clock, 169_999, 5000).at(-1)).toBe(10_000)
    expect(pollAt(p, clock, 170_000)).toBe(5000)
    // A 429 of a later poll, at 200 s: remembered until 350 s.
    clock.time = 200_000
    p.onRateLimited()
    p.onPollDone()
    expect(pollUntil(p, clock, 349_999, 5000).at(-1)).toBe(10_000)
    expect(pollAt(p, clock, 350_000)).toBe(5000)
  })

  it('a gate that keeps meeting 429s keeps slow: each one renews the memory, at the bound', () => {
    const { pace: p, clock } = pace()
    p.onRateLimited()
    p.onPollDone()
    pollUntil(p, clock, 100_000, 10_000)
    expect(p.nextPollDelayMs()).toBe(10_000)
    // A 429 at the plateau: 30 s, so the bound; its plateau (20 s) is past the bound, so it holds.
    p.onRateLimited()
    p.onPollDone()
    const trail = pollUntil(p, clock, 249_999, 15_000)
    expect(new Set(trail)).toEqual(new Set([15_000]))
    expect(pollAt(p, clock, 250_000)).toBe(5000)
  })

  it('remembers for 30 intervals when that is longer than 150 s', () => {
    const { pace: p, clock } = pace(10_000)
    p.onRateLimited()
    p.onPollDone()
    expect(pollUntil(p, clock, 299_999, 10_000).at(-1)).toBe(20_000)
    expect(pollAt(p, clock, 300_000)).toBe(10_000)
  })

  it('remembers the pace of the last 429: a slower one raises the plateau', () => {
    const { pace: p } = pace(1000)
    p.onRateLimited() // at 1 s
    p.onPollDone()
    for (let i = 0; i < 4; i++) p.onPollDone() // 2.7, 2.43, 2.19, then the plateau
    expect(p.nextPollDelayMs()).toBe(2000)
    p.onRateLimited() // at 2 s: the pace goes to 3 s (the bound), the plateau is 4 s
    p.onPollDone()
    for (let i = 0; i < 3; i++) p.onPollDone()
    expect(p.nextPollDelayMs()).toBe(3000)
  })

  it('a gate that never met a 429 says nothing and stays at interval, however many polls', () => {
    const { pace: p, lines, clock } = pace(5000, () => 0.999)
    expect(new Set(pollUntil(p, clock, 600_000, 5000))).toEqual(new Set([5000]))
    expect(lines).toEqual([])
    expect(p.slowestMs).toBe(5000)
    expect(p.rateLimited).toBe(0)
  })

  it('a long interval slows too, within 3 intervals', () => {
    const { pace: p } = pace(300_000)
    p.onRateLimited()
    expect(p.nextPollDelayMs()).toBe(900_000)
    p.onRateLimited()
    expect(p.nextPollDelayMs()).toBe(900_000)
  })
})
