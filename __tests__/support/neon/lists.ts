/*
 * The lists of the local API, paged as the live API pages each: projects (the cursor is the last
 * project's id), a project's operations (the creation time of the last one) and its branches (the
 * search, with `pagination.next`).
 */
import { branchJson, operationJson, projectJson } from './api-json.ts'
import { type Answer, errorBody } from './answers.ts'
import type { ApiKey, BranchRecord } from './records.ts'
import type { World } from './world.ts'

const PROJECT_LIMIT = { max: 400, default: 10 }
const OPERATION_LIMIT = { max: 1000, default: 10 }
const BRANCH_LIMIT = { max: 10_000, default: 10 }

/** The projects the key reaches (a personal key names its organization), paged by id. */
export function listProjects(world: World, key: ApiKey, query: Record<string, string>): Answer {
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

export /** A project's operations, newest first, paged by creation time. */
function listOperations(world: World, projectId: string, query: Record<string, string>): Answer {
  const limit = parseLimit(query.limit, OPERATION_LIMIT)
  if (limit === undefined)
    return {
      status: 400,
      body: errorBody(`limit must be an integer from 1 to ${OPERATION_LIMIT.max}`)
    }
  world.observe(projectId, world.operationsOf(projectId))
  let list = world.operationsOf(projectId)
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

/** What each `sort_by` of the branch list sorts by (`updated_at`: its creation until it changed). */
const BRANCH_SORT_KEYS = {
  name: (branch: BranchRecord) => branch.name,
  created_at: (branch: BranchRecord) => branch.createdAt,
  updated_at: (branch: BranchRecord) => branch.updatedAt ?? branch.createdAt
}

/**
 * As the live API pages branches: `search` matches a part of the name or of the id, any case;
 * sorted by `sort_by` (`name`, `created_at` or `updated_at`, the default) and `sort_order` (`asc`
 * or `desc`, the default), as the OpenAPI document's enums give them; `limit` 1-10,000; the next
 * page's cursor in `pagination.next`, absent on the last page.
 */
export function listBranches(
  world: World,
  projectId: string,
  query: Record<string, string>
): Answer {
  const limit = parseLimit(query.limit, BRANCH_LIMIT)
  if (limit === undefined) {
    return {
      status: 400,
      body: errorBody(`limit must be an integer from 1 to ${BRANCH_LIMIT.max}`)
    }
  }
  const sortBy = query.sort_by ?? 'updated_at'
  const sortOrder = query.sort_order ?? 'desc'
  if (!Object.hasOwn(BRANCH_SORT_KEYS, sortBy) || !['asc', 'desc'].includes(sortOrder)) {
    return { status: 400, body: errorBody('sort_by or sort_order is not one of its values') }
  }
  const search = (query.search ?? '').toLowerCase()
  const key = BRANCH_SORT_KEYS[sortBy as keyof typeof BRANCH_SORT_KEYS]
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

function parseLimit(
  text: string | undefined,
  range: { max: number; default: number }
): number | undefined {
  if (text === undefined) return range.default
  const limit = Number(text)
  return Number.isInteger(limit) && limit >= 1 && limit <= range.max ? limit : undefined
}
