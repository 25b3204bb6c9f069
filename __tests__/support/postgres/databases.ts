/*
 * The run's real PostgreSQL (started once by the global setup, support/postgres/server.ts): a role
 * and a database of its own for each test, and stand-ins for what a server does before it is ready.
 */
import { randomBytes } from 'node:crypto'
import { connect, createServer, type Socket } from 'node:net'
import pg from 'pg'
import { listen } from '../neon/hostile.js'
import { isSslRequest, wire } from './scripted-server.ts'

const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? ''

export async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, ssl: false })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

const postgresPort = () => Number(new URL(ADMIN_URL).port)

/** A new role (with `password`) owning a new database of the same name. */
export async function freshDatabase(password: string): Promise<{
  role: string
  url: (options?: { password?: string; port?: number; database?: string; query?: string }) => string
}> {
  const role = `gate_${randomBytes(5).toString('hex')}`
  await admin(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`)
  await admin(`CREATE DATABASE ${role} OWNER ${role}`)
  return {
    role,
    url: (options = {}) =>
      `postgresql://${role}:${encodeURIComponent(options.password ?? password)}@127.0.0.1:${options.port ?? postgresPort()}/${options.database ?? role}?${options.query ?? 'sslmode=disable'}`
  }
}

/**
 * Pipes `socket` to the real server, `first` (bytes already read from it) ahead; either side's end
 * ends the other, so no connection to the server outlives its test.
 */
function toPostgres(socket: Socket, first?: Buffer): void {
  const upstream = connect(postgresPort(), '127.0.0.1')
  upstream.on('error', () => socket.destroy())
  socket.on('error', () => upstream.destroy())
  upstream.on('close', () => socket.destroy())
  socket.on('close', () => upstream.destroy())
  if (first) upstream.write(first)
  socket.pipe(upstream).pipe(socket)
}

/**
 * A port that accepts connections and never says a word; `connections` counts them, and
 * `onConnection` hears each as it comes.
 */
export async function silentServer(
  onConnection: () => void = () => undefined
): Promise<{ port: number; connections: () => number }> {
  let count = 0
  const port = await listen(
    createServer(() => {
      count++
      onConnection()
    })
  )
  return { port, connections: () => count }
}

/**
 * The real server as one without TLS would be: it declines TLS and forwards everything else, so a
 * client that went on without TLS would be answered.
 */
export async function serverWithoutTls(): Promise<number> {
  return listen(
    createServer((socket) => {
      socket.once('data', (first: Buffer) => {
        if (isSslRequest(first)) socket.write('N')
        toPostgres(socket, isSslRequest(first) ? undefined : first)
      })
    })
  )
}

/**
 * The real server behind a port that it holds throughout: the first `refusals` start-ups are
 * answered as a server still starting answers them (57P03), the later ones go to the real server.
 */
export async function lateServer(
  refusals: number
): Promise<{ port: number; attempts: () => number }> {
  let attempts = 0
  const port = await listen(
    createServer((socket) => {
      socket.on('error', () => undefined)
      socket.once('data', (first: Buffer) => {
        if (isSslRequest(first)) return void socket.destroy()
        if (++attempts <= refusals) {
          return void socket.end(wire.error('57P03', 'the database system is starting up'))
        }
        toPostgres(socket, first)
      })
    })
  )
  return { port, attempts: () => attempts }
}
