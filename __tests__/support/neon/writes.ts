/*
 * What a recipe asks of Neon's API besides what the gate reads: a new branch (POST
 * /projects/{id}/branches, with a read-write compute), its database's connection URI (GET
 * /projects/{id}/connection_uri) and its deletion (DELETE /projects/{id}/branches/{branch_id},
 * `423 Locked` the first `lockedDeletes` times, as while an operation of the project runs). The
 * local API server answers reads only; this front answers those from the same world (so the gate then finds the new branch and its operations) and
 * passes every other request to the server. Both are held to Neon's OpenAPI document: `violations`
 * lists what a request or an answer broke.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import YAML from 'yaml'
import {
  type ApiDocument,
  type ContractViolation,
  openApiContract,
  trimDocument
} from '../openapi-contract.ts'
import { NEON_DOCUMENT } from './contract.ts'
import { BASE_PATH } from './routes.ts'
import type { ApiServer } from './server.ts'
import { branchJson, operationJson } from './api-json.ts'
import type { World } from './world.ts'

export interface WritingFront {
  /** The api_host to give a recipe: writes here, reads passed on to the local API server. */
  apiHost: string
  violations: ContractViolation[]
  /** Every request the front answered itself, as `POST /projects/p/branches`. */
  answered: string[]
  /** How many DELETE requests are still to be answered 423 Locked. */
  lockedDeletes: number
  close(): Promise<void>
}

const iso = (ms: number) => new Date(ms).toISOString()

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

/**
 * The front on 127.0.0.1 before `server` (which serves `world`). GET connection_uri answers
 * `databaseUrl`, for whatever branch of the world is asked.
 */
export async function startWritingFront(
  world: World,
  server: ApiServer,
  options: { databaseUrl: string; lockedDeletes?: number }
): Promise<WritingFront> {
  const document = YAML.parse(readFileSync(NEON_DOCUMENT, 'utf8')) as ApiDocument
  const contract = await openApiContract(
    trimDocument(document, {
      '/projects/{project_id}/branches': ['post'],
      '/projects/{project_id}/branches/{branch_id}': ['delete'],
      '/projects/{project_id}/connection_uri': ['get']
    }),
    { basePath: BASE_PATH }
  )
  const violations: ContractViolation[] = []
  const answered: string[] = []
  const handle: WritingFront = {
    apiHost: '',
    violations,
    answered,
    lockedDeletes: options.lockedDeletes ?? 0,
    close: async () => undefined
  }

  function answer(method: string, path: string, query: URLSearchParams, body: unknown) {
    const [, projectId, resource, branchId] =
      new RegExp(`^${BASE_PATH}/projects/([^/]+)/(branches|connection_uri)(?:/([^/]+))?$`).exec(
        path
      ) ?? []
    if (!resource) return undefined
    const project = world.project(projectId)
    if (!project) return { status: 404, body: { code: '', message: 'project not found' } }
    if (branchId !== undefined) {
      return method === 'DELETE' && resource === 'branches'
        ? deleteBranch(project.id, decodeURIComponent(branchId))
        : undefined
    }
    if (method === 'POST' && resource === 'branches') {
      const name = (body as { branch?: { name?: string } } | undefined)?.branch?.name
      const endpointId = `ep-${randomUUID().slice(0, 8)}`
      const operations = world.createBranch(project.id, {
        branchName: name,
        endpointId,
        createMs: 300,
        startMs: 300
      })
      const branch = world
        .branchesOf(project.id)
        .find((item) => item.id === operations[0].branchId)!
      const now = world.now()
      return {
        status: 201,
        body: {
          branch: branchJson({ ...branch, state: { current: 'init', pending: 'ready' } }),
          endpoints: [endpointJson(project.id, branch.id, endpointId, now)],
          operations: operations.map((operation) => operationJson(operation, now)),
          roles: [],
          databases: []
        }
      }
    }
    if (method === 'GET' && resource === 'connection_uri') {
      const known = world.branchesOf(project.id).some((item) => item.id === query.get('branch_id'))
      if (!known) return { status: 404, body: { code: '', message: 'branch not found' } }
      return { status: 200, body: { uri: options.databaseUrl } }
    }
    return undefined
  }

  function deleteBranch(projectId: string, branchId: string) {
    const list = world.branchesOf(projectId)
    const branch = list.find((item) => item.id === branchId)
    if (!branch) return { status: 404, body: { code: '', message: 'branch not found' } }
    if (handle.lockedDeletes > 0) {
      handle.lockedDeletes--
      return { status: 423, body: { code: '', message: 'project already has running operations' } }
    }
    list.splice(list.indexOf(branch), 1)
    return { status: 200, body: { branch: branchJson(branch), operations: [] } }
  }

  const front = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1')
      const raw = Buffer.concat(chunks)
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
      const known = key !== undefined && world.keys.get(key)?.revoked === false
      let body: unknown
      try {
        body = raw.length > 0 ? JSON.parse(raw.toString()) : undefined
      } catch {
        body = undefined
      }
      const own = known
        ? answer(request.method ?? '', url.pathname, url.searchParams, body)
        : undefined
      if (own) {
        answered.push(`${request.method} ${url.pathname.slice(BASE_PATH.length)}`)
        violations.push(
          ...contract.check(
            {
              method: request.method ?? '',
              path: url.pathname,
              query: Object.fromEntries(url.searchParams),
              headers: request.headers,
              body
            },
            own
          )
        )
        response.writeHead(own.status, { 'content-type': 'application/json' })
        return void response.end(JSON.stringify(own.body))
      }
      // Everything else (reads, and a write with a key the server refuses) is the server's.
      const upstream = httpRequest(
        new URL(request.url ?? '/', server.url),
        { method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(response)
        }
      )
      upstream.on('error', () => response.destroy())
      upstream.end(raw)
    })
  })
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`
  Object.assign(handle, {
    apiHost: `${url}${BASE_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        front.closeAllConnections()
        front.close(() => resolve())
      })
  })
  return handle
}
