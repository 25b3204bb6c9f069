/*
 * One attempt at the database: connect with `pg` (node-postgres), run `SELECT 1`, close. `pg` is
 * loaded only here, only when `database_url` is given (ncc turns the dynamic import into a chunk of
 * its own). `pg` cannot be given an abort signal, and its own time limits bound each phase apart
 * (the connect, then each query), so one attempt could last several of them: here every phase
 * (TCP, TLS, authentication, the query) races one `signal`, which the caller aborts at the
 * attempt's end, and the connection is destroyed whatever happened.
 */
import type { Socket } from 'node:net'
import type { DatabaseTarget, QueryAnswer } from './database-target.js'

export interface DatabaseAnswer extends QueryAnswer {
  /** As the server reported it at start-up (ParameterStatus), when it did: best effort. */
  serverVersion?: string
}

interface ParameterStatus {
  parameterName: string
  parameterValue: string
}

/** One attempt at the database: `queryDatabase`, or a simulated one (the tests' simulated world). */
export type QueryDatabase = (target: DatabaseTarget, signal: AbortSignal) => Promise<DatabaseAnswer>

/** Resolves with what `SELECT 1` answered; rejects with the driver's error or `signal.reason`. */
export async function queryDatabase(
  target: DatabaseTarget,
  signal: AbortSignal
): Promise<DatabaseAnswer> {
  const { default: pg } = await import('pg')
  signal.throwIfAborted()
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
    // Set here, never from the URL: TLS with the certificate verified against the host; pg sends
    // the host name as SNI, which Neon's proxy needs to find the endpoint.
    ssl: target.tls ? { rejectUnauthorized: true } : false,
    application_name: 'neon-operations-gate'
  })
  const connection = (client as unknown as { connection: NodeJS.EventEmitter & { stream: Socket } })
    .connection
  // The version comes with the start-up, so reading it can neither fail nor delay the verdict.
  let serverVersion: string | undefined
  connection.on('parameterStatus', (status: ParameterStatus) => {
    if (status.parameterName === 'server_version') serverVersion = status.parameterValue
  })
  // An error after the connection broke surfaces through the pending call; this keeps it quiet.
  client.on('error', ignore)
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
  aborted.catch(ignore)
  try {
    await Promise.race([client.connect(), aborted])
    const result = await Promise.race([
      client.query({ text: 'SELECT 1', rowMode: 'array' }),
      aborted
    ])
    // Several statements' answers come as an array of results.
    const results = ([] as { rows: unknown[][]; command: string | null }[]).concat(result)
    return {
      results: results.map(({ rows, command }) => ({ rows, command })),
      serverVersion
    }
  } finally {
    connection.stream.destroy()
  }
}

function ignore(): void {}
