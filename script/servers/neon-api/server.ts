/*
 * A local implementation of the management API v2 (spec: shared/spec/management-api.md) on
 * 127.0.0.1, built on node:http: GET /projects, GET /projects/{id}/operations and
 * GET /projects/{id}/operations/{op}, with bearer keys and their scopes, paging, the rate limits of
 * spec section 8, scripted faults and a log of every request.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Contract, ContractViolation } from '../openapi-contract.ts'
import {
  type ApiKey,
  type BranchRecord,
  branchJson,
  operationJson,
  organizationJson,
  projectJson,
  type World
} from './world.ts'
import { type Limits, RateLimiter, SPEC_LIMITS } from './limits.ts'

export const BASE_PATH = '/api/v2'

export type Route =
  'projects' | 'operations' | 'operation' | 'branches' | 'branch' | 'organizations'

export type Fault = (
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'drop' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'malformed' }
) & {
  /** Only requests to this route; all routes when absent. */
  route?: Route
  /** For this many matching requests ... */
  times?: number
  /** ... or until this clock time. Without either, until removed. */
  until?: number
  /** Not before this clock time. */
  from?: number
}

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

interface Answer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

const PROJECT_LIMIT = { max: 400, default: 10 }
const OPERATION_LIMIT = { max: 1000, default: 10 }
const BRANCH_LIMIT = { max: 10_000, default: 10 }

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
  let faults: Fault[] = []
  const limiter = new RateLimiter(limits)

  function takeFault(route: Route | undefined): Fault | undefined {
    const now = world.now()
    faults = faults.filter((fault) => (fault.times ?? 1) > 0 && (fault.until ?? Infinity) > now)
    const fault = faults.find(
      (candidate) =>
        (!candidate.route || candidate.route === route) && (candidate.from ?? -Infinity) <= now
    )
    if (fault?.times !== undefined) fault.times--
    return fault
  }

  /** The account's windows (limits.ts); a request over a limit gets 429 and is not counted. */
  function rateLimit(key: ApiKey, route: Route): Answer | undefined {
    const headers = limiter.refuse(key.accountId, route, world.now())
    return headers && { status: 429, body: errorBody('rate limit exceeded, retry later'), headers }
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
    const query = record.query
    if (route === 'projects') return listProjects(key, query)
    if (route === 'organizations') {
      // A personal key's organizations; the one that owns an organization or project key.
      const organizations = key.orgIds.flatMap((id) => world.organizations.get(id) ?? [])
      return { status: 200, body: { organizations: organizations.map(organizationJson) } }
    }

    const project = world.project(params[0])
    if (!project) return { status: 404, body: errorBody(`project ${params[0]} not found`) }
    const reachable =
      key.type === 'project' ? key.projectId === project.id : key.orgIds.includes(project.orgId)
    if (!reachable)
      return { status: 403, body: errorBody('you do not have access to this project') }
    if (route === 'branch') {
      const branch = world.branchesOf(project.id).find((item) => item.id === params[1])
      if (!branch) return { status: 404, body: errorBody(`branch ${params[1]} not found`) }
      return {
        status: 200,
        body: {
          branch: branchJson(world.readBranch(branch)),
          annotation: { object: { type: 'console/branch', id: branch.id }, value: {} }
        }
      }
    }
    if (route === 'branches') return listBranches(project.id, query)
    if (route === 'operation') {
      const operation = world.operation(project.id, params[1])
      if (!operation) return { status: 404, body: errorBody(`operation ${params[1]} not found`) }
      world.observe(project.id, [operation])
      return { status: 200, body: { operation: operationJson(operation, world.now()) } }
    }
    const limit = parseLimit(query.limit, OPERATION_LIMIT)
    if (limit === undefined)
      return {
        status: 400,
        body: errorBody(`limit must be an integer from 1 to ${OPERATION_LIMIT.max}`)
      }
    world.observe(project.id, world.operationsOf(project.id))
    let list = world.operationsOf(project.id)
    if (query.cursor !== undefined) {
      const cursor = Date.parse(query.cursor)
      if (Number.isNaN(cursor)) return { status: 400, body: errorBody('invalid cursor') }
      list = list.filter((operation) => operation.createdAt < cursor)
    }
    const page = list.slice(0, limit)
    const now = world.now()
    return {
      status: 200,
      body: {
        operations: page.map((operation) => operationJson(operation, now)),
        // As the spec shows: the cursor is the creation time of the last operation on the page.
        pagination:
          page.length > 0 ? { cursor: new Date(page[page.length - 1].createdAt).toISOString() } : {}
      }
    }
  }

  /**
   * As the live API pages branches: `search` matches a part of the name or of the id, any case;
   * sorted by `sort_by` (updated_at) and `sort_order` (desc); `limit` 1-10,000; the next page's
   * cursor in `pagination.next`, absent on the last page.
   */
  function listBranches(projectId: string, query: Record<string, string>): Answer {
    const limit = parseLimit(query.limit, BRANCH_LIMIT)
    if (limit === undefined) {
      return {
        status: 400,
        body: errorBody(`limit must be an integer from 1 to ${BRANCH_LIMIT.max}`)
      }
    }
    const sortBy = query.sort_by ?? 'updated_at'
    const sortOrder = query.sort_order ?? 'desc'
    const search = (query.search ?? '').toLowerCase()
    const key = (branch: BranchRecord) => (sortBy === 'name' ? branch.name : branch.createdAt)
    const sorted = world
      .branchesOf(projectId)
      .filter((branch) => `${branch.name}\n${branch.id}`.toLowerCase().includes(search))
      .sort((a, b) => {
        const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id.localeCompare(b.id)
        return sortOrder === 'asc' ? order : -order
      })
    let start = 0
    if (query.cursor !== undefined) {
      const after = Buffer.from(query.cursor, 'base64url').toString()
      start = sorted.findIndex((branch) => branch.id === after) + 1
      if (start === 0) return { status: 400, body: errorBody('invalid cursor') }
    }
    const page = sorted.slice(start, start + limit)
    const more = start + limit < sorted.length
    return {
      status: 200,
      body: {
        branches: page.map(branchJson),
        annotations: {},
        pagination: {
          ...(more ? { next: Buffer.from(page.at(-1)!.id).toString('base64url') } : {}),
          sort_by: sortBy,
          sort_order: sortOrder
        }
      }
    }
  }

  function listProjects(key: ApiKey, query: Record<string, string>): Answer {
    const limit = parseLimit(query.limit, PROJECT_LIMIT)
    if (limit === undefined)
      return {
        status: 400,
        body: errorBody(`limit must be an integer from 1 to ${PROJECT_LIMIT.max}`)
      }
    let visible = world.projects
    if (key.type === 'project') {
      return { status: 403, body: errorBody('project-scoped API keys cannot list projects') }
    } else if (query.org_id !== undefined) {
      if (!key.orgIds.includes(query.org_id))
        return { status: 403, body: errorBody(`no access to organization ${query.org_id}`) }
      visible = visible.filter((project) => project.orgId === query.org_id)
    } else if (key.type === 'personal') {
      // The live API since 2026-08: a personal key must name the organization.
      return { status: 400, body: errorBody('org_id is required') }
    } else {
      visible = visible.filter((project) => key.orgIds.includes(project.orgId))
    }
    let start = 0
    if (query.cursor !== undefined) {
      const index = visible.findIndex((project) => project.id === query.cursor)
      if (index < 0) return { status: 400, body: errorBody('invalid cursor') }
      start = index + 1
    }
    const page = visible.slice(start, start + limit)
    return {
      status: 200,
      body: {
        projects: page.map(projectJson),
        pagination: { cursor: page.length > 0 ? page[page.length - 1].id : (query.cursor ?? '') },
        applications: {},
        integrations: {}
      }
    }
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
    const fault = takeFault(route)
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
    addFault: (fault) => faults.push({ ...fault }),
    clearFaults: () => (faults = []),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of delayed) clearTimeout(timer)
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

function matchRoute(path: string): [Route | undefined, string[]] {
  if (!path.startsWith(`${BASE_PATH}/`)) return [undefined, []]
  const segments = path
    .slice(BASE_PATH.length + 1)
    .split('/')
    .map(decodeURIComponent)
  if (segments.length === 1 && segments[0] === 'projects') return ['projects', []]
  if (segments.join('/') === 'users/me/organizations') return ['organizations', []]
  if (segments.length === 3 && segments[0] === 'projects' && segments[2] === 'operations')
    return ['operations', [segments[1]]]
  if (segments.length === 4 && segments[0] === 'projects' && segments[2] === 'operations') {
    return ['operation', [segments[1], segments[3]]]
  }
  if (segments.length === 3 && segments[0] === 'projects' && segments[2] === 'branches')
    return ['branches', [segments[1]]]
  if (segments.length === 4 && segments[0] === 'projects' && segments[2] === 'branches')
    return ['branch', [segments[1], segments[3]]]
  return [undefined, []]
}

function parseLimit(
  text: string | undefined,
  range: { max: number; default: number }
): number | undefined {
  if (text === undefined) return range.default
  const limit = Number(text)
  return Number.isInteger(limit) && limit >= 1 && limit <= range.max ? limit : undefined
}

function errorBody(message: string) {
  return { code: '', message, request_id: randomUUID() }
}
