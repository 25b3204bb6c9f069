/*
 * Ready means a query answers: the bundle with `database_url`, against the local API server and a
 * real PostgreSQL (started once for the run), and against servers that are not ready yet, refuse,
 * never answer, answer late or wrongly, or echo the password: what the step shows of each (exit
 * code, outputs, the error line, masking). What the probe makes of every other answer, a
 * certificate this process does not trust among them, is tested in process (database-probe.test).
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve, terminateOn } from '../support/bundles/action.js'
import { admin, freshDatabase, lateServer, silentServer } from '../support/postgres/databases.js'
import {
  answerWith,
  refusingServer,
  scriptedPostgres,
  wire
} from '../support/postgres/scripted-server.js'
import { TLS } from '../support/neon/hostile.js'
import { join } from 'node:path'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

/** The child trusts the throw-away CA of the run's PostgreSQL (support/tls/README.md). */
const TRUST_TEST_CA = { NODE_EXTRA_CA_CERTS: join(TLS, 'postgres-ca.pem') }

const PASSWORD = 'pw-7Qk!x/+=%-database'

/** A finished operation to gate on: the probe starts at the first poll. */
async function finishedGate() {
  const { world, server } = await serve({ history: 0 })
  const op = operationIn(world, 'finished', { action: 'start_compute' })
  return { world, server, inputs: { project_id: PROJECT, operation_id: op.id } }
}

/** Neither the connection string nor its password, in any form, outside the masking line. */
function expectNoDatabaseSecret(run: Awaited<ReturnType<typeof runAction>>, url: string) {
  const everything = [
    run.stdout
      .split('\n')
      .filter((line) => !line.startsWith('::add-mask::'))
      .join('\n'),
    run.summary,
    ...Object.values(run.outputs)
  ].join('\n')
  for (const secret of [url, PASSWORD, encodeURIComponent(PASSWORD)]) {
    expect(everything).not.toContain(secret)
    expect(everything).not.toContain(Buffer.from(secret).toString('base64').slice(0, -2))
  }
  // The runner's command syntax writes % as %25.
  const command = (value: string) => `::add-mask::${value.replace(/%/g, '%25')}`
  expect(run.stdout).toContain(command(url))
  expect(run.stdout).toContain(command(PASSWORD))
}

describe('the gate ends with a query that answered', () => {
  it('a ready database: success, database_state ready, and the first line says so', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase(PASSWORD)
    const url = database.url()
    const run = await runAction(server, { ...inputs, database_url: url })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.database_state).toBe('ready')
    expect(Number(run.outputs.database_ready_ms)).toBeGreaterThan(0)
    expect(run.summary).toMatch(
      new RegExp(
        `the database <code>${database.role}</code> on <code>127.0.0.1</code> answered after 1 attempt, [\\d.]+ (ms|s) after the control plane was done \\(PostgreSQL <code>18`
      )
    )
    // The timeline draws the probe after the operations.
    expect(run.summary).toContain(`    section database\n    ▸ ${database.role} ready :done, `)
    // No line claims success before the query answered: the wait says the control plane is done.
    const lines = run.stdout.split('\n')
    const answered = lines.findIndex((line) => line.startsWith('The database answered'))
    expect(lines.slice(0, answered).join('\n')).not.toContain('outcome: success')
    expect(lines.slice(0, answered)).toContainEqual(
      expect.stringMatching(/^\[\+[\d.]+ m?s\] control plane done; the database check comes next$/)
    )
    expect(lines.slice(answered)).toContainEqual(expect.stringMatching(/\] outcome: success$/))
    expectNoDatabaseSecret(run, url)
  })

  it('a server still starting at the first attempt: 57P03, then ready on the second', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase(PASSWORD)
    const late = await lateServer(1)
    const url = database.url({ port: late.port })
    const run = await runAction(server, { ...inputs, database_url: url, timeout: '30s' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.database_state).toBe('ready')
    expect(
      run.stdout.match(/57P03 "the database system is starting up"; trying again in/g)
    ).toHaveLength(1)
    expect(run.summary).toMatch(/answered after 2 attempts/)
    expect(late.attempts()).toBe(2)
  })

  it('the role’s password set only after start_compute finished: 28P01, then ready', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase('not-yet-the-password')
    const url = database.url({ password: PASSWORD })
    // The password arrives once the gate has been refused, however slowly the machine runs; at
    // interval 2 s the grace is 6 s, time enough for the change to land.
    let set = false
    const onStdout = (chunk: string) => {
      if (set || !chunk.includes('28P01')) return
      set = true
      void admin(`ALTER ROLE ${database.role} PASSWORD '${PASSWORD}'`)
    }
    const run = await runAction(
      server,
      { ...inputs, database_url: url, timeout: '30s', interval: '2s' },
      { onStdout }
    )
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.database_state).toBe('ready')
    expect(run.stdout).toContain('28P01 "password authentication failed')
    expectNoDatabaseSecret(run, url)
  })

  it('a wrong password: failure once the 3-interval grace is over, database_state refused', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase('the-right-one')
    const url = database.url({ password: PASSWORD })
    const run = await runAction(server, { ...inputs, database_url: url, timeout: '2m' })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('failure')
    expect(run.outputs.database_state).toBe('refused')
    const refused = `No query answered: the database ${database.role} on 127.0.0.1 refused the role ${database.role} or its password: 28P01 "password authentication failed`
    // The step's failure is its annotation: one line, titled.
    expect(run.stdout.split('\n').filter((line) => line.includes(refused))).toEqual([
      expect.stringMatching(/^::error title=[^:]+::No query answered/)
    ])
    // The grace is 3 intervals of 1 s from the first attempt (exact on simulated time,
    // database-probe.test.ts); a failure long before the 2 minute timeout.
    expect(run.runningMs).toBeLessThan(30_000)
    expectNoDatabaseSecret(run, url)
  })

  it('a port that accepts TCP and never answers: timeout on time, database_state unreachable', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase(PASSWORD)
    const silent = await silentServer()
    const url = database.url({ port: silent.port })
    const run = await runAction(server, { ...inputs, database_url: url, timeout: '2s' })
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.outputs.database_state).toBe('unreachable')
    expect(silent.connections()).toBeGreaterThanOrEqual(1)
    // Cut at the 3 s deadline (exact on simulated time, database-probe.test.ts); a ceiling here.
    expect(run.runningMs).toBeLessThan(15_000)
  })

  it('TLS with a certificate of a CA the runner trusts: ready, over TLS', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase(PASSWORD)
    const url = database.url({ query: 'sslmode=require' })
    const run = await runAction(server, { ...inputs, database_url: url }, { env: TRUST_TEST_CA })
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.database_state).toBe('ready')
    expectNoDatabaseSecret(run, url)
  })

  it('TLS with a certificate for another host: failure at once', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase(PASSWORD)
    // The certificate names 127.0.0.1 only; localhost is the same server by another name.
    const url = database.url({ query: 'sslmode=verify-full' }).replace('@127.0.0.1:', '@localhost:')
    const run = await runAction(server, { ...inputs, database_url: url }, { env: TRUST_TEST_CA })
    expect(run.outputs.outcome).toBe('failure')
    expect(run.outputs.database_state).toBe('error')
    expect(run.stdout).toContain('ERR_TLS_CERT_ALTNAME_INVALID')
  })

  it('SIGTERM during the connect: cancelled at once', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase(PASSWORD)
    // SIGTERM as the bundle connects to a server that never answers.
    let connected = (): void => undefined
    const terminate = terminateOn((listener) => (connected = listener))
    const silent = await silentServer(() => connected())
    const url = database.url({ port: silent.port })
    const run = await runAction(
      server,
      { ...inputs, database_url: url, timeout: '60s' },
      { onStart: terminate.onStart }
    )
    expect(run.outputs.outcome).toBe('cancelled')
    // Far before the 60 s timeout; a ceiling for a loaded machine.
    expect(run.endedAt - terminate.sentAt()).toBeLessThan(10_000)
  })

  it('error texts that echo the password, plain, URL-encoded and base64: none leaks', async () => {
    const { server, inputs } = await finishedGate()
    const database = await freshDatabase(PASSWORD)
    const echo = `no entry for ${PASSWORD} / ${encodeURIComponent(PASSWORD)} / ${Buffer.from(PASSWORD).toString('base64')}`
    const url = database.url({ port: await refusingServer('XX000', echo) })
    const run = await runAction(server, { ...inputs, database_url: url })
    expect(run.outputs.outcome).toBe('failure')
    expect(run.stdout).toContain('answered with an error: XX000 "no entry for *** / *** / ***')
    expectNoDatabaseSecret(run, url)
  })
})

describe('what the probe counts as an answer, and when', () => {
  /** A database URL to a scripted server; the role and password are never checked there. */
  const scriptedUrl = (port: number) =>
    `postgresql://app:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/app?sslmode=disable`

  it('a server that answers each phase late: cut at timeout, never a success after it', async () => {
    const { server, inputs } = await finishedGate()
    // Start-up and SELECT 1 each come 1.5 s after they were asked for: the answer is 3 s after the
    // connection, which the gate makes after its start, so always after a 2 s timeout.
    const slow = await scriptedPostgres({ delayMs: 1500 })
    const url = scriptedUrl(slow.port)
    const run = await runAction(server, { ...inputs, database_url: url, timeout: '2s' })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.outputs.database_state).toBe('unreachable')
    expect(run.outputs.database_ready_ms).toBe('')
    expect(run.stdout).not.toContain('The database answered')
    expect(run.stdout).toContain('no answer before the timeout ran out')
    // The time reported is the whole run's, the database check included: at least the timeout.
    expect(Number(run.outputs.elapsed_ms)).toBeGreaterThanOrEqual(2000)
    expect(run.summary).toMatch(/<b>⌛ timeout<\/b> after [2-9]\.\d s/)
    // A generous ceiling: the cut itself is proven on the simulated clock.
    expect(run.runningMs).toBeLessThan(15_000)
    expectNoDatabaseSecret(run, url)
  })

  it('SELECT 1 answered with a row holding 0: not ready, an error that quotes it', async () => {
    // Every other wrong answer (no row, an empty query response, text) is in database-probe.test.ts.
    const { server, inputs } = await finishedGate()
    const wrong = await scriptedPostgres({ answer: () => answerWith('0') })
    const run = await runAction(server, { ...inputs, database_url: scriptedUrl(wrong.port) })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('failure')
    expect(run.outputs.database_state).toBe('error')
    expect(run.outputs.database_ready_ms).toBe('')
    expect(wrong.queries).toEqual(['SELECT 1'])
    expect(run.summary).toContain('answered <code>SELECT 1</code> with “0”, not 1')
    expect(run.stdout).toMatch(
      /^::error title=[^:]+::No query answered: the database app on 127.0.0.1 answered SELECT 1 with "0", not 1$/m
    )
  })

  it('a server that reports no version and refuses any other query: ready, the version left out', async () => {
    const { server, inputs } = await finishedGate()
    const quiet = await scriptedPostgres({
      parameters: {},
      answer: (sql) =>
        sql === 'SELECT 1'
          ? answerWith('1')
          : [wire.error('42704', 'unrecognized configuration parameter "server_version"')]
    })
    const run = await runAction(server, { ...inputs, database_url: scriptedUrl(quiet.port) })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.database_state).toBe('ready')
    expect(Number(run.outputs.database_ready_ms)).toBeGreaterThan(0)
    expect(run.summary).toMatch(
      /answered after 1 attempt, [\d.]+ (ms|s) after the control plane was done</
    )
    expect(run.summary).not.toContain('PostgreSQL')
  })
})

describe('database_url as an input', () => {
  // The other look-alikes (127.1, 0x7f.1, localhost., …) are refused in database.test.ts.
  it.each(['127.0.0.08', '127.999.999.999'])(
    'sslmode=disable to %s, a name that would go to DNS: an input error before any request',
    async (host) => {
      const { server, inputs } = await finishedGate()
      const url = `postgresql://app:${encodeURIComponent(PASSWORD)}@${host}:5432/app?sslmode=disable`
      const run = await runAction(server, { ...inputs, database_url: url })
      expect(run.code).toBe(1)
      expect(run.stdout).toContain(
        '::error::Invalid input: input "database_url": sslmode=disable is allowed only to a loopback host'
      )
      expect(server.requests).toHaveLength(0)
      expectNoDatabaseSecret(run, url)
    }
  )

  it('with list_projects and no project_id: an input error that names database_url (issue 58: a warning and exit 0 before), no connection', async () => {
    const { server } = await serve({ history: 0 })
    const silent = await silentServer()
    const url = `postgresql://app:${encodeURIComponent(PASSWORD)}@127.0.0.1:${silent.port}/app?sslmode=disable`
    const run = await runAction(server, { list_projects: 'true', database_url: url })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      '::error::Invalid input: input "database_url": needs project_id: with list_projects: true and no project, only the projects are listed and the database would never be queried'
    )
    expect(silent.connections()).toBe(0)
    expect(server.requests).toHaveLength(0)
    expect(run.outputs.database_state).toBeUndefined()
    expectNoDatabaseSecret(run, url)
  })

  it('not a connection string: an input error naming database_url, never echoing it', async () => {
    const { server, inputs } = await finishedGate()
    const url = `mysql://someone:${encodeURIComponent(PASSWORD)}@db.example.test/app`
    const run = await runAction(server, { ...inputs, database_url: url })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::Invalid input: input "database_url": is not a Postgres')
    expect(server.requests).toHaveLength(0)
    expectNoDatabaseSecret(run, url)
  })
})
