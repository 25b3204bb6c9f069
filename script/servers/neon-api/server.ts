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
}

export interface ApiServer {
  /** With a contract: what the requests and answers broke in it, every one since the start. */
  violations: ContractViolation[]
  url: string
  /** `${url}/api/v2`, the api_host to give the action. */
  apiHost: string
  requests: RequestRecord[]
  limits: Limits
  addFault(fault: Fault): void
  clearFaults(): void
  close(): Promise<void>
}

export async function startApiServer(
  world: World,
  options: {
    port?: number
    host?: string
    limits?: Partial<Limits>
    /** Test mode: every request and answer is checked against Neon's OpenAPI document. */
    contract?: Contract
  } = {}
): Promise<ApiServer> {
  const requests: RequestRecord[] = []
  /** Answers held back by a `slow` fault; dropped when the server closes. */
  const delayed = new Set<NodeJS.Timeout>()
  const violations: ContractViolation[] = []
  /** Answers, checked against the contract first when there is one. */
  function send(
    request: IncomingMessage,
    response: ServerResponse,
    record: RequestRecord,
    answer: Answer
  ): void {
    record.status = answer.status
    record.retryAfter = answer.headers?.['Retry-After']
    const body = answer.body ?? {}
    if (options.contract) {
      violations.push(
        ...options.contract.check(
          {
            method: record.method,
            path: record.path,
            query: record.query,
            headers: request.headers
          },
          { status: answer.status, body }
        )
      )
    }
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
    response.end(JSON.stringify(body))
  }
  const limits: Limits = { ...SPEC_LIMITS, ...options.limits }
  const faults = new Faults()
  const limiter = new RateLimiter(limits)

  /** The account's windows (limits.ts); a request over a limit gets 429 and is not counted. */
  function rateLimit(key: ApiKey, route: Route): Answer | undefined {
    const headers = limiter.refuse(key.accountId, route, world.now())
    return headers && rateLimitedAnswer(headers)
  }

  function handle(
    request: IncomingMessage,
    record: RequestRecord,
    route: Route | undefined,
    params: string[]
  ): Answer {
    const authorization = request.headers.authorization ?? ''
    const token = /^Bearer (.+)$/.exec(authorization)?.[1]
    const key = token ? world.keys.get(token) : undefined
    record.keyType = !token ? 'missing' : !key ? 'unknown' : key.revoked ? 'revoked' : key.type
    if (!key || key.revoked) return { status: 401, body: errorBody('authentication required') }
    if (!route) return { status: 404, body: errorBody('not found') }
    if (request.method !== 'GET') return { status: 405, body: errorBody('method not allowed') }
    const limited = rateLimit(key, route)
    if (limited) return limited
    return answerRoute(world, key, route, params, record.query)
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const record: RequestRecord = {
      at: world.now(),
      method: request.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0
    }
    requests.push(record)
    const [route, params] = matchRoute(url.pathname)
    record.route = route
    const fault = faults.take(route, world.now())
    record.fault = fault?.kind
    const answer = (): void =>
      send(request, response, record, handle(request, record, route, params))
    if (!fault) return answer()
    switch (fault.kind) {
      case 'status':
        return send(request, response, record, {
          status: fault.status,
          body: errorBody(`injected HTTP ${fault.status}`),
          headers: fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {}
        })
      case 'drop':
        record.status = -1
        request.socket.destroy()
        return
      case 'slow': {
        const timer = setTimeout(() => {
          delayed.delete(timer)
          answer()
        }, fault.delayMs)
        delayed.add(timer)
        return
      }
      case 'malformed':
        record.status = 200
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end('{"operation": {"id": "truncated')
        return
    }
  })
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve))
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`
  return {
    violations,
    url,
    apiHost: `${url}${BASE_PATH}`,
    requests,
    limits,
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of delayed) clearTimeout(timer)
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
