/*
 * What a recipe asks of Neon's API besides what the gate reads: a new branch, its database's
 * connection URI (or the endpoints, databases and role password Neon's CLI builds one from) and
 * its deletion (write-answers.ts). The local API server answers reads only;
 * this front answers those from the same world (so the gate then finds the new branch and its
 * operations) and passes every other request to the server. Both are held to Neon's OpenAPI
 * document: `violations` lists what a request or an answer broke.
 */
import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type ServerResponse
} from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  type Contract,
  type ContractViolation,
  openApiContract,
  trimDocument
} from '../openapi-contract.ts'
import { neonDocument } from './contract.ts'
import { BASE_PATH } from './routes.ts'
import type { ApiServer } from './server.ts'
import { answerWrite, type WriteRequest } from './write-answers.ts'
import type { World } from './world.ts'

export interface WritingFront {
  /** The api_host to give a recipe: writes here, reads passed on to the local API server. */
  apiHost: string
  violations: ContractViolation[]
  /** Every request the front answered itself, as `POST /projects/p/branches`. */
  answered: string[]
  /** The database every branch's connection string points at. */
  databaseUrl: string
  /** How many DELETE requests are still to be answered 423 Locked. */
  lockedDeletes: number
  /** Branches whose DELETE is refused every time, by id, with the status it answers. */
  refusedDeletes: Readonly<Record<string, number>>
  /** Branches, by id, that someone else deletes just before this front's DELETE of them arrives. */
  deletedElsewhere: readonly string[]
  close(): Promise<void>
}

/** What a front's deletes meet: none of it unless a test asks. */
type DeleteFaults = Pick<WritingFront, 'lockedDeletes' | 'refusedDeletes' | 'deletedElsewhere'>
const NO_FAULTS: DeleteFaults = { lockedDeletes: 0, refusedDeletes: {}, deletedElsewhere: [] }

/**
 * The front on 127.0.0.1 before `server` (which serves `world`). GET connection_uri answers
 * `databaseUrl`, for whatever branch of the world is asked.
 */
export async function startWritingFront(
  world: World,
  server: ApiServer,
  options: { databaseUrl: string; port?: number } & Partial<DeleteFaults>
): Promise<WritingFront> {
  const contract = await writesContract()
  const { port, ...given } = options
  const handle: WritingFront = {
    ...NO_FAULTS,
    ...given,
    apiHost: '',
    violations: [],
    answered: [],
    close: async () => undefined
  }
  const front = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const raw = Buffer.concat(chunks)
      const asked = writeRequestOf(request, raw)
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
      const known = key !== undefined && world.keys.get(key)?.revoked === false
      const own = known ? answerWrite(world, asked, options.databaseUrl, handle) : undefined
      // Everything else (reads, and a write with a key the server refuses) is the server's.
      if (!own) return passOn(request, raw, response, server.url)
      handle.answered.push(`${request.method} ${asked.path.slice(BASE_PATH.length)}`)
      const query = Object.fromEntries(asked.query)
      const checked = { method: asked.method, path: asked.path, query, headers: request.headers }
      handle.violations.push(...contract.check({ ...checked, body: asked.body }, own))
      response.writeHead(own.status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(own.body))
    })
  })
  await new Promise<void>((resolve) => front.listen(port ?? 0, '127.0.0.1', resolve))
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

/**
 * Neon's OpenAPI document, trimmed to the writes the front answers: compiled once for the file's
 * fronts, not at each.
 * A check keeps nothing of a request; each front keeps its own violations.
 */
let writes: Promise<Contract> | undefined
const writesContract = () => (writes ??= compileWritesContract())

async function compileWritesContract(): Promise<Contract> {
  return openApiContract(
    trimDocument(neonDocument(), {
      '/projects/{project_id}/branches': ['post'],
      '/projects/{project_id}/branches/{branch_id}': ['delete'],
      '/projects/{project_id}/connection_uri': ['get'],
      '/projects/{project_id}/branches/{branch_id}/endpoints': ['get'],
      '/projects/{project_id}/branches/{branch_id}/databases': ['get'],
      '/projects/{project_id}/branches/{branch_id}/roles/{role_name}/reveal_password': ['get']
    }),
    { basePath: BASE_PATH }
  )
}

/** The request as the answers read it: its body as JSON, or none when it is not JSON. */
function writeRequestOf(request: IncomingMessage, raw: Buffer): WriteRequest {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1')
  let body: unknown
  try {
    body = raw.length > 0 ? JSON.parse(raw.toString()) : undefined
  } catch {
    body = undefined
  }
  return { method: request.method ?? '', path: url.pathname, query: url.searchParams, body }
}

/** The request passed on to the local API server, and its answer back as it comes. */
function passOn(
  request: IncomingMessage,
  raw: Buffer,
  response: ServerResponse,
  serverUrl: string
): void {
  const upstream = httpRequest(
    new URL(request.url ?? '/', serverUrl),
    { method: request.method, headers: request.headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(response)
    }
  )
  upstream.on('error', () => response.destroy())
  upstream.end(raw)
}
