/*
 * The database probe in process, with what it makes of real answers: the real driver against the
 * run's real PostgreSQL and scripted wire-protocol servers. Its timing on a simulated clock is
 * database-probe-timing.test.ts's. What only a process shows (the runner's lines, masking, a CA the
 * runner trusts, signals) is tested over the bundle, e2e/database.
 */
import { describe, expect, it } from '@jest/globals'
import { Pace } from '../src/api/pace.js'
import { queryDatabase } from '../src/steps/database/postgres.js'
import { systemClock } from '../src/domain/clock.js'
import { parseDatabaseUrl } from '../src/steps/database/database-target.js'
import { type DatabaseProbe, probeDatabase } from '../src/steps/database/database-probe.js'
import { collectingLogger } from './support/logger.js'
import { freshDatabase, serverWithoutTls } from './support/postgres/databases.js'
import { answerWith, scriptedPostgres, wire } from './support/postgres/scripted-server.js'

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
