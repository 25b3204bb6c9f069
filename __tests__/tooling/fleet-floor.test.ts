import { describe, expect, it } from '@jest/globals'
import { type Attempt, fleetFloor } from '../support/fleet/fleet-floor.ts'

const admitted = (gate: string, at: number): Attempt => ({ gate, at, admitted: true })
const refused = (gate: string, at: number, retryAfterMs: number): Attempt => ({
  gate,
  at,
  admitted: false,
  retryAfterMs
})

/** Attempts written `gate@at` (admitted) or `gate@at!retryAfterMs` (refused), in order. */
function attempts(...parts: string[]): Attempt[] {
  return parts
    .join(' ')
    .split(' ')
    .map((word) => {
      const [, gate, at, retryAfterMs] = /^(\w+)@(-?\d+)(?:!(\d+))?$/.exec(word)!
      return retryAfterMs === undefined
        ? admitted(gate, Number(at))
        : refused(gate, Number(at), Number(retryAfterMs))
    })
}

/**
 * Three slots; gates a, b and c fill them at 0, 300 and 600 ms; d, then a, b and c are refused
 * before any retry may go out (R0 = 10 s, a's refusal plus its Retry-After). Their retries are due
 * by 11.0 (a), 11.3 (b), 11.6 (c) and 11.9 s (d).
 */
const crunch = attempts(
  'a@0 b@300 c@600 d@900!10000 a@1000!9000 b@1300!9000 c@1600!9000',
  // After R0: a crunch gate's retry, not counted as a slot taken before it.
  'a@10800'
)

describe('fleetFloor: the retries of the gates refused in the crunch', () => {
  it('counts the gates that no slot can serve by their deadlines', () => {
    // An 11 s window: at 11.0 s b and c still hold two slots (one free for a), at 11.3 s c holds
    // one (two free for a and b), at 11.6 s all three are free for a, b and c, and d is the fourth.
    expect(fleetFloor(crunch, { capacity: 3, windowMs: 11_000, intervalMs: 1000 })).toEqual({
      refusedInCrunch: 4,
      refusedAfterCrunch: 1
    })
  })

  it('is higher when the slots free later', () => {
    // A 12 s window: no slot frees before 12 s, so every retry due by 11.9 s is refused again.
    expect(fleetFloor(crunch, { capacity: 3, windowMs: 12_000, intervalMs: 1000 })).toEqual({
      refusedInCrunch: 4,
      refusedAfterCrunch: 4
    })
  })

  it('is lower when the rule lets retries come later', () => {
    // Two intervals of grace: the deadlines move to 12.0–12.9 s, when the 12 s window has freed
    // the first slot (12.0 s), then two (12.3 s), then three (12.6 s).
    expect(
      fleetFloor(crunch, { capacity: 3, windowMs: 12_000, intervalMs: 1000 }, new Map(), 2)
    ).toEqual({
      refusedInCrunch: 4,
      refusedAfterCrunch: 1
    })
  })

  it('waits at least an interval when Retry-After is shorter', () => {
    const quick = [admitted('a', 0), refused('b', 100, 0), refused('a', 200, 0)]
    // R0 is 1.1 s (b's refusal plus the interval); deadlines 2.1 and 2.2 s, the one slot taken
    // until 3 s.
    expect(fleetFloor(quick, { capacity: 1, windowMs: 3000, intervalMs: 1000 })).toEqual({
      refusedInCrunch: 2,
      refusedAfterCrunch: 2
    })
  })

  it('stops at R0 + window exactly: a slot taken at R0 is free again then', () => {
    // One slot, held by x since -0.5 s; b and c are refused at 0, R0 is 1 s and both deadlines are
    // 2 s, R0 + window. b goes at 1 s and is admitted; its slot is free again at 2 s (a request
    // counts while younger than the window), so c, going at 2 s, is admitted too: no second 429.
    // x's operation was final: it sends nothing more.
    const edge = [admitted('x', -500), refused('b', 0, 0), refused('c', 0, 0)]
    const finalAt = new Map([['x', -500]])
    expect(fleetFloor(edge, { capacity: 1, windowMs: 1000, intervalMs: 1000 }, finalAt)).toEqual({
      refusedInCrunch: 2,
      refusedAfterCrunch: 0
    })
  })
})

/**
 * Three slots, taken by 15 ms by p, q and f, and not free again before 10 s; c is refused at 20 ms,
 * so R0 is 1.02 s. p and q, not refused by then, poll at the interval; s starts at 2.5 s; f's
 * operation was final when it was admitted.
 */
const fullWindow = attempts(
  'p@0 q@10 f@15 c@20!0 p@1030!0 q@1040!0 s@2500!0 p@5000!0 q@5000!0 s@5000!0'
)
const limits = { capacity: 3, windowMs: 10_000, intervalMs: 1000 }
const fFinal = new Map([['f', 15]])

describe('fleetFloor: the gates not refused by R0', () => {
  it('takes the fewest 429s: each refused at its first poll, then a request every 3 intervals', () => {
    // p, q and s refused at their first polls (1, 1.01 and 2.5 s: 3 refusals). Then, like c (retry
    // by 2.02 s), each retries (p by 3, q by 3.01, s by 4.5 s) and sends a request every 3 s:
    // by 9.01 s, 11 requests, every one refused (no slot is free before 10 s). Never refused,
    // they would poll every second instead: more requests still, all refused.
    expect(fleetFloor(fullWindow, limits, fFinal)).toEqual({
      refusedInCrunch: 1,
      refusedAfterCrunch: 14
    })
  })

  it('counts a 429 for a gate not refused only where its refusal saves requests', () => {
    // A 1.5 s window: the three slots are free again from 1.5 s. p and q poll at 1 and 1.01 s into
    // the full window (2 refusals, however the rest goes); s starts at 2 s, when c's retry (by
    // 2.02 s) and s's first request find two of the three free slots: refusing s would add one.
    // The first six requests of fullWindow, then s's first, admitted.
    const freed = [...fullWindow.slice(0, 6), admitted('s', 2000)]
    expect(fleetFloor(freed, { ...limits, windowMs: 1500 }, fFinal)).toEqual({
      refusedInCrunch: 1,
      refusedAfterCrunch: 2
    })
  })

  it('counts nothing of a gate whose operation was final', () => {
    // Were f still waiting, it would be refused at 1.015 s and send 3 more requests by 9.015 s.
    expect(fleetFloor(fullWindow, limits)).toEqual({ refusedInCrunch: 1, refusedAfterCrunch: 18 })
  })

  it('spaces the forced requests by the longest Retry-After of the run', () => {
    // c heard Retry-After 3 s. R0 is 2.03 s (p's refusal at 1.03 s plus the interval), so p and q
    // are in the crunch with c, and s is not. Any wait may now be 4 s (Retry-After plus an
    // interval). With a 6 s window the three slots are free again at 6–6.015 s, and by 8.02 s
    // (R0 + window is 8.03 s) the forced requests are: the retries of p, q and c (by 3.03, 3.04 and
    // 4.02 s) and the next request of each 4 s later; s, refused at its first request (2.5 s),
    // its retry by 6.5 s. 7 requests for 3 slots, and s's refused poll: 5.
    const heard = fullWindow.map((attempt) =>
      attempt.gate === 'c' ? { ...attempt, retryAfterMs: 3000 } : attempt
    )
    expect(fleetFloor(heard, { ...limits, windowMs: 6000 }, fFinal)).toEqual({
      refusedInCrunch: 3,
      refusedAfterCrunch: 5
    })
  })
})
