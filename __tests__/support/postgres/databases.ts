/*
 * The run's real PostgreSQL (started once by the global setup, support/postgres/server.ts): a role
 * and a database of its own for each test, and stand-ins for what a server does before it is ready.
 */
import { randomBytes } from 'node:crypto'
import { connect, createServer, type Socket } from 'node:net'
import pg from 'pg'
import { listen } from '../neon/hostile.js'

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

const isSslRequest = (data: Buffer) => data.length === 8 && data.readInt32BE(4) === 80877103

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

/** One message of the protocol's version 3, as a server sends it: a type byte, a length, a body. */
function message(type: string, ...parts: (Buffer | string | number)[]): Buffer {
  const body = Buffer.concat(
    parts.map((part) => {
      if (typeof part === 'string') return Buffer.from(`${part}\0`, 'utf8')
      if (Buffer.isBuffer(part)) return part
      const int = Buffer.alloc(4)
      int.writeInt32BE(part)
      return int
    })
  )
  const header = Buffer.alloc(5)
  header.write(type, 0)
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}

const int16 = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff])
const INT4 = 23
const TEXT = 25

/** What a server sends back, message by message. */
export const wire = {
  error: (code: string, text: string) =>
    message('E', Buffer.from(`SFATAL\0C${code}\0M${text}\0\0`, 'utf8')),
  parameter: (name: string, value: string) => message('S', name, value),
  ready: () => message('Z', Buffer.from('I')),
  /** A RowDescription of one column of type `oid` (int4 or text). */
  columns: (oid: number = INT4) =>
    message('T', int16(1), '?column?', 0, int16(0), oid, int16(-1), -1, int16(0)),
  /** A DataRow of one value in text form, or NULL. */
  row: (value: string | null) =>
    message(
      'D',
      int16(1),
      ...(value === null ? [-1] : [Buffer.byteLength(value), Buffer.from(value, 'utf8')])
    ),
  done: (tag = 'SELECT 1') => message('C', tag),
  emptyQuery: () => message('I'),
  INT4,
  TEXT
}

/** What `SELECT 1` is answered with: a one-row answer of `value`. */
export const answerWith = (value: string | null, oid = INT4) => [
  wire.columns(oid),
  wire.row(value),
  wire.done()
]

export interface ScriptedPostgres {
  port: number
  /** Start-ups answered, and the queries received, in order. */
  startups: () => number
  queries: string[]
}

/**
 * A server that speaks just enough of the protocol to script what a client meets: it declines TLS,
 * answers the `n`-th start-up (from 1) with `startup(n)` (by default: trust, the `parameters`, ready
 * for a query), and each query with `answer(sql)`, then ready again. `delayMs` holds each answer
 * that long, as a server that trickles its phases would.
 */
export async function scriptedPostgres(script: {
  startup?: (n: number) => Buffer[]
  parameters?: Record<string, string>
  answer?: (sql: string) => Buffer[]
  delayMs?: number
}): Promise<ScriptedPostgres> {
  const parameters = script.parameters ?? { server_version: '18.4 (scripted)' }
  const startup =
    script.startup ??
    (() => [
      message('R', 0),
      ...Object.entries(parameters).map(([name, value]) => wire.parameter(name, value)),
      message('K', 4242, 1234),
      wire.ready()
    ])
  const answer = script.answer ?? (() => answerWith('1'))
  let startups = 0
  const queries: string[] = []
  const send = (socket: Socket, messages: Buffer[]) => {
    const write = () => socket.writable && socket.write(Buffer.concat(messages))
    if (script.delayMs) setTimeout(write, script.delayMs).unref()
    else write()
  }
  const port = await listen(
    createServer((socket) => {
      socket.on('error', () => undefined)
      let buffered = Buffer.alloc(0)
      let started = false
      socket.on('data', (data: Buffer) => {
        buffered = Buffer.concat([buffered, data])
        for (;;) {
          if (!started) {
            if (buffered.length < 4 || buffered.length < buffered.readInt32BE(0)) return
            const packet = buffered.subarray(0, buffered.readInt32BE(0))
            buffered = buffered.subarray(packet.length)
            if (isSslRequest(packet)) {
              socket.write('N')
              continue
            }
            started = true
            send(socket, startup(++startups))
            continue
          }
          if (buffered.length < 5 || buffered.length < 1 + buffered.readInt32BE(1)) return
          const packet = buffered.subarray(0, 1 + buffered.readInt32BE(1))
          buffered = buffered.subarray(packet.length)
          const type = String.fromCharCode(packet[0])
          if (type === 'X') return void socket.end()
          if (type === 'Q') {
            const sql = packet.subarray(5, -1).toString('utf8')
            queries.push(sql)
            send(socket, [...answer(sql), wire.ready()])
          }
        }
      })
    })
  )
  return { port, startups: () => startups, queries }
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

/**
 * A server that speaks just enough of the protocol to refuse: it declines TLS and answers the
 * start-up with an ErrorResponse of `code` and `message`.
 */
export async function refusingServer(code: string, text: string): Promise<number> {
  const server = await scriptedPostgres({ startup: () => [wire.error(code, text)] })
  return server.port
}
