/*
 * Hostile servers and proxies on 127.0.0.1 for the end-to-end suites over the bundle; each is closed
 * after its test.
 */
import { afterEach } from '@jest/globals'
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http'
import { connect, type AddressInfo, type Server as NetServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { createServer as createTlsServer } from 'node:tls'
import { readFileSync } from 'node:fs'
import { startLocalServer, type LocalServer } from '../listen.js'

export const TLS = join(import.meta.dirname, '..', 'tls')

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/** A raw server on 127.0.0.1, closed after the test; `hits` counts its requests. */
export async function hostile(
  handler: Parameters<typeof startLocalServer>[0]
): Promise<LocalServer & { hits: string[]; apiHost: string }> {
  const hits: string[] = []
  const server = await startLocalServer((request, response) => {
    hits.push(request.url ?? '')
    handler(request, response)
  })
  closers.push(server.close)
  return { ...server, hits, apiHost: `${server.url}/api/v2` }
}

/** `server` on 127.0.0.1 (`port`, or any free one), closed with its sockets after the test. */
export function listen(
  server: Server | NetServer | ReturnType<typeof createTlsServer>,
  port = 0
): Promise<number> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  )
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  )
}

export const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/** A CONNECT proxy; `onConnect` decides what it does with each tunnel, `targets` logs them. */
export async function proxy(
  onConnect: (socket: Socket, target: string, head: Buffer) => void
): Promise<{ url: string; targets: string[] }> {
  const targets: string[] = []
  const server = createHttpServer((_request, response) => response.writeHead(405).end())
  server.on('connect', (request, socket: Socket, head: Buffer) => {
    targets.push(request.url ?? '')
    onConnect(socket, request.url ?? '', head)
  })
  const port = await listen(server)
  return { url: `http://127.0.0.1:${port}`, targets }
}

/**
 * TLS in front of a plain server on 127.0.0.1:`upstreamPort`, with the certificate `name`.pem of
 * support/tls (and its key), and a CONNECT proxy whose every tunnel ends there, whatever it was
 * asked for: nothing leaves 127.0.0.1. Returns the proxy.
 */
export async function tlsBehindProxy(
  upstreamPort: number,
  { cert, key }: { cert: string; key: string }
): Promise<{ url: string; targets: string[] }> {
  const terminator = createTlsServer(
    { key: readFileSync(join(TLS, key)), cert: readFileSync(join(TLS, cert)) },
    (tlsSocket) => {
      const upstream = connect(upstreamPort, '127.0.0.1')
      tlsSocket.pipe(upstream).pipe(tlsSocket)
      upstream.on('error', () => tlsSocket.destroy())
      tlsSocket.on('error', () => upstream.destroy())
    }
  )
  const tlsPort = await listen(terminator)
  return proxy((socket, _target, head) => {
    const upstream = connect(tlsPort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection established\r\n\r\n')
      upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
}
