import { describe, expect, it } from '@jest/globals'
import { type Attempt, firstRetryFloor } from '../../script/bench/first-retry-floor.ts'

const admitted = (gate: string, at: number): Attempt => ({ gate, at, admitted: true })
const refused = (gate: string, at: number, retryAfterMs: number): Attempt => ({
  gate,
  at,
  admitted: false,
  retryAfterMs
})

/**
 * Three slots; gates a, b and c fill them at 0, 300 and 600 ms; d, then a, b and c are refused
 * before any retry may go out (R0 = 10 s, a's refusal plus its Retry-After). Their retries are due
 * by 11.0 (a), 11.3 (b), 11.6 (c) and 11.9 s (d).
 */
const crunch: Attempt[] = [
  admitted('a', 0),
  admitted('b', 300),
  admitted('c', 600),
  refused('d', 900, 10_000),
  refused('a', 1000, 9000),
  refused('b', 1300, 9000),
  refused('c', 1600, 9000),
  // After R0: neither in the crunch nor counted as a slot taken before it.
  refused('e', 10_500, 1000),
  admitted('a', 10_800)
]

describe('firstRetryFloor', () => {
  it('counts the gates that no slot can serve by their deadlines', () => {
    // An 11 s window: at 11.0 s b and c still hold two slots (one free for a), at 11.3 s c holds
    // one (two free for a and b), at 11.6 s all three are free for a, b and c, and d is the fourth.
    expect(firstRetryFloor(crunch, { capacity: 3, windowMs: 11_000, intervalMs: 1000 })).toEqual({
      refusedInCrunch: 4,
      secondRefusals: 1
    })
  })

  it('is higher when the slots free later', () => {
    // A 12 s window: no slot frees before 12 s, so every retry due by 11.9 s is refused again.
    expect(firstRetryFloor(crunch, { capacity: 3, windowMs: 12_000, intervalMs: 1000 })).toEqual({
      refusedInCrunch: 4,
      secondRefusals: 4
    })
  })

  it('is lower when the rule lets retries come later', () => {
    // Two intervals of grace: the deadlines move to 12.0–12.9 s, when the 12 s window has freed
    // the first slot (12.0 s), then two (12.3 s), then three (12.6 s).
    expect(firstRetryFloor(crunch, { capacity: 3, windowMs: 12_000, intervalMs: 1000 }, 2)).toEqual(
      { refusedInCrunch: 4, secondRefusals: 1 }
    )
  })

  it('waits at least an interval when Retry-After is shorter', () => {
    const quick = [admitted('a', 0), refused('b', 100, 0), refused('a', 200, 0)]
    // R0 is 1.1 s (b's refusal plus the interval); deadlines 2.1 and 2.2 s, the one slot still taken.
    expect(firstRetryFloor(quick, { capacity: 1, windowMs: 5000, intervalMs: 1000 })).toEqual({
      refusedInCrunch: 2,
      secondRefusals: 2
    })
  })

  it('stops at R0 + window exactly: a slot taken at R0 is free again then', () => {
    // One slot, held by x since -0.5 s; b and c are refused at 0, R0 is 1 s and both deadlines are
    // 2 s, R0 + window. b goes at 1 s and is admitted; its slot is free again at 2 s (a request
    // counts while younger than the window), so c, going at 2 s, is admitted too: no second 429.
    const edge = [admitted('x', -500), refused('b', 0, 0), refused('c', 0, 0)]
    expect(firstRetryFloor(edge, { capacity: 1, windowMs: 1000, intervalMs: 1000 })).toEqual({
      refusedInCrunch: 2,
      secondRefusals: 0
    })
  })
})
