/*
 * What a recipe's writes get from the world (writes.ts puts them before the local API server): a
 * new branch (POST /projects/{id}/branches, with a read-write compute), its database's connection
 * URI (GET /projects/{id}/connection_uri) and its deletion (DELETE
 * /projects/{id}/branches/{branch_id}, `423 Locked` while `lockedDeletes` lasts). And what Neon's
 * CLI reads to build a connection string (`neon connection-string`): a branch's endpoints, its
 * databases and a role's password (GET …/branches/{branch_id}/endpoints, …/databases,
 * …/roles/{role_name}/reveal_password), all of the one database at `databaseUrl`.
 */
import { randomUUID } from 'node:crypto'
import { branchJson, operationJson } from './api-json.ts'
import { BASE_PATH } from './routes.ts'
import type { World } from './world.ts'

export interface WriteRequest {
  method: string
  path: string
  query: URLSearchParams
  body: unknown
}

export interface WriteAnswer {
  status: number
  body: unknown
}

/**
 * Deletions still to be refused, as while an operation of the project runs; branches whose delete
 * is refused for good, with the status (409: a child branch made since the sweep read); and
 * branches someone else deletes between a check and this delete.
 */
interface Locks {
  lockedDeletes: number
  refusedDeletes?: Readonly<Record<string, number>>
  deletedElsewhere?: readonly string[]
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The answer to a write (GET connection_uri answers `databaseUrl`, for whatever branch of the world
 * is asked); undefined: not a write, the server's to answer.
 */
export function answerWrite(
  world: World,
  { method, path, query, body }: WriteRequest,
  databaseUrl: string,
  locks: Locks
): WriteAnswer | undefined {
  const [, projectId, resource, branchId, part, roleName] =
    new RegExp(
      `^${BASE_PATH}/projects/([^/]+)/(branches|connection_uri)(?:/([^/]+)(?:/(endpoints|databases|roles/([^/]+)/reveal_password))?)?$`
    ).exec(path) ?? []
  if (!resource) return undefined
  const project = world.project(projectId)
  if (!project) return { status: 404, body: { code: '', message: 'project not found' } }
  if (part !== undefined) {
    const id = decodeURIComponent(branchId)
    if (method !== 'GET') return undefined
    if (!world.branchesOf(project.id).some((item) => item.id === id))
      return { status: 404, body: { code: '', message: 'branch not found' } }
    return branchPart(project.id, id, part, roleName && decodeURIComponent(roleName), databaseUrl)
  }
  if (branchId !== undefined) {
    return method === 'DELETE' && resource === 'branches'
      ? deleteBranch(world, project.id, decodeURIComponent(branchId), locks)
      : undefined
  }
  if (method === 'POST' && resource === 'branches') return createBranch(world, project.id, body)
  if (method === 'GET' && resource === 'connection_uri') {
    const known = world.branchesOf(project.id).some((item) => item.id === query.get('branch_id'))
    if (!known) return { status: 404, body: { code: '', message: 'branch not found' } }
    return { status: 200, body: { uri: databaseUrl } }
  }
  return undefined
}

/**
 * A branch's endpoints, databases or role password, as of the database at `databaseUrl`: its
 * host and port are the compute's host, its database and role the branch's only ones.
 */
function branchPart(
  projectId: string,
  branchId: string,
  part: string,
  roleName: string | undefined,
  databaseUrl: string
): WriteAnswer {
  const url = new URL(databaseUrl)
  const role = decodeURIComponent(url.username)
  const at = iso(Date.parse('2026-01-01T00:00:00Z'))
  if (part === 'endpoints') {
    const endpoint = endpointJson(
      projectId,
      branchId,
      `ep-${branchId.slice(3, 20)}`,
      Date.parse(at)
    )
    return {
      status: 200,
      body: {
        endpoints: [
          { ...endpoint, host: url.host, current_state: 'active', pending_state: undefined }
        ]
      }
    }
  }
  if (part === 'databases') {
    const name = decodeURIComponent(url.pathname.slice(1))
    const database = {
      id: 1,
      branch_id: branchId,
      name,
      owner_name: role,
      created_at: at,
      updated_at: at
    }
    return { status: 200, body: { databases: [database] } }
  }
  if (roleName !== role) return { status: 404, body: { code: '', message: 'role not found' } }
  return { status: 200, body: { password: decodeURIComponent(url.password) } }
}

/** A new branch and what its creation starts (world.ts's createBranch), with its compute. */
function createBranch(world: World, projectId: string, body: unknown): WriteAnswer {
  const asked = (body as { branch?: { name?: string; parent_id?: string } } | undefined)?.branch
  const parentId = asked?.parent_id
  if (parentId !== undefined && !world.branchesOf(projectId).some((item) => item.id === parentId))
    return { status: 404, body: { code: '', message: 'parent branch not found' } }
  const endpointId = `ep-${randomUUID().slice(0, 8)}`
  const operations = world.createBranch(projectId, {
    branchName: asked?.name,
    endpointId,
    createMs: 300,
    startMs: 300
  })
  const branch = world.branchesOf(projectId).find((item) => item.id === operations[0].branchId)!
  if (parentId !== undefined) branch.parentId = parentId
  const now = world.now()
  return {
    status: 201,
    body: {
      branch: branchJson({ ...branch, state: { current: 'init', pending: 'ready' } }),
      endpoints: [endpointJson(projectId, branch.id, endpointId, now)],
      operations: operations.map((operation) => operationJson(operation, now)),
      roles: [],
      databases: []
    }
  }
}

function deleteBranch(world: World, projectId: string, branchId: string, locks: Locks) {
  const list = world.branchesOf(projectId)
  if (locks.deletedElsewhere?.includes(branchId)) {
    const gone = list.findIndex((item) => item.id === branchId)
    if (gone >= 0) list.splice(gone, 1)
  }
  const branch = list.find((item) => item.id === branchId)
  if (!branch) return { status: 404, body: { code: '', message: 'branch not found' } }
  const refused = locks.refusedDeletes?.[branchId]
  if (refused !== undefined) {
    return { status: refused, body: { code: '', message: 'the branch cannot be deleted now' } }
  }
  if (locks.lockedDeletes > 0) {
    locks.lockedDeletes--
    return { status: 423, body: { code: '', message: 'project already has running operations' } }
  }
  list.splice(list.indexOf(branch), 1)
  return { status: 200, body: { branch: branchJson(branch), operations: [] } }
}

/** A read-write compute as the live API describes it, every field the document requires. */
function endpointJson(projectId: string, branchId: string, endpointId: string, at: number) {
  return {
    host: `${endpointId}.us-east-2.aws.neon.tech`,
    id: endpointId,
    project_id: projectId,
    branch_id: branchId,
    region_id: 'aws-us-east-2',
    autoscaling_limit_min_cu: 0.25,
    autoscaling_limit_max_cu: 2,
    type: 'read_write',
    current_state: 'init',
    pending_state: 'active',
    pooler_enabled: false,
    pooler_mode: 'transaction',
    disabled: false,
    passwordless_access: true,
    creation_source: 'console',
    created_at: iso(at),
    updated_at: iso(at),
    settings: {},
    proxy_host: 'us-east-2.aws.neon.tech',
    suspend_timeout_seconds: 0,
    provisioner: 'k8s-neonvm'
  }
}
