import { describe, expect, it } from '@jest/globals'
import { Pace } from '../src/api/pace.js'
import { collectingLogger } from './fixtures/logger.js'

/** A draw of 0.5 puts a slowed wait at the pace itself: `nextPollDelayMs()` reads the pace. */
const MIDDLE = () => 0.5

function pace(intervalMs = 5000, random = MIDDLE) {
  const { logger, lines } = collectingLogger()
  return { pace: new Pace(intervalMs, logger, random), lines }
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
    const { pace: p, lines } = pace(1000)
    p.onRateLimited() // 3 s, the plateau 2 s
    p.onPollDone()
    while (p.nextPollDelayMs() > 2000) p.onPollDone()
    for (let i = 0; i < 200; i++) p.onPollDone() // probing down to interval
    expect(p.nextPollDelayMs()).toBe(1000)
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

  it('comes back quickly to 2 times the pace of the last 429, then slowly to interval', () => {
    const { pace: p, lines } = pace()
    p.onRateLimited() // at 5 s: the plateau is 10 s
    p.onRateLimited() // a retry's 429 in the same poll does not move it
    p.onPollDone() // the poll that met the 429s: no recovery yet
    expect(p.nextPollDelayMs()).toBe(15_000)
    const trail: number[] = []
    for (let i = 0; i < 150; i++) {
      p.onPollDone()
      trail.push(p.nextPollDelayMs())
    }
    // 10 % a poll down to the plateau...
    expect(trail.slice(0, 3)).toEqual([13_500, 12_150, 10_935])
    const atPlateau = trail.indexOf(10_000)
    expect(atPlateau).toBe(3)
    // ...then 0.5 % a poll, never below interval.
    expect(trail[atPlateau + 1]).toBe(9950)
    for (let i = 1; i < trail.length; i++) expect(trail[i]).toBeLessThanOrEqual(trail[i - 1])
    expect(trail.at(-1)).toBe(5000)
    expect(Math.min(...trail)).toBe(5000)
    expect(lines.at(-1)).toBe('info: No 429 lately: polling every 5.0 s again')
    expect(p.slowestMs).toBe(15_000)
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
    expect(p.nextPollDelayMs()).toBeGreaterThan(2900)
  })

  it('says so twice: when it slows, and when it is back at interval; nothing in between', () => {
    const { pace: p, lines } = pace()
    p.onPollDone() // at interval, no 429: nothing to recover, nothing to say
    p.onRateLimited()
    for (let i = 0; i < 150; i++) p.onPollDone()
    p.onPollDone()
    expect(p.nextPollDelayMs()).toBe(5000)
    expect(lines).toEqual([
      'info: 429: polling every 15.0 s for now',
      'info: No 429 lately: polling every 5.0 s again'
    ])
  })

  it('a gate that never met a 429 says nothing and stays at interval, however many polls', () => {
    const { pace: p, lines } = pace(5000, () => 0.999)
    for (let i = 0; i < 10; i++) {
      p.onPollDone()
      expect(p.nextPollDelayMs()).toBe(5000)
    }
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
