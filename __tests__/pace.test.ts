import { describe, expect, it } from '@jest/globals'
import { MAX_PACE_MS, Pace } from '../src/pace.js'
import { collectingLogger } from './fixtures/logger.js'

function pace(intervalMs = 5000, random = () => 0) {
  const { logger, lines } = collectingLogger()
  return { pace: new Pace(intervalMs, logger, random), lines }
}

describe('Pace', () => {
  it('a gate that meets no 429 polls at exactly interval', () => {
    expect(pace().pace.nextPollDelayMs()).toBe(5000)
    expect(pace(5000, () => 0.999).pace.nextPollDelayMs()).toBe(5000)
  })

  it('while slowed, each wait is the pace ± 25 %, never under interval', () => {
    const low = pace(5000, () => 0).pace
    const high = pace(5000, () => 0.999999).pace
    for (const p of [low, high]) for (let i = 0; i < 3; i++) p.onRateLimited()
    expect(low.currentMs).toBe(40_000)
    expect(low.nextPollDelayMs()).toBe(30_000)
    expect(high.nextPollDelayMs()).toBe(50_000)
    const once = pace(5000, () => 0).pace
    once.onRateLimited()
    expect(once.nextPollDelayMs()).toBe(7500)
  })

  it('doubles on each 429 up to 60 s, logging each change once, and remembers the slowest', () => {
    const { pace: p, lines } = pace()
    const seen: number[] = []
    for (let i = 0; i < 6; i++) {
      p.onRateLimited()
      seen.push(p.currentMs)
    }
    expect(seen).toEqual([10_000, 20_000, 40_000, MAX_PACE_MS, MAX_PACE_MS, MAX_PACE_MS])
    expect(lines).toEqual([
      'info: 429: polling every 10.0 s for now',
      'info: 429: polling every 20.0 s for now',
      'info: 429: polling every 40.0 s for now',
      'info: 429: polling every 1 min 00 s for now'
    ])
    expect(p.rateLimited).toBe(6)
    expect(p.slowestMs).toBe(MAX_PACE_MS)
  })

  it('comes back quickly to 1.5 times the pace of the last 429, then slowly to interval', () => {
    const { pace: p, lines } = pace()
    p.onRateLimited() // at 5 s: the plateau is 7.5 s
    p.onRateLimited() // a retry's 429 in the same poll does not move it
    p.onPollDone() // the poll that met the 429s: no recovery yet
    expect(p.currentMs).toBe(20_000)
    const trail: number[] = []
    for (let i = 0; i < 120; i++) {
      p.onPollDone()
      trail.push(p.currentMs)
    }
    // 10 % a poll down to the plateau...
    expect(trail.slice(0, 3)).toEqual([18_000, 16_200, 14_580])
    const atPlateau = trail.indexOf(7500)
    expect(atPlateau).toBe(9)
    // ...then 0.5 % a poll, never below interval.
    expect(trail[atPlateau + 1]).toBeCloseTo(7462.5)
    for (let i = 1; i < trail.length; i++) expect(trail[i]).toBeLessThanOrEqual(trail[i - 1])
    expect(trail.at(-1)).toBe(5000)
    expect(Math.min(...trail)).toBe(5000)
    expect(lines.at(-1)).toBe('info: No 429 lately: polling every 5.0 s again')
    expect(p.slowestMs).toBe(20_000)
  })

  it('remembers the pace of the last 429: a slower one raises the plateau', () => {
    const { pace: p } = pace(1000)
    p.onRateLimited() // at 1 s
    p.onPollDone()
    for (let i = 0; i < 3; i++) p.onPollDone() // 1.8, 1.62, then the plateau
    expect(p.currentMs).toBe(1500)
    p.onRateLimited() // at 1.5 s: the pace doubles to 3 s, the plateau is now 2.25 s
    p.onPollDone()
    for (let i = 0; i < 3; i++) p.onPollDone() // 2.7, 2.43, then the plateau
    expect(p.currentMs).toBe(2250)
  })

  it('a long interval is never shortened by the 60 s cap', () => {
    const { pace: p } = pace(300_000)
    p.onRateLimited()
    expect(p.currentMs).toBe(300_000)
  })
})
