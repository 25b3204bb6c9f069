/*
 * The database probe's timing, on a simulated clock: when attempts go out, when an attempt is cut,
 * how long a refused role is tried again, and that nothing answered after the deadline counts (no
 * real time passes; the answers are scripted per attempt). What it makes of real answers, against
 * the run's real PostgreSQL, is database-probe.test.ts's.
 */
import { describe, expect, it } from '@jest/globals'
import { Pace } from '../src/api/pace.js'
import type { DatabaseAnswer, QueryDatabase } from '../src/steps/database/postgres.js'
import type { DatabaseTarget } from '../src/steps/database/database-target.js'
import { type DatabaseProbe, probeDatabase } from '../src/steps/database/database-probe.js'
import { phraseText } from '../src/domain/phrase.js'
import { databasePhrase } from '../src/steps/database/database-words.js'
import { SimulatedTime } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'

const TARGET: DatabaseTarget = {
  host: '127.0.0.1',
  port: 5432,
  database: 'app',
  user: 'app',
  password: 'pw',
  tls: false
}
const ONE: DatabaseAnswer = { results: [{ rows: [[1]], command: 'SELECT' }], serverVersion: '18.4' }

/** What the n-th attempt (from 1) meets: an answer or an error after `ms`, or nothing at all. */
type Attempt = { ms: number; answer: DatabaseAnswer } | { ms: number; error: object } | 'silence'

/** A database that plays `script(n)` for the n-th attempt, on simulated time; `starts` logs them. */
function scriptedDatabase(
  time: SimulatedTime,
  script: (n: number, time: SimulatedTime) => Attempt
) {
  const starts: number[] = []
  const query: QueryDatabase = (_target, signal) => {
    starts.push(time.now())
    const step = script(starts.length, time)
    return new Promise<DatabaseAnswer>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      if (step === 'silence') return
      time.sleep(step.ms, signal).then(
        () => ('answer' in step ? resolve(step.answer) : reject(step.error)),
        () => undefined
      )
    })
  }
  return { query, starts }
}

interface ProbeRun {
  intervalMs?: number
  deadline: number
  wait?: boolean
  signal?: AbortSignal
  /** When the control plane was done and the probe starts; the step starts at 0. */
  startsAt?: number
}

async function probe(
  script: (n: number, time: SimulatedTime) => Attempt,
  options: ProbeRun
): Promise<{ result: DatabaseProbe; endedAt: number; starts: number[]; lines: string[] }> {
  const time = new SimulatedTime()
  const intervalMs = options.intervalMs ?? 1000
  const { query, starts } = scriptedDatabase(time, script)
  const { logger, lines } = collectingLogger()
  let endedAt = -1
  const controlPlaneDone = options.startsAt ? time.sleep(options.startsAt) : Promise.resolve()
  const running = controlPlaneDone.then(() =>
    probeDatabase(
      TARGET,
      { wait: options.wait ?? true, deadline: options.deadline, intervalMs, stepStartedAt: 0 },
      {
        pace: new Pace(intervalMs, time, logger, () => 0),
        clock: time,
        logger,
        signal: options.signal ?? new AbortController().signal,
        query
      }
    )
  )
  const ended = running.then((result) => {
    endedAt = time.now()
    return result
  })
  await time.run()
  return { result: await ended, endedAt, starts, lines }
}

const refused = { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }

describe('the probe keeps the deadline', () => {
  it('an answer that would come after the deadline is cut at it: timeout, never ready', async () => {
    const { result, endedAt } = await probe(() => ({ ms: 4000, answer: ONE }), { deadline: 3000 })
    expect(endedAt).toBe(3000)
    expect(result).toMatchObject({ outcome: 'timeout', state: 'unreachable', attempts: 1 })
    expect(result.readyMs).toBeUndefined()
    expect(result.failure?.message).toBe('no answer before the timeout ran out')
  })

  it('an answer just before the deadline counts', async () => {
    const { result, endedAt } = await probe(() => ({ ms: 2999, answer: ONE }), { deadline: 3000 })
    expect(endedAt).toBe(2999)
    expect(result).toMatchObject({ outcome: 'success', state: 'ready', readyMs: 2999 })
  })

  it('a silent server: each attempt cut at the request limit (10 s at 1 s), the last at the deadline', async () => {
    const { result, endedAt, starts } = await probe(() => 'silence', { deadline: 25_000 })
    // 0–10 s cut; 1 s pace; 11–21 s cut; 22 s until the deadline.
    expect(starts).toEqual([0, 11_000, 22_000])
    expect(endedAt).toBe(25_000)
    expect(result.outcome).toBe('timeout')
  })

  it('a refused attempt whose retry would start past the deadline: timeout at the deadline', async () => {
    const { result, starts, endedAt } = await probe(() => ({ ms: 1, error: refused }), {
      intervalMs: 5000,
      deadline: 3000
    })
    expect(starts).toEqual([0])
    expect(endedAt).toBe(3000)
    expect(result).toMatchObject({ outcome: 'timeout', state: 'unreachable' })
    expect(result.failure?.code).toBe('ECONNREFUSED')
  })
})

describe('the probe tries again: at its pace, for a refused role a grace from its own start', () => {
  it('refused twice, then ready: attempts one interval apart, never sooner', async () => {
    const { result, starts } = await probe(
      (n) => (n <= 2 ? { ms: 1, error: refused } : { ms: 5, answer: ONE }),
      { intervalMs: 2000, deadline: 60_000 }
    )
    expect(starts).toEqual([0, 2001, 4002])
    expect(result).toMatchObject({ outcome: 'success', attempts: 3, readyMs: 4007 })
  })

  it('a refused password: retried for 3 intervals from the first attempt, then a failure', async () => {
    const password = { code: '28P01', message: 'password authentication failed' }
    const { result, starts, endedAt } = await probe(() => ({ ms: 1, error: password }), {
      intervalMs: 1000,
      deadline: 60_000
    })
    expect(starts).toEqual([0, 1001, 2002, 3003])
    expect(endedAt).toBe(3004)
    expect(result).toMatchObject({ outcome: 'failure', state: 'refused' })
  })

  it('a refused password when the control plane took longer than the grace: still tried again', async () => {
    // The step started at 0; the operations took 3.5 intervals; a new role lags its operation.
    const password = { code: '28P01', message: 'password authentication failed' }
    const { result, starts } = await probe(
      (n) => (n === 1 ? { ms: 1, error: password } : { ms: 5, answer: ONE }),
      { intervalMs: 1000, deadline: 60_000, startsAt: 3500 }
    )
    expect(starts).toEqual([3500, 4501])
    expect(result).toMatchObject({ outcome: 'success', state: 'ready', attempts: 2 })
    expect(result.readyMs).toBe(4506)
  })
})

describe('the probe stops when the job is cancelled, and after one attempt without wait', () => {
  it('cancelled during an attempt: cancelled at once', async () => {
    const controller = new AbortController()
    const { result, endedAt } = await probe(
      (_n, time) => {
        time.at(500, () => controller.abort(new Error('SIGTERM')))
        return 'silence'
      },
      { deadline: 60_000, signal: controller.signal }
    )
    expect(endedAt).toBe(500)
    expect(result.outcome).toBe('cancelled')
    // Nothing is known of why: never a sentence that stops at its colon.
    expect(phraseText(databasePhrase(result))).toBe('the database app on 127.0.0.1 did not answer')
  })

  it('wait: false makes one attempt', async () => {
    const { result, starts } = await probe(() => ({ ms: 1, error: refused }), {
      deadline: 60_000,
      wait: false
    })
    expect(starts).toEqual([0])
    expect(result.outcome).toBe('pending')
  })
})
