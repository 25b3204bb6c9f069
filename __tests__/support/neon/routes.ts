/*
 * What the local API server answers to an authenticated request of a known route, as the live API
 * does: projects and the key's organizations, a project's operations (paged by creation time) and
 * one operation, a branch and the branch search (paged with `pagination.next`), with the key's
 * scope checked. The HTTP side (keys, limits, faults, the log) is server.ts.
 */
import { randomUUID } from 'node:crypto'
import {
  type ApiKey,
  type BranchRecord,
  branchJson,
  operationJson,
  organizationJson,
  projectJson,
  type World
} from './world.ts'

export const BASE_PATH = '/api/v2'

export type Route =
  'projects' | 'operations' | 'operation' | 'branches' | 'branch' | 'organizations'

export interface Answer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

const PROJECT_LIMIT = { max: 400, default: 10 }
const OPERATION_LIMIT = { max: 1000, default: 10 }
const BRANCH_LIMIT = { max: 10_000, default: 10 }

/** The answer to `route` (with its path `params` and `query`) for an authenticated `key`. */
export function answerRoute(
  world: World,
  key: ApiKey,
  route: Route,
  params: string[],
  query: Record<string, string>
): Answer {
  if (route === 'projects') return listProjects(world, key, query)
  if (route === 'organizations') {
    // A personal key's organizations; the one that owns an organization or project key.
    const organizations = key.orgIds.flatMap((id) => world.organizations.get(id) ?? [])
    return { status: 200, body: { organizations: organizations.map(organizationJson) } }
  }

  const project = world.project(params[0])
  if (!project) return { status: 404, body: errorBody(`project ${params[0]} not found`) }
  const reachable =
    key.type === 'project' ? key.projectId === project.id : key.orgIds.includes(project.orgId)
  if (!reachable) return { status: 403, body: errorBody('you do not have access to this project') }
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
  if (route === 'branches') return listBranches(world, project.id, query)
  if (route === 'operation') {
    const operation = world.operation(project.id, params[1])
    if (!operation) return { status: 404, body: errorBody(`operation ${params[1]} not found`) }
    world.observe(project.id, [operation])
    world.read([operation])
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
  const page = list.slice(0, Math.min(limit, world.operationsPageCap))
  world.read(page)
  const now = world.now()
  return {
    status: 200,
    body: {
      operations: page.map((operation) => operationJson(operation, now)),
      // As the spec shows: the cursor is the creation time of the last operation on the page;
      // the OpenAPI document requires one on an empty page too: the cursor asked with.
      pagination: {
        cursor:
          page.length > 0
            ? new Date(page[page.length - 1].createdAt).toISOString()
            : (query.cursor ?? '')
      }
    }
  }
}
/** The cursor of the branch page that follows branch `id`: what the world's `pagination.next` holds. */
export const branchCursor = (id: string) => Buffer.from(id).toString('base64url')

/**
 * As the live API pages branches: `search` matches a part of the name or of the id, any case;
 * sorted by `sort_by` (updated_at) and `sort_order` (desc); `limit` 1-10,000; the next page's
 * cursor in `pagination.next`, absent on the last page.
 */
function listBranches(world: World, projectId: string, query: Record<string, string>): Answer {
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
  const size = Math.min(limit, world.branchesPageCap)
  const page = sorted.slice(start, start + size)
  const more = start + size < sorted.length
  return {
    status: 200,
    body: {
      branches: page.map(branchJson),
      annotations: {},
      pagination: {
        ...(more ? { next: branchCursor(page.at(-1)!.id) } : {}),
        sort_by: sortBy,
        sort_order: sortOrder
      }
    }
  }
}

function listProjects(world: World, key: ApiKey, query: Record<string, string>): Answer {
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
      ...(world.unavailableProjectIds.length > 0
        ? { unavailable_project_ids: world.unavailableProjectIds }
        : {}),
      applications: {},
      integrations: {}
    }
  }
}

export function matchRoute(path: string): [Route | undefined, string[]] {
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

/** A request over a rate limit (limits.ts): 429, with the limiter's headers. */
export function rateLimitedAnswer(headers: Record<string, string>): Answer {
  return { status: 429, body: errorBody('rate limit exceeded, retry later'), headers }
}

export function errorBody(message: string) {
  return { code: '', message, request_id: randomUUID() }
}
