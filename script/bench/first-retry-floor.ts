/*
 * The fewest second 429s that any pacing could have had in a fleet's first crunch while keeping
 * the contract's lone-gate rule: after its first 429 a gate polls at `interval` until then, and
 * its next request goes out no sooner than `max(Retry-After, interval)` and no later than one
 * interval after that. Computed from one run's record of requests (the benchmark's server log or
 * the simulation's), so that a goal for the fleet can be checked against what the rule leaves
 * possible before designs are tried against it.
 *
 * Until the first retry of any gate can go out (R0), every gate does what the contract fixes (it
 * polls at `interval`), so the crunch up to R0 is the same under every pacing. Each gate G refused
 * before R0 must send its retry within [E_G, L_G] (E_G = refusal + max(Retry-After, interval),
 * L_G = E_G + interval). By any time T (R0 ≤ T < R0 + window), the window can admit in [R0, T] at
 * most `capacity` minus what it admitted in (T − window, R0). Every gate whose L_G ≤ T that finds
 * no slot is refused a second time.
 */
export interface Attempt {
  gate: string
  at: number
  admitted: boolean
  /** The Retry-After of a refusal, in ms. */
  retryAfterMs?: number
}

export interface FirstRetryFloor {
  /** Gates refused before any retry could go out: the crunch that no pacing changes. */
  refusedInCrunch: number
  /** The fewest of them that the rule lets be refused again. */
  secondRefusals: number
}

export function firstRetryFloor(
  attempts: Attempt[],
  limits: { capacity: number; windowMs: number; intervalMs: number },
  /** How many intervals after `max(Retry-After, interval)` the rule lets the retry go: 1. */
  graceIntervals = 1
): FirstRetryFloor {
  const sorted = [...attempts].sort((a, b) => a.at - b.at)
  const firstRefusal = new Map<string, Attempt>()
  for (const attempt of sorted) {
    if (!attempt.admitted && !firstRefusal.has(attempt.gate))
      firstRefusal.set(attempt.gate, attempt)
  }
  const earliest = (refusal: Attempt) =>
    refusal.at + Math.max(refusal.retryAfterMs ?? 0, limits.intervalMs)
  const r0 = Math.min(...[...firstRefusal.values()].map(earliest))
  const crunch = [...firstRefusal.values()].filter((refusal) => refusal.at < r0)
  const admittedBefore = sorted.filter((attempt) => attempt.admitted && attempt.at < r0)
  const deadlines = crunch
    .map((refusal) => earliest(refusal) + graceIntervals * limits.intervalMs)
    .sort((a, b) => a - b)
  let secondRefusals = 0
  deadlines.forEach((deadline, index) => {
    // From R0 + window on, a slot taken at R0 is free again (a request counts while it is younger
    // than the window), so one slot can serve two retries: the bound no longer holds.
    if (deadline >= r0 + limits.windowMs) return
    const stillInWindow = admittedBefore.filter(
      (attempt) => attempt.at > deadline - limits.windowMs
    ).length
    const slots = Math.max(0, limits.capacity - stillInWindow)
    secondRefusals = Math.max(secondRefusals, index + 1 - slots)
  })
  return { refusedInCrunch: crunch.length, secondRefusals }
}
