/*
 * npm run simulate: a discrete-event simulation of the fleet benchmark (90 gates of one account at
 * 1.5x its budget, time x5) and of a lone gate in a storm, driving the action's real pacing rules
 * (src/pace.ts, src/retry-policy.ts) on a simulated clock against a model of the local server's
 * sliding-window limits. Seconds instead of minutes per design, so designs are compared here first
 * and then measured with the real bundle (npm run benchmark -- storm fleet). Nothing is asserted.
 * Beside each fleet's figures, the fewest 429s a gate that any pacing within the lone-gate rule
 * could have had (script/bench/first-retry-floor.ts).
 *
 *   npm run simulate [-- runs]
 */
import { ApiError, NetworkError } from '../../src/domain/errors.js'
import { Pace } from '../../src/api/pace.js'
import { requestTimeLimitMs, RetryPolicy } from '../../src/api/retry-policy.js'
import { type Attempt, firstRetryFloor } from './first-retry-floor.ts'

/** A seeded random source (mulberry32), so that runs can be repeated. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Over how long the gates' first requests spread: the benchmark starts them over 4 s, but 90
 * bundles starting on 2 cores send their first requests over about 7 s (RAMP_MS to change it).
 */
const RAMP_MS = Number(process.env.RAMP_MS ?? 7000)
/**
 * The floor is computed for a first-retry rule of this many intervals after
 * `max(Retry-After, interval)` (the contract's is 1; FLOOR_GRACE to see what another would allow).
 */
const FLOOR_GRACE = Number(process.env.FLOOR_GRACE ?? 1)
const silent = { info: () => undefined, warning: () => undefined, debug: () => undefined }

class Events {
  private queue: { at: number; run: () => void }[] = []
  now = 0
  at(time: number, run: () => void): void {
    this.queue.push({ at: time, run })
    this.queue.sort((a, b) => a.at - b.at)
  }
  drain(until: number): void {
    while (this.queue.length > 0 && this.queue[0].at <= until) {
      const next = this.queue.shift()!
      this.now = next.at
      next.run()
    }
  }
}

/** The local server's account window: `perWindow` requests per sliding `windowMs`. */
class Window {
  private hits: number[] = []
  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number
  ) {}
  /** undefined: admitted; else the Retry-After in whole seconds. */
  request(now: number): number | undefined {
    this.hits = this.hits.filter((at) => at > now - this.windowMs)
    if (this.hits.length >= this.perWindow) {
      return Math.max(1, Math.ceil((this.hits[0] + this.windowMs - now) / 1000))
    }
    this.hits.push(now)
    return undefined
  }
}

/**
 * One gate as the action runs it: a poll is a request; a failed request is retried as the retry
 * policy says (paced by the pace), a poll that got through makes the pace recover, and the next
 * poll waits as long as the pace says.
 */
function gate(
  events: Events,
  options: {
    intervalMs: number
    startAt: number
    /** The answer to a request at `now`: 200, an error, or none (cut at the request's limit). */
    answer: (now: number) => 'ok' | ApiError | NetworkError | 'none'
    /** Whether the operation is final by `now`. */
    isFinal: (now: number) => boolean
    random: () => number
    onRequest: (at: number, answer: string, retryAfterMs?: number) => void
    onDone: (at: number) => void
  }
) {
  const pace = new Pace(options.intervalMs, silent, options.random)
  const policy = new RetryPolicy({ random: options.random })
  const attempt = (retry: number) => {
    const now = events.now
    const answer = options.answer(now)
    options.onRequest(
      now,
      answer === 'ok'
        ? '200'
        : answer instanceof ApiError
          ? String(answer.status)
          : answer === 'none'
            ? 'no answer'
            : 'reset',
      answer instanceof ApiError && answer.retryAfter ? Number(answer.retryAfter) * 1000 : undefined
    )
    if (answer === 'none') {
      const limitMs = requestTimeLimitMs(options.intervalMs)
      events.at(now + limitMs, () =>
        failed(new NetworkError('GET /x', 'no answer'), retry, limitMs)
      )
      return
    }
    if (answer === 'ok') {
      pace.onPollDone()
      if (options.isFinal(now)) return options.onDone(now)
      events.at(now + pace.nextPollDelayMs(), () => attempt(1))
      return
    }
    failed(answer, retry, 0)
  }
  const failed = (error: ApiError | NetworkError, retry: number, spentMs: number) => {
    const now = events.now
    if (error instanceof ApiError && error.status === 429) pace.onRateLimited()
    const pacing = { minimumMs: options.intervalMs, nextPollMs: pace.nextPollDelayMs() }
    const decision = policy.decide(error, retry, now, pacing, spentMs)!
    events.at(now + decision.delayMs, () => attempt(retry + 1))
  }
  events.at(options.startAt, () => attempt(1))
}

const rateLimited = (retryAfter?: number) =>
  new ApiError({
    status: 429,
    endpoint: 'GET /x',
    subject: 'x',
    retryAfter: retryAfter === undefined ? undefined : String(retryAfter)
  })

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const p95 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))]

/** The benchmark's account window (700 requests per sliding 12 s) and the gates' interval. */
const FLEET_WINDOW = { capacity: 700, windowMs: 12_000, intervalMs: 1000 }

/** The fleet benchmark's world, simulated. */
function fleet(seed: number) {
  const events = new Events()
  const random = seeded(seed)
  const window = new Window(FLEET_WINDOW.capacity, FLEET_WINDOW.windowMs)
  const gates = 90
  let requests = 0
  let limited = 0
  const lags: number[] = []
  const limitedPerGate = new Array<number>(gates).fill(0)
  const attempts: Attempt[] = []
  for (let i = 0; i < gates; i++) {
    const startAt = (i * RAMP_MS) / gates + 150 + random() * 100
    const finalAt = startAt + 40_000 + Math.round((i * 20_000) / gates)
    gate(events, {
      intervalMs: FLEET_WINDOW.intervalMs,
      startAt,
      random,
      answer: (now) => {
        const retryAfter = window.request(now)
        return retryAfter === undefined ? 'ok' : rateLimited(retryAfter)
      },
      isFinal: (now) => now >= finalAt,
      onRequest: (at, answer, retryAfterMs) => {
        attempts.push({ gate: String(i), at, admitted: answer === '200', retryAfterMs })
        if (process.env.SIM_TRACE && answer === '429')
          console.log(`429 gate ${i} at ${(at / 1000).toFixed(2)} (#${limitedPerGate[i] + 1})`)
        requests++
        if (answer === '429') {
          limited++
          limitedPerGate[i]++
        }
      },
      onDone: (at) => lags.push((at - finalAt) / 1000)
    })
  }
  events.drain(400_000)
  const floor = firstRetryFloor(attempts, FLEET_WINDOW, FLOOR_GRACE)
  return {
    floorPerGate: (floor.refusedInCrunch + floor.secondRefusals) / gates,
    requests,
    limited,
    perGate: limited / gates,
    twice: limitedPerGate.filter((count) => count > 1).length,
    lagMedian: median(lags),
    lagP95: p95(lags),
    failed: gates - lags.length
  }
}

/** One gate at interval 5 s; every request from 4 s to 4 s + `stormMs` fails with `trouble`. */
function storm(seed: number, stormMs: number, trouble: () => ApiError | NetworkError | 'none') {
  const events = new Events()
  const random = seeded(seed)
  const stormEnd = 4000 + stormMs
  const finalAt = stormEnd + 2000
  const times: number[] = []
  let exitAt = Infinity
  gate(events, {
    intervalMs: 5000,
    startAt: 500,
    random,
    answer: (now) => (now >= 4000 && now < stormEnd ? trouble() : 'ok'),
    isFinal: (now) => now >= finalAt,
    onRequest: (at) => times.push(at),
    onDone: (at) => (exitAt = at)
  })
  events.drain(stormEnd + 300_000)
  const after = times.find((at) => at >= stormEnd)!
  const gaps = times.slice(1).map((at, i) => at - times[i])
  return {
    afterEnd: after - stormEnd,
    exitAfterEnd: exitAt - stormEnd,
    smallestGap: Math.min(...gaps)
  }
}

const runs = Number(process.argv[2] ?? 20)
const fleets = Array.from({ length: runs }, (_, seed) => fleet(seed + 1))
const range = (values: number[], digits = 0) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`
console.log(
  `fleet, ${runs} seeds: 429s ${range(fleets.map((f) => f.limited))} (per gate ${range(
    fleets.map((f) => f.perGate),
    2
  )}; gates with 2+ ${range(fleets.map((f) => f.twice))}), share ${range(
    fleets.map((f) => (100 * f.limited) / f.requests),
    1
  )} %, lag median ${range(
    fleets.map((f) => f.lagMedian),
    1
  )}, p95 ${range(
    fleets.map((f) => f.lagP95),
    1
  )}, failed ${Math.max(...fleets.map((f) => f.failed))}; the first-retry rule allows no fewer than ${range(
    fleets.map((f) => f.floorPerGate),
    2
  )} a gate`
)
const troubles: [string, () => ApiError | NetworkError | 'none'][] = [
  ['429', () => rateLimited()],
  ['429 Retry-After 12', () => rateLimited(12)],
  ['429 Retry-After 3', () => rateLimited(3)],
  ['503', () => new ApiError({ status: 503, endpoint: 'GET /x', subject: 'x' })],
  ['reset', () => new NetworkError('GET /x', 'ECONNRESET')],
  ['no answer', () => 'none']
]
for (const stormMs of [30_000, 120_000]) {
  for (const [name, trouble] of troubles) {
    const results = Array.from({ length: runs }, (_, seed) => storm(seed + 1, stormMs, trouble))
    console.log(
      `storm ${stormMs / 1000} s of ${name}: next request ${range(
        results.map((r) => r.afterEnd / 1000),
        1
      )} s after it ends (bound 15 s, or Retry-After + 5 s), exit ${range(
        results.map((r) => r.exitAfterEnd / 1000),
        1
      )} s, smallest gap ${range(
        results.map((r) => r.smallestGap / 1000),
        1
      )} s`
    )
  }
}
