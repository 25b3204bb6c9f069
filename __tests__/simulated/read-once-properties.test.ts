/*
 * Reading once (`wait: false`, and every sweep), the 429 rule (src/api/read-window.ts; the contract's
 * "Command line", turn 9, and "Stale preview branches", turn 10): the waits a 429 asks for, by
 * Retry-After in seconds or as a date or by back-off, never count against the read's 3 intervals,
 * so a storm of them is ridden out until `timeout`, which then ends the run as a timeout; while a
 * 5xx, silence or a proxy's HTML page still ends the read within 3 intervals of their own time.
 *
 * Generated: a read's answers, in runs (429 storms among them), then its answer; the interval;
 * the timeout, short, at the window's edge or long; the retries' jitter. The gate runs in process
 * on simulated time, the operations gate (`wait: false`) or a sweep (either `wait`), its read
 * scripted. The retries' policy is the real one, its waits recorded: how long a wait is is the
 * policy's business (retry-policy.test.ts); what the oracle judges is which time counts.
 *
 * The oracle, written apart from the code: time counts against the read's 3 intervals unless it is
 * a wait a 429 asked for. The read answers when the request that gets the answer may start: by the
 * timeout, and with the counted time, its wait included, under 3 intervals (a request started as
 * they end would have no time); a request is cut when the counted time reaches them. Otherwise the
 * read ends, as soon as a retry may not start: as the timeout after a 429 or when the timeout comes
 * before the window's end; else as an error that no retry could help (the command's exit code 3);
 * never a pass. Seeds are fixed in CI; FC_SEED runs others (support/property-runs.ts).
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { DEADLINE_GRACE_MS } from '../../src/api/api-core.js'
import { RECOVERY_INTERVALS, requestTimeLimitMs, RetryPolicy } from '../../src/api/retry-policy.js'
import { exitCodeOf } from '../../src/command/exit-codes.js'
import { errorBody } from '../support/neon/answers.ts'
import type { IncomingRequest } from '../support/neon/handler.ts'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.ts'
import type { SimulatedHandling } from '../support/neon/simulated-network.ts'
import { propertyRuns } from '../support/property-runs.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'

const SECOND = 1000
/** The simulated network's way to the server, and back (simulated-network.ts). */
const HALF_TRIP_MS = 1

type RetryAfter = { seconds: number } | { dateInSeconds: number } | undefined
type Refusal =
  | { kind: '429'; retryAfter: RetryAfter }
  | { kind: '5xx'; status: number }
  | { kind: 'silence' }
  | { kind: 'proxy page' }

const retryAfterArbitrary: fc.Arbitrary<RetryAfter> = fc.oneof(
  fc.constant(undefined),
  fc.record({ seconds: fc.integer({ min: 0, max: 120 }) }),
  // An HTTP date from a few seconds past (no wait asked) to 2 minutes ahead.
  fc.record({ dateInSeconds: fc.integer({ min: -5, max: 120 }) })
)

const rateLimitArbitrary: fc.Arbitrary<Refusal> = fc.record({
  kind: fc.constant('429' as const),
  retryAfter: retryAfterArbitrary
})

/** Trouble other than a 429. */
const troubleArbitrary: fc.Arbitrary<Refusal> = fc.oneof(
  fc.record({ kind: fc.constant('5xx' as const), status: fc.constantFrom(500, 502, 503, 504) }),
  fc.constant({ kind: 'silence' as const }),
  fc.constant({ kind: 'proxy page' as const })
)

/** Runs of one refusal, one after another: storms of 429s, and shorter stretches of other trouble. */
const scriptArbitrary: fc.Arbitrary<Refusal[]> = fc
  .array(
    fc.oneof(
      fc.tuple(rateLimitArbitrary, fc.integer({ min: 1, max: 10 })),
      fc.tuple(troubleArbitrary, fc.integer({ min: 1, max: 3 }))
    ),
    { maxLength: 4 }
  )
  .map((runs) => runs.flatMap(([refusal, times]) => Array<Refusal>(times).fill(refusal)))

/** An interval, and a timeout below, at and past the read's window (3 intervals) and far past it. */
const timingArbitrary = fc.integer({ min: SECOND, max: 20 * SECOND }).chain((intervalMs) => {
  const windowMs = RECOVERY_INTERVALS * intervalMs
  return fc.record({
    intervalMs: fc.constant(intervalMs),
    timeoutMs: fc.oneof(
      fc.integer({ min: SECOND, max: 2 * windowMs }),
      fc.integer({ min: Math.max(SECOND, windowMs - 20), max: windowMs + 20 }),
      fc.integer({ min: 2 * windowMs, max: 10 * 60 * SECOND })
    )
  })
})

const scenarioArbitrary = fc.record({
  script: scriptArbitrary,
  timing: timingArbitrary,
  gate: fc.constantFrom('operations', 'sweep, wait: true', 'sweep, wait: false'),
  jitter: fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
    minLength: 1,
    maxLength: 4
  })
})

type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never
type Ending = 'success' | 'could not ask' | 'timeout'

/** The real policy, each wait it decides recorded (the last one, which may not start, too). */
class RecordedPolicy extends RetryPolicy {
  readonly waits: number[] = []

  override decide(...args: Parameters<RetryPolicy['decide']>) {
    const decision = super.decide(...args)
    if (decision) this.waits.push(decision.delayMs)
    return decision
  }
}

/** What the server does with a refusal, at wall time `wallNow`. */
function refused(refusal: Refusal, wallNow: number): SimulatedHandling {
  switch (refusal.kind) {
    case '429': {
      const { retryAfter } = refusal
      const headers: Record<string, string> =
        retryAfter === undefined
          ? {}
          : 'seconds' in retryAfter
            ? { 'Retry-After': String(retryAfter.seconds) }
            : { 'Retry-After': new Date(wallNow + retryAfter.dateInSeconds * SECOND).toUTCString() }
      return { kind: 'answer', answer: { status: 429, body: errorBody('rate limited'), headers } }
    }
    case '5xx':
      return { kind: 'answer', answer: { status: refusal.status, body: errorBody('upstream') } }
    case 'silence':
      return { kind: 'none' }
    case 'proxy page':
      return {
        kind: 'malformed',
        status: 200,
        body: '<html><body>502 Bad Gateway</body></html>',
        headers: { 'Content-Type': 'text/html' }
      }
  }
}

/**
 * The gate of the scenario, its read (the operation, or the sweep's branch list) scripted: its
 * requests' arrivals at the server, in ms from the gate's start, and what each was answered.
 */
async function readOnce({ script, timing, gate, jitter }: Scenario) {
  const setup = simulatedWorld({ history: 0 })
  const op = operationIn(setup.world, 'finished')
  const sweep = gate.startsWith('sweep')
  const values: Record<string, string> = sweep
    ? { sweep: 'preview/*', wait: gate.endsWith('true') ? 'true' : 'false' }
    : { operation_id: op.id, wait: 'false' }
  const target = `/api/v2/projects/${PROJECT}/${sweep ? 'branches' : `operations/${op.id}`}`
  const start = setup.time.now()
  const served: { at: number; answer: Refusal | 'the answer' }[] = []
  const serve = (request: IncomingRequest, now: number): SimulatedHandling => {
    if (request.url.split('?')[0] === target) {
      const answer = script.at(served.length) ?? 'the answer'
      served.push({ at: now - start, answer })
      if (answer !== 'the answer') return refused(answer, setup.time.wallNow())
    }
    return setup.api.handle(request)
  }
  let draws = 0
  const random = () => jitter[draws++ % jitter.length]
  const policy = new RecordedPolicy({ random })
  const run = await runSimulated(
    setup,
    {
      project_id: PROJECT,
      interval: `${timing.intervalMs}ms`,
      timeout: `${timing.timeoutMs}ms`,
      ...values
    },
    { serve, random, retryPolicy: policy }
  )
  return { run, served, waits: policy.waits }
}

/**
 * The oracle: the read whose first request started at `startedAt`, its answers `script` then the
 * answer, and the policy's `waits`, one after each failed request. When the server sees its
 * requests; how it ends and when (the answer's arrival, or the moment a retry may not start).
 */
function expectedRead(
  script: Refusal[],
  waits: number[],
  { startedAt, intervalMs, timeoutMs }: { startedAt: number; intervalMs: number; timeoutMs: number }
): { arrivals: number[]; ending: Ending; at: number } {
  const windowMs = RECOVERY_INTERVALS * intervalMs
  let rateLimitedMs = 0
  /** The read's time at `t` that counts: all of it but the waits 429s asked for. */
  const counted = (t: number) => t - startedAt - rateLimitedMs
  const arrivals: number[] = []
  let sent = startedAt
  for (const wait of [...waits, undefined]) {
    const limitMs = requestLimitMs(sent, windowMs - counted(sent), intervalMs, timeoutMs)
    // The server sees a request that reaches it within its limit, and answers what comes next;
    // the answer counts if it is back within the limit too.
    const seen = limitMs > HALF_TRIP_MS
    const planned: Refusal | 'the answer' | undefined = seen
      ? (script.at(arrivals.length) ?? 'the answer')
      : undefined
    if (seen) arrivals.push(sent + HALF_TRIP_MS)
    const answered = limitMs > 2 * HALF_TRIP_MS ? planned : undefined
    if (answered === 'the answer')
      return { arrivals, ending: 'success', at: sent + 2 * HALF_TRIP_MS }
    const refusal = answered ?? { kind: 'silence' }
    const failedAt = refusal.kind === 'silence' ? sent + limitMs : sent + 2 * HALF_TRIP_MS
    // The policy decided a wait after each failed request (the code's record must hold one).
    expect(wait).toBeDefined()
    if (wait === undefined) break
    if (refusal.kind === '429') {
      if (failedAt + wait > timeoutMs) return { arrivals, ending: 'timeout', at: failedAt }
      rateLimitedMs += wait
    } else if (failedAt + wait > timeoutMs || counted(failedAt) + wait >= windowMs) {
      // Which comes first: the moment the counted time reaches 3 intervals, or the timeout.
      const windowEndsAt = startedAt + windowMs + rateLimitedMs
      const ending = windowEndsAt <= timeoutMs ? 'could not ask' : 'timeout'
      return { arrivals, ending, at: failedAt }
    }
    sent = failedAt + wait
  }
  throw new Error('not reached: the record ends with the answer or a wait that may not start')
}

/**
 * How long a request started at `sent` waits for a word: the request's limit, the time the read
 * has left (`leftMs`), and the timeout (plus its grace, for a request started in its last second).
 */
function requestLimitMs(sent: number, leftMs: number, intervalMs: number, timeoutMs: number) {
  const untilTimeout = timeoutMs - sent
  const untilEnd =
    untilTimeout >= DEADLINE_GRACE_MS ? untilTimeout : untilTimeout + DEADLINE_GRACE_MS
  return Math.max(1, Math.min(requestTimeLimitMs(intervalMs), untilEnd, leftMs))
}

const OUTCOMES: Record<Ending, { outcome: string; exitCode: number }> = {
  success: { outcome: 'success', exitCode: 0 },
  'could not ask': { outcome: 'error', exitCode: 3 },
  timeout: { outcome: 'timeout', exitCode: 124 }
}

const isRateLimit = (answer: Refusal | 'the answer' | undefined) =>
  answer !== undefined && answer !== 'the answer' && answer.kind === '429'

describe('reading once: a 429’s waits never count against the 3 intervals; other trouble’s do', () => {
  it('the read answers, ends as an error within 3 intervals, or as the timeout, as the oracle says', async () => {
    const reached = new Set<string>()
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const { run, served, waits } = await readOnce(scenario)
        const { intervalMs, timeoutMs } = scenario.timing
        const windowMs = RECOVERY_INTERVALS * intervalMs
        const startedAt = served[0].at - HALF_TRIP_MS
        const expected = expectedRead(scenario.script, waits, { startedAt, ...scenario.timing })
        const { outcome, exitCode } = OUTCOMES[expected.ending]

        // The server saw the requests the oracle expects, when it expects them.
        expect(served.map(({ at }) => at)).toEqual(expected.arrivals)
        expect(run.report.outcome).toBe(outcome)
        expect(exitCodeOf(run.report, undefined)).toBe(exitCode)

        // Never a pass without the answer, nor after the timeout.
        const answered = served.at(-1)?.answer === 'the answer'
        if (run.report.outcome === 'success') {
          expect(answered).toBe(true)
          expect(served.at(-1)!.at).toBeLessThanOrEqual(timeoutMs + HALF_TRIP_MS)
        } else {
          // It ends where it gave up, without waiting: within the timeout (and a request's grace).
          expect(run.endedAt).toBe(expected.at)
          expect(run.endedAt).toBeLessThanOrEqual(timeoutMs + DEADLINE_GRACE_MS)
        }
        // The time of trouble other than 429s, as the server saw it, stays within 3 intervals.
        const troubleMs = served.reduce((sum, { at, answer }, index) => {
          if (answer === 'the answer' || answer.kind === '429') return sum
          return sum + (served[index + 1]?.at ?? run.endedAt + HALF_TRIP_MS) - at
        }, 0)
        expect(troubleMs).toBeLessThanOrEqual(windowMs + 2 * HALF_TRIP_MS * served.length)

        // Which side of each bound the run was on.
        const elapsed = expected.at - startedAt
        const rateLimited = served.some(({ answer }) => isRateLimit(answer))
        const last = served.at(-1)?.answer
        const sides: [boolean, string][] = [
          [
            expected.ending === 'success' && elapsed > windowMs && rateLimited,
            'answered after more than 3 intervals, 429s in between'
          ],
          [
            expected.ending === 'success' && troubleMs > windowMs / 2,
            'answered after more than 1.5 intervals of other trouble'
          ],
          [
            expected.ending === 'success' && expected.at > timeoutMs - intervalMs,
            'answered within an interval of the timeout'
          ],
          [expected.ending === 'could not ask', 'an error within 3 intervals'],
          [
            expected.ending === 'could not ask' && elapsed > windowMs && rateLimited,
            'an error after 429s, later than 3 intervals from the start'
          ],
          [
            expected.ending === 'timeout' && isRateLimit(last),
            'a 429 storm ridden out until the timeout'
          ],
          [
            expected.ending === 'timeout' && !isRateLimit(last),
            'other trouble, the timeout before the window’s end'
          ]
        ]
        for (const [onIt, side] of sides) if (onIt) reached.add(side)
      }),
      propertyRuns(6903, 400)
    )
    // Both sides of each bound reached: 3 intervals (of other trouble) and the timeout.
    expect([...reached].sort()).toEqual([
      'a 429 storm ridden out until the timeout',
      'an error after 429s, later than 3 intervals from the start',
      'an error within 3 intervals',
      'answered after more than 1.5 intervals of other trouble',
      'answered after more than 3 intervals, 429s in between',
      'answered within an interval of the timeout',
      'other trouble, the timeout before the window’s end'
    ])
  }, 120_000)
})
