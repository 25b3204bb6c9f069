/*
 * A local implementation of the management API v2 (spec: shared/spec/management-api.md; Neon's
 * OpenAPI document in test mode) on 127.0.0.1, built on node:http: the handler (handler.ts: keys,
 * limits, faults, the log, the contract checks) over HTTP.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type ApiHandler, type ApiOptions, createApiHandler, type Handling } from './handler.ts'
import type { Answer } from './answers.ts'
import { BASE_PATH } from './routes.ts'
import type { World } from './world.ts'

export interface ApiServer extends Omit<ApiHandler, 'handle'> {
  url: string
  /** `${url}/api/v2`, the api_host to give the action. */
  apiHost: string
  close(): Promise<void>
}

export async function startApiServer(
  world: World,
  options: ApiOptions & { port?: number; host?: string } = {}
): Promise<ApiServer> {
  const api = createApiHandler(world, options)
  /** Answers held back by a `slow` fault; dropped when the server closes. */
  const delayed = new Set<NodeJS.Timeout>()
  const server = createServer((request: IncomingMessage, response) => {
    const handling = api.handle({
      method: request.method ?? '',
      url: request.url ?? '/',
      headers: request.headers
    })
    respond(handling, request, response, delayed)
  })
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve))
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`
  return Object.assign(api, {
    url,
    apiHost: `${url}${BASE_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of delayed) clearTimeout(timer)
        server.closeAllConnections()
        server.close(() => resolve())
      })
  })
}

/** Does over HTTP what the handler made of a request; a `slow` answer's timer joins `delayed`. */
function respond(
  handling: Handling,
  request: IncomingMessage,
  response: ServerResponse,
  delayed: Set<NodeJS.Timeout>
): void {
  switch (handling.kind) {
    case 'answer':
      return send(response, handling.answer)
    case 'drop':
      return void request.socket.destroy()
    case 'slow': {
      const timer = setTimeout(() => {
        delayed.delete(timer)
        send(response, handling.answer())
      }, handling.delayMs)
      delayed.add(timer)
      return
    }
    case 'held':
      return void handling.released.then(() => {
        if (!response.destroyed) send(response, handling.answer())
      })
    case 'malformed':
      response.writeHead(handling.status, {
        'content-type': 'application/json',
        ...handling.headers
      })
      response.end(handling.body)
  }
}

function send(response: ServerResponse, answer: Answer): void {
  // node:http adds a Date header of this machine's clock unless told not to: the answer's own, or none.
  response.sendDate = false
  response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
  response.end(JSON.stringify(answer.body ?? {}))
}
