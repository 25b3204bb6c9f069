/*
 * One attempt at the database: connect with `pg` (node-postgres), run `SELECT 1`, read the server's
 * version, close. `pg` is loaded only here, only when `database_url` is given (ncc turns the dynamic
 * import into a chunk of its own). Each step is bounded: the connection within `connectTimeoutMs`,
 * each query within `queryTimeoutMs`, everything at once when `signal` aborts; the connection is
 * closed whatever happened. `pg` itself cannot be given an abort signal, hence the races here.
 */
import type { Socket } from 'node:net'
import type { DatabaseTarget } from '../domain/database.js'

export interface AttemptLimits {
  connectTimeoutMs: number
  queryTimeoutMs: number
  signal: AbortSignal
}

/** Resolves with the server's version once `SELECT 1` answered; rejects with the driver's error. */
export async function queryDatabase(
  target: DatabaseTarget,
  limits: AttemptLimits
): Promise<{ serverVersion: string }> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
    // Set here, never from the URL: TLS with the certificate verified against the host; pg sends
    // the host name as SNI, which Neon's proxy needs to find the endpoint.
    ssl: target.tls ? { rejectUnauthorized: true } : false,
    connectionTimeoutMillis: Math.max(1, Math.round(limits.connectTimeoutMs)),
    query_timeout: Math.max(1, Math.round(limits.queryTimeoutMs)),
    application_name: 'neon-operations-gate'
  })
  // An error after the connection broke surfaces through the pending call; this keeps it quiet.
  client.on('error', ignore)
  const { signal } = limits
  signal.throwIfAborted()
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
  aborted.catch(ignore)
  try {
    await Promise.race([client.connect(), aborted])
    await Promise.race([client.query('SELECT 1'), aborted])
    const { rows } = await Promise.race([client.query('SHOW server_version'), aborted])
    return {
      serverVersion: String((rows[0] as { server_version?: unknown })?.server_version ?? '')
    }
  } finally {
    ;(client as unknown as { connection: { stream: Socket } }).connection.stream.destroy()
  }
}

function ignore(): void {}
