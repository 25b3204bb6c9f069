/*
 * A local implementation of the management API v2 (spec: shared/spec/management-api.md; Neon's
 * OpenAPI document in test mode) on 127.0.0.1, built on node:http: bearer keys, the rate limits
 * (limits.ts), scripted faults (faults.ts) and a log of every request; what each route answers is
 * routes.ts, over the world (world.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Contract, ContractViolation } from '../openapi-contract.ts'
import type { ApiKey, World } from './world.ts'
import {
  type Answer,
  answerRoute,
  BASE_PATH,
  errorBody,
  matchRoute,
  rateLimitedAnswer,
  type Route
} from './routes.ts'
import { type Fault, Faults } from './faults.ts'
import { type Limits, RateLimiter, SPEC_LIMITS } from './limits.ts'

export interface RequestRecord {
  at: number
  method: string
  path: string
  query: Record<string, string>
  route?: Route
  status: number
  /** The Retry-After header of the answer, if it had one. */
  retryAfter?: string
  keyType?: ApiKey['type'] | 'missing' | 'unknown' | 'revoked'
  fault?: Fault['kind']
  /** The request's headers, as it sent them. */
  headers: IncomingRequest['headers']
}

/** A request as the handler sees it: over HTTP, or from the simulated network. */
export interface IncomingRequest {
  method: string
  /** Path and query. */
  url: string
  headers: Record<string, string | string[] | undefined>
}

/** What becomes of one request: an answer now, later, none (the connection dropped), or junk. */
export type Handling =
  | { kind: 'answer'; answer: Answer }
  | { kind: 'slow'; delayMs: number; answer: () => Answer }
  | { kind: 'held'; released: Promise<void>; answer: () => Answer }
  | { kind: 'drop' }
  | { kind: 'malformed'; status: number; body: string; headers: Record<string, string> }

/** The API without its transport: keys, limits, faults, the log and the contract checks. */
export interface ApiHandler {
  /** With a contract: what the requests and answers broke in it, every one since the start. */
  violations: ContractViolation[]
  requests: RequestRecord[]
  limits: Limits
  addFault(fault: Fault): void
  clearFaults(): void
  /** Called with each request once it is logged, before it is answered (e.g. to revoke a key). */
  onRequest?: (record: RequestRecord) => void
  /**
   * Holds the answers to the next requests until `count` of them have come, then gives them all
   * (runs started together then go on together, whatever each one's start-up took).
   */
  holdUntil(count: number): void
  handle(request: IncomingRequest): Handling
}

export interface ApiServer extends Omit<ApiHandler, 'handle'> {
  url: string
  /** `${url}/api/v2`, the api_host to give the action. */
  apiHost: string
  close(): Promise<void>
}

export interface ApiOptions {
  limits?: Partial<Limits>
  /** Test mode: every request and answer is checked against Neon's OpenAPI document. */
  contract?: Contract
}

const MALFORMED_BODY = '{"operation": {"id": "truncated'

/** The error body of a status fault: the API's shape, with the fields the fault gives. */
function faultBody(fault: Extract<Fault, { kind: 'status' }>) {
  const body = errorBody(fault.message ?? `injected HTTP ${fault.status}`)
  return {
    ...body,
    code: fault.code ?? body.code,
    request_id: fault.requestId ?? body.request_id
  }
}

export function createApiHandler(world: World, options: ApiOptions = {}): ApiHandler {
  const requests: RequestRecord[] = []
  const violations: ContractViolation[] = []
  const limits: Limits = { ...SPEC_LIMITS, ...options.limits }
  const faults = new Faults()
  const limiter = new RateLimiter(limits)
  let barrier: { left: number; release: () => void; released: Promise<void> } | undefined

  /** Every answer carries the server's clock, as real servers' do (RFC 9110): the world's. */
  const dated = (headers: Record<string, string> = {}) => ({
    Date: new Date(world.now()).toUTCString(),
    ...headers
  })

  /** The answer logged, and checked against the contract first when there is one. */
  function finish(request: IncomingRequest, record: RequestRecord, answer: Answer): Answer {
    answer = { ...answer, headers: dated(answer.headers) }
    record.status = answer.status
    record.retryAfter = answer.headers?.['Retry-After']
    if (options.contract) {
      violations.push(
        ...options.contract.check(
          {
            method: record.method,
            path: record.path,
            query: record.query,
            headers: request.headers
          },
          { status: answer.status, body: answer.body ?? {} }
        )
      )
    }
    return answer
  }

  /** The account's windows (limits.ts); a request over a limit gets 429 and is not counted. */
  function rateLimit(key: ApiKey, route: Route): Answer | undefined {
    const headers = limiter.refuse(key.accountId, route, world.now())
    return headers && rateLimitedAnswer(headers)
  }

  function answer(
    request: IncomingRequest,
    record: RequestRecord,
    route: Route | undefined,
    params: string[]
  ): Answer {
    const authorization = request.headers.authorization ?? ''
    const token = /^Bearer (.+)$/.exec(String(authorization))?.[1]
    const key = token ? world.keys.get(token) : undefined
    record.keyType = !token ? 'missing' : !key ? 'unknown' : key.revoked ? 'revoked' : key.type
    if (!key || key.revoked) return { status: 401, body: errorBody('authentication required') }
    if (!route) return { status: 404, body: errorBody('not found') }
    if (request.method !== 'GET') return { status: 405, body: errorBody('method not allowed') }
    const limited = rateLimit(key, route)
    if (limited) return limited
    return answerRoute(world, key, route, params, record.query)
  }

  const handler: ApiHandler = {
    violations,
    requests,
    limits,
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    holdUntil(count) {
      let release = (): void => undefined
      const released = new Promise<void>((resolve) => (release = resolve))
      barrier = { left: count, release, released }
    },
    handle(request) {
      const url = new URL(request.url, 'http://127.0.0.1')
      const record: RequestRecord = {
        at: world.now(),
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        status: 0,
        headers: request.headers
      }
      requests.push(record)
      const [route, params] = matchRoute(url.pathname)
      record.route = route
      handler.onRequest?.(record)
      const fault = faults.take(route, world.now())
      record.fault = fault?.kind
      const normal = () => finish(request, record, answer(request, record, route, params))
      if (barrier) {
        const held = barrier
        if (--held.left === 0) {
          barrier = undefined
          held.release()
        }
        return { kind: 'held', released: held.released, answer: normal }
      }
      switch (fault?.kind) {
        case undefined:
          return { kind: 'answer', answer: normal() }
        case 'status':
          return {
            kind: 'answer',
            answer: finish(request, record, {
              status: fault.status,
              body: faultBody(fault),
              headers: fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {}
            })
          }
        case 'drop':
          record.status = -1
          return { kind: 'drop' }
        case 'slow':
          return { kind: 'slow', delayMs: fault.delayMs, answer: normal }
        case 'malformed':
          record.status = fault.status ?? 200
          return {
            kind: 'malformed',
            status: record.status,
            body: fault.body ?? MALFORMED_BODY,
            headers: dated(fault.contentType ? { 'Content-Type': fault.contentType } : {})
          }
        case 'altered': {
          const answer = normal()
          return { kind: 'answer', answer: { ...answer, body: fault.alter(answer.body) } }
        }
      }
    }
  }
  return handler
}

export async function startApiServer(
  world: World,
  options: ApiOptions & { port?: number; host?: string } = {}
): Promise<ApiServer> {
  const api = createApiHandler(world, options)
  /** Answers held back by a `slow` fault; dropped when the server closes. */
  const delayed = new Set<NodeJS.Timeout>()
  const send = (response: ServerResponse, answer: Answer): void => {
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
    response.end(JSON.stringify(answer.body ?? {}))
  }
  const server = createServer((request: IncomingMessage, response) => {
    const handling = api.handle({
      method: request.method ?? '',
      url: request.url ?? '/',
      headers: request.headers
    })
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
