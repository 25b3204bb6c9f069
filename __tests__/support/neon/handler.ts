/*
 * The local API without its transport (server.ts puts it on 127.0.0.1 with node:http; the simulated
 * network and nock call it in process): bearer keys, the rate limits (limits.ts), scripted faults
 * (faults.ts), held answers, a log of every request and the contract checks; what each route
 * answers is routes.ts, over the world (world.ts).
 */
import type { Contract, ContractViolation } from '../openapi-contract.ts'
import { type Answer, errorBody, rateLimitedAnswer } from './answers.ts'
import { type Fault, faultBody, Faults, MALFORMED_BODY } from './faults.ts'
import { HeldAnswers } from './held-answers.ts'
import { type Limits, RateLimiter, SPEC_LIMITS } from './limits.ts'
import type { ApiKey } from './records.ts'
import { answerRoute, matchRoute, type Route } from './routes.ts'
import type { World } from './world.ts'

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

export interface ApiOptions {
  limits?: Partial<Limits>
  /** Test mode: every request and answer is checked against Neon's OpenAPI document. */
  contract?: Contract
  /**
   * The Date header: this many ms ahead of the world's own timestamps (negative: behind), as a
   * server whose clocks disagree sends it; `none`: no Date header at all.
   */
  dateHeader?: number | 'none'
}

export function createApiHandler(world: World, options: ApiOptions = {}): ApiHandler {
  const requests: RequestRecord[] = []
  const violations: ContractViolation[] = []
  const limits: Limits = { ...SPEC_LIMITS, ...options.limits }
  const faults = new Faults()
  const limiter = new RateLimiter(limits)
  const held = new HeldAnswers()

  /** Every answer carries the server's clock, as real servers' do (RFC 9110): the world's. */
  const dated = (headers: Record<string, string> = {}) =>
    options.dateHeader === 'none'
      ? headers
      : { Date: new Date(world.now() + (options.dateHeader ?? 0)).toUTCString(), ...headers }

  /** The answer logged, and checked against the contract first when there is one. */
  function finish(request: IncomingRequest, record: RequestRecord, answer: Answer): Answer {
    answer = { ...answer, headers: dated(answer.headers) }
    record.status = answer.status
    record.retryAfter = answer.headers?.['Retry-After']
    if (options.contract) {
      const { method, path, query } = record
      const asked = { method, path, query, headers: request.headers }
      violations.push(
        ...options.contract.check(asked, { status: answer.status, body: answer.body ?? {} })
      )
    }
    return answer
  }

  const handler: ApiHandler = {
    violations,
    requests,
    limits,
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    holdUntil: (count) => held.hold(count),
    handle(request) {
      const { record, params } = logged(request, world.now())
      requests.push(record)
      handler.onRequest?.(record)
      const fault = faults.take(record.route, world.now())
      record.fault = fault?.kind
      const normal = () =>
        finish(request, record, answerAuthorized(world, limiter, request, record, params))
      const released = held.arrive()
      if (released) return { kind: 'held', released, answer: normal }
      const finishFault = (answer: Answer) => finish(request, record, answer)
      return faultHandling(fault, record, { normal, finish: finishFault, dated })
    }
  }
  return handler
}

/** The request as the log keeps it (its status still to come), and its route's path parameters. */
function logged(request: IncomingRequest, at: number): { record: RequestRecord; params: string[] } {
  const url = new URL(request.url, 'http://127.0.0.1')
  const [route, params] = matchRoute(url.pathname)
  const record: RequestRecord = {
    at,
    method: request.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    status: 0,
    headers: request.headers
  }
  record.route = route
  return { record, params }
}

/**
 * A request's key (logged by its type), then the route, the method and the account's windows
 * (limits.ts: a request over a limit gets 429 and is not counted); the route's answer when all pass.
 */
function answerAuthorized(
  world: World,
  limiter: RateLimiter,
  request: IncomingRequest,
  record: RequestRecord,
  params: string[]
): Answer {
  const { route } = record
  const authorization = request.headers.authorization ?? ''
  const token = /^Bearer (.+)$/.exec(String(authorization))?.[1]
  const key = token ? world.keys.get(token) : undefined
  record.keyType = !token ? 'missing' : !key ? 'unknown' : key.revoked ? 'revoked' : key.type
  if (!key || key.revoked) return { status: 401, body: errorBody('authentication required') }
  if (!route) return { status: 404, body: errorBody('not found') }
  if (request.method !== 'GET') return { status: 405, body: errorBody('method not allowed') }
  const headers = limiter.refuse(key.accountId, route, world.now())
  if (headers) return rateLimitedAnswer(headers)
  return answerRoute(world, key, route, params, record.query)
}

/** How a request is answered: `normal`, its answer without a fault; `finish` logs an answer. */
interface Answering {
  normal: () => Answer
  finish: (answer: Answer) => Answer
  dated: (headers?: Record<string, string>) => Record<string, string>
}

/** What a fault (or none) makes of a request. */
function faultHandling(
  fault: Fault | undefined,
  record: RequestRecord,
  { normal, finish, dated }: Answering
): Handling {
  switch (fault?.kind) {
    case undefined:
      return { kind: 'answer', answer: normal() }
    case 'status':
      return {
        kind: 'answer',
        answer: finish({
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
