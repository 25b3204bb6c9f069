/*
 * Just enough of PostgreSQL's protocol (version 3) to script what a client meets: a server's
 * messages (`wire`), and servers that say them (`scriptedPostgres`, `refusingServer`).
 */
import { createServer, type Socket } from 'node:net'
import { listen } from '../neon/hostile.js'

export const isSslRequest = (data: Buffer) => data.length === 8 && data.readInt32BE(4) === 80877103

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
    createServer((socket) =>
      converse(socket, {
        startup: () => startup(++startups),
        query: (sql) => {
          queries.push(sql)
          return answer(sql)
        },
        send: (messages) => send(socket, messages)
      })
    )
  )
  return { port, startups: () => startups, queries }
}

/** What a scripted server says to a client's start-up and to each of its queries. */
interface Turns {
  startup: () => Buffer[]
  query: (sql: string) => Buffer[]
  send: (messages: Buffer[]) => void
}

/**
 * One client's connection: TLS declined, its start-up answered, then each simple query, and ready
 * again after each, until the client says goodbye.
 */
function converse(socket: Socket, turns: Turns): void {
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
        turns.send(turns.startup())
        continue
      }
      if (buffered.length < 5 || buffered.length < 1 + buffered.readInt32BE(1)) return
      const packet = buffered.subarray(0, 1 + buffered.readInt32BE(1))
      buffered = buffered.subarray(packet.length)
      const type = String.fromCharCode(packet[0])
      if (type === 'X') return void socket.end()
      if (type === 'Q') {
        const sql = packet.subarray(5, -1).toString('utf8')
        turns.send([...turns.query(sql), wire.ready()])
      }
    }
  })
}

/**
 * A server that speaks just enough of the protocol to refuse: it declines TLS and answers the
 * start-up with an ErrorResponse of `code` and `message`.
 */
export async function refusingServer(code: string, text: string): Promise<number> {
  const server = await scriptedPostgres({ startup: () => [wire.error(code, text)] })
  return server.port
}
