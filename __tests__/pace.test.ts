import { describe, expect, it } from '@jest/globals'
import { MAX_PACE_MS, Pace } from '../src/pace.js'
import { collectingLogger } from './fixtures/logger.js'

function pace(intervalMs = 5000, random = () => 0) {
  const { logger, lines } = collectingLogger()
  return { pace: new Pace(intervalMs, logger, random), lines }
}

describe('Pace', () => {
  it('starts at interval and polls at interval plus at most 10 % of it in jitter', () => {
    expect(pace().pace.nextPollDelayMs()).toBe(5000)
    expect(pace(5000, () => 0.999).pace.nextPollDelayMs()).toBe(5500)
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

  it('comes back toward interval with each poll that met no 429, never below it', () => {
    const { pace: p, lines } = pace()
    p.onRateLimited()
    p.onRateLimited()
    p.onPollDone() // the poll that met the 429s: no recovery yet
    expect(p.currentMs).toBe(20_000)
    const trail: number[] = []
    for (let i = 0; i < 40; i++) {
      p.onPollDone()
      trail.push(p.currentMs)
    }
    expect(trail[0]).toBeLessThan(20_000)
    expect(trail[0]).toBeGreaterThan(15_000)
    for (let i = 1; i < trail.length; i++) expect(trail[i]).toBeLessThanOrEqual(trail[i - 1])
    expect(trail.at(-1)).toBe(5000)
    expect(Math.min(...trail)).toBe(5000)
    expect(lines.at(-1)).toBe('info: No 429 lately: polling every 5.0 s again')
    expect(p.slowestMs).toBe(20_000)
  })

  it('a long interval is never shortened by the 60 s cap', () => {
    const { pace: p } = pace(300_000)
    p.onRateLimited()
    expect(p.currentMs).toBe(300_000)
  })
})
