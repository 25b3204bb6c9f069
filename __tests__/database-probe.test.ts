/*
 * The database probe in process. Its timing on a simulated clock: when attempts go out, when an
 * attempt is cut, and that nothing answered after the deadline counts (no real time passes; the
 * answers are scripted per attempt). Then what it makes of real answers: the real driver against
 * the run's real PostgreSQL and scripted wire-protocol servers. What only a process shows (the
 * runner's lines, masking, a CA the runner trusts, signals) is tested over the bundle, e2e/database.
 */
import { describe, expect, it } from '@jest/globals'
import { Pace } from '../src/api/pace.js'
import {
  type DatabaseAnswer,
  type QueryDatabase,
  queryDatabase
} from '../src/steps/database/postgres.js'
import { systemClock } from '../src/domain/clock.js'
import { type DatabaseTarget, parseDatabaseUrl } from '../src/steps/database/database-target.js'
import { type DatabaseProbe, probeDatabase } from '../src/steps/database/database-probe.js'
import { phraseText } from '../src/domain/phrase.js'
import { databasePhrase } from '../src/steps/database/database-words.js'
import { SimulatedTime } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'
import { freshDatabase, serverWithoutTls } from './support/postgres/databases.js'
import { answerWith, scriptedPostgres, wire } from './support/postgres/scripted-server.js'

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

async function probe(
  script: (n: number, time: SimulatedTime) => Attempt,
  options: { intervalMs?: number; deadline: number; wait?: boolean; signal?: AbortSignal }
): Promise<{ result: DatabaseProbe; endedAt: number; starts: number[]; lines: string[] }> {
  const time = new SimulatedTime()
  const intervalMs = options.intervalMs ?? 1000
  const { query, starts } = scriptedDatabase(time, script)
  const { logger, lines } = collectingLogger()
  let endedAt = -1
  const running = probeDatabase(
    TARGET,
    { wait: options.wait ?? true, deadline: options.deadline, intervalMs, stepStartedAt: 0 },
    {
      pace: new Pace(intervalMs, time, logger, () => 0),
      clock: time,
      logger,
      signal: options.signal ?? new AbortController().signal,
      query
    }
  ).then((result) => {
    endedAt = time.now()
    return result
  })
  await time.run()
  return { result: await running, endedAt, starts, lines }
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

/** The probe in process, with the real driver, against the run's real PostgreSQL and scripted servers. */
async function probeReal(url: string): Promise<DatabaseProbe> {
  const target = parseDatabaseUrl(url)
  if (typeof target === 'string') throw new Error(target)
  const { logger } = collectingLogger()
  const start = systemClock.now()
  return probeDatabase(
    target,
    { wait: true, deadline: start + 30_000, intervalMs: 1000, stepStartedAt: start },
    {
      pace: new Pace(1000, systemClock, logger, () => 0),
      clock: systemClock,
      logger,
      signal: new AbortController().signal,
      query: queryDatabase
    }
  )
}

const PASSWORD = 'pw-in-process-2f9c'

describe('the probe against a real PostgreSQL, in process', () => {
  it('a database that does not exist: failure at once, with its SQLSTATE', async () => {
    const database = await freshDatabase(PASSWORD)
    const probe = await probeReal(database.url({ database: 'no_such_database' }))
    expect(probe).toMatchObject({ outcome: 'failure', state: 'error', attempts: 1 })
    expect(probe.failure?.code).toBe('3D000')
  })

  it('TLS required of a server that declines it: failure at once', async () => {
    const database = await freshDatabase(PASSWORD)
    const probe = await probeReal(
      database.url({ port: await serverWithoutTls(), query: 'sslmode=require' })
    )
    expect(probe).toMatchObject({ outcome: 'failure', state: 'error', attempts: 1 })
    expect(probe.failure?.message).toBe('The server does not support SSL connections')
  })

  it('the same server with sslmode=disable answers: what failed above was the missing TLS', async () => {
    const database = await freshDatabase(PASSWORD)
    const probe = await probeReal(database.url({ port: await serverWithoutTls() }))
    expect(probe).toMatchObject({ outcome: 'success', state: 'ready' })
    expect(probe.serverVersion).toMatch(/^18\./)
  })

  it('a certificate of a CA this process does not trust: failure at once', async () => {
    const database = await freshDatabase(PASSWORD)
    const probe = await probeReal(database.url({ query: 'sslmode=prefer' }))
    expect(probe).toMatchObject({ outcome: 'failure', state: 'error', attempts: 1 })
    expect(probe.failure?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE')
  })

  it.each([
    ['no row', [wire.columns(), wire.done('SELECT 0')], ['no row']],
    ['CommandComplete alone', [wire.done('SELECT 0')], ['no row']],
    ['an empty query response', [wire.emptyQuery()], ['an empty query response']],
    ['the text banana', answerWith('banana', wire.TEXT), [{ quote: 'banana' }]],
    ['NULL', answerWith(null), ['NULL']]
  ])(
    'SELECT 1 answered with %s: an error at once, saying what came',
    async (_case, answer, said) => {
      const wrong = await scriptedPostgres({ answer: () => answer })
      const probe = await probeReal(
        `postgresql://app:pw@127.0.0.1:${wrong.port}/app?sslmode=disable`
      )
      expect(probe).toMatchObject({ outcome: 'failure', state: 'error', attempts: 1 })
      expect(probe.failure?.answer).toEqual(said)
      expect(wrong.queries).toEqual(['SELECT 1'])
    }
  )
})
