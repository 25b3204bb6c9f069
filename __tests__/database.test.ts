import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  classifyDatabaseError,
  databaseSecrets,
  parseDatabaseUrl,
  wrongAnswer
} from '../src/steps/database/database-target.js'
import { isLoopbackHost } from '../src/domain/loopback.js'
import { propertyRuns } from './support/property-runs.js'

describe('parseDatabaseUrl', () => {
  it('reads host, port, database, role and the decoded password; TLS unless sslmode=disable', () => {
    expect(
      parseDatabaseUrl('postgresql://app:p%40ss@ep-cool-1.neon.tech/neondb?sslmode=require')
    ).toEqual({
      host: 'ep-cool-1.neon.tech',
      port: 5432,
      database: 'neondb',
      user: 'app',
      password: 'p@ss',
      tls: true
    })
    expect(parseDatabaseUrl('postgres://app:x@127.0.0.1:6543/db?sslmode=disable')).toMatchObject({
      port: 6543,
      tls: false
    })
  })

  it.each([
    ['not a URL', 'host=db user=app', /^is not a URL/],
    ['another scheme', 'mysql://app:secret-pw@db/app', /^is not a Postgres connection string/],
    ['no role', 'postgresql://db.example.test/app', /^names no role/],
    ['a bare %', 'postgresql://app:50%@db/app', /^holds a % that is not percent-encoding/],
    [
      'sslmode=disable off loopback',
      'postgresql://app:secret-pw@db.example.test/app?sslmode=disable',
      /^sslmode=disable is allowed only to a loopback host/
    ]
  ])('%s: a problem that never repeats the password', (_case, text, problem) => {
    const result = parseDatabaseUrl(text)
    expect(result).toEqual(expect.stringMatching(problem))
    expect(String(result)).not.toContain('secret-pw')
  })

  it('its secrets: the string, and the password as written and decoded', () => {
    expect(databaseSecrets('postgresql://app:p%40ss@db/app')).toEqual([
      'postgresql://app:p%40ss@db/app',
      'p%40ss',
      'p@ss'
    ])
  })
})

describe('classifyDatabaseError: what is retried, for how long, and what fails at once', () => {
  it.each([
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }, 'unreachable', 'retry'],
    [{ code: 'ECONNRESET', message: 'read ECONNRESET' }, 'unreachable', 'retry'],
    [{ code: 'EAI_AGAIN', message: 'getaddrinfo EAI_AGAIN db' }, 'unreachable', 'retry'],
    [{ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND db' }, 'unreachable', 'stop'],
    [{ message: 'Connection terminated unexpectedly' }, 'unreachable', 'retry'],
    [{ message: 'Connection terminated due to connection timeout' }, 'unreachable', 'retry'],
    [{ code: '57P03', message: 'the database system is starting up' }, 'error', 'retry'],
    [{ code: '53300', message: 'too many connections' }, 'error', 'retry'],
    [{ code: '08006', message: 'connection failure' }, 'error', 'retry'],
    [{ code: 'XX000', message: "Couldn't connect to compute node" }, 'unreachable', 'retry'],
    [{ code: '28P01', message: 'password authentication failed' }, 'refused', 'grace'],
    [{ code: '28000', message: 'no pg_hba.conf entry' }, 'refused', 'grace'],
    [{ code: '3D000', message: 'database "x" does not exist' }, 'error', 'stop'],
    [
      {
        code: 'XX000',
        message:
          'Your account or project has exceeded the compute time quota. Upgrade your plan to increase limits.'
      },
      'error',
      'stop'
    ],
    [
      { code: 'XX000', message: 'The endpoint ID is not specified. Either please upgrade' },
      'error',
      'stop'
    ],
    [{ code: 'XX000', message: 'The endpoint has been disabled' }, 'error', 'stop'],
    [{ message: 'The server does not support SSL connections' }, 'error', 'stop'],
    [
      { code: 'ERR_TLS_CERT_ALTNAME_INVALID', message: 'Hostname/IP does not match' },
      'error',
      'stop'
    ],
    [{ code: '42501', message: 'permission denied' }, 'error', 'stop']
  ])('%j: %s, %s', (error, state, retry) => {
    expect(classifyDatabaseError(error)).toMatchObject({ state, retry })
  })
})

describe('the loopback rule: what a connection without TLS may go to', () => {
  it.each(['localhost', 'LocalHost', '127.0.0.1', '127.255.255.254', '127.0.0.0', '[::1]'])(
    '%s is loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true)
      expect(parseDatabaseUrl(`postgresql://app:pw@${host}/app?sslmode=disable`)).toMatchObject({
        tls: false
      })
    }
  )

  it.each([
    '127.0.0.08',
    '127.0.0.01',
    '127.999.999.999',
    '127.0.0.256',
    '127.1',
    '0x7f.1',
    '2130706433',
    'localhost.',
    'localhost.example.test',
    '127.0.0.1.example.test',
    '[::ffff:127.0.0.1]',
    '128.0.0.1'
  ])('%s is not: sslmode=disable to it is an input error', (host) => {
    expect(isLoopbackHost(host)).toBe(false)
    expect(parseDatabaseUrl(`postgresql://app:pw@${host}/app?sslmode=disable`)).toEqual(
      expect.stringMatching(/^sslmode=disable is allowed only to a loopback host/)
    )
  })
})

describe('wrongAnswer: only one row holding 1 is an answer', () => {
  const one = (rows: unknown[][], command: string | null = 'SELECT 1') => ({
    results: [{ rows, command }]
  })
  it.each([
    [one([[1]]), undefined],
    [one([['1']]), undefined],
    [one([[0]]), [{ quote: '0' }]],
    [one([['banana']]), [{ quote: 'banana' }]],
    [one([[null]]), ['NULL']],
    [one([], 'SELECT 0'), ['no row']],
    [one([], null), ['an empty query response']],
    [one([[1], [1]]), ['2 rows']],
    [one([[1, 1]]), ['a row of 2 values']],
    [{ results: [] }, ['0 result sets']],
    [{ results: [one([[1]]).results[0], one([[1]]).results[0]] }, ['2 result sets']],
    [one([[true]]), [{ quote: 'true' }]],
    [one([['01']]), [{ quote: '01' }]],
    [one([[' 1']]), [{ quote: ' 1' }]],
    [one([['1.0']]), [{ quote: '1.0' }]],
    [one([[[1]]]), [{ quote: '[1]' }]]
  ])('%j: %j', (answer, wrong) => {
    expect(wrongAnswer(answer)).toEqual(wrong)
  })

  // Values that JavaScript's loose equality takes for 1: each is another answer, quoted.
  const padding = fc.constantFrom('', ' ', '\t', '\n', '0', '00', '+')
  const nearOneText = fc
    .tuple(
      padding,
      fc.constantFrom('1', '1.0', '1.00', '1e0', '0x1', '0b1'),
      fc.constantFrom('', ' ', '\n', '.0')
    )
    .map(([before, core, after]) => before + core + after)
    .filter((text) => text !== '1')
  const nearOne = fc.oneof(
    fc.constant<unknown>(true),
    nearOneText,
    nearOneText.map((text) => [text]),
    fc.constantFrom<unknown>([1], [[1]])
  )

  it('a value that only resembles 1 (true, "01", " 1", "1.0", [1], …) is not ready', () => {
    fc.assert(
      fc.property(nearOne, (value) => {
        expect(wrongAnswer(one([[value]]))).toEqual([{ quote: expect.any(String) }])
      }),
      propertyRuns(0x5e1ec71, 200)
    )
  })
})
