/*
 * The API client in process, over the real HTTP transport, on the fake clock: what it sends, what
 * it makes of each answer (errors worded, retries and their waits, the pace after a 429), paging,
 * and a personal key's organizations. The API is the local API server's handler behind nock; a
 * socket that never answers is a raw server, as only a wire shows it.
 */
import { describe, expect, it } from '@jest/globals'
import { ApiClient } from '../src/api/api-client.js'
import { type HttpGet, httpGet } from '../src/api/http-transport.js'
import { NoSuchBranchError, resolveBranch } from '../src/wait/branch-resolver.js'
import { BRANCH_PAGE_LIMIT, MAX_BRANCH_PAGES } from '../src/api/resources/branches.js'
import { PROJECTS_PAGE_LIMIT } from '../src/api/resources/projects.js'
import type { Branch } from '../src/domain/schemas.js'
import {
  ApiError,
  DeadlineExceededError,
  InputError,
  NetworkError,
  NotJsonError,
  ResponseFormatError
} from '../src/domain/errors.js'
import type { Logger } from '../src/domain/logger.js'
import { Pace } from '../src/api/pace.js'
import { RetryPolicy } from '../src/api/retry-policy.js'
import { Redactor } from '../src/domain/untrusted-text.js'
import { ACTION_NAME, ACTION_VERSION } from '../src/domain/version.js'
import { FakeClock } from './support/time/clock.js'
import { hostile } from './support/neon/hostile.js'
import { KEYS, MAIN_BRANCH, ORG, PROJECT } from './support/neon/ids.js'
import { branchCursor } from './support/neon/lists.js'
import { API_HOST, nockWorld } from './support/neon/nock.js'
import { letThrough, withoutNetwork } from './support/nock.js'
import { operationIn } from './support/neon/scenarios.js'

const KEY = KEYS.organization

const lines: string[] = []
const logger: Logger = {
  info: (message) => lines.push(message),
  warning: (message) => lines.push(message),
  notice: (message) => lines.push(message),
  debug: (message) => lines.push(message)
}

/** An API client of `baseUrl` (the world behind nock unless told) on `clock`. */
function client(
  clock = new FakeClock(),
  options: {
    deadlineMs?: number
    requestTimeoutMs?: number
    random?: () => number
    key?: string
    baseUrl?: string
    pace?: Pace
    transport?: HttpGet
  } = {}
) {
  return new ApiClient({
    baseUrl: `${options.baseUrl ?? API_HOST}/`,
    apiKey: options.key ?? KEY,
    requestTimeoutMs: options.requestTimeoutMs ?? 5000,
    retryPolicy: new RetryPolicy({ random: options.random ?? (() => 0) }),
    pace: options.pace ?? new Pace(1000, clock, logger, () => 0),
    clock,
    logger,
    redactor: new Redactor([options.key ?? KEY]),
    deadline: clock.now() + (options.deadlineMs ?? 600_000),
    transport: options.transport ?? httpGet
  })
}

/** The world behind nock on a fresh fake clock, with one operation of the project in flight. */
/** What a proxy or a gateway sends in place of the API's answer, with status 200. */
const PROXY_PAGE = '<html><body><h1>Please wait…</h1></body></html>'

function world(options: Parameters<typeof nockWorld>[1] = {}) {
  const clock = new FakeClock()
  const { world, api } = nockWorld(clock, options)
  const op = operationIn(world, 'running', { action: 'start_compute' })
  return { clock, world, api, op }
}

/** The main branch, and `count` more whose names contain "main"; no limit on the reads a second. */
function branches(count: number) {
  const setup = world({ limits: { perSecondPerRoute: Infinity } })
  for (let i = 0; i < count; i++) {
    setup.world.addBranch(PROJECT, {
      id: `br-b-${i}`,
      name: `main-${i}`,
      createdAt: setup.world.now() + i + 1
    })
  }
  return setup
}

withoutNetwork(() => {
  lines.length = 0
})

async function failure(promise: Promise<unknown>, key: string = KEY): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught as Error
  )
  if (!error) throw new Error('expected the request to fail')
  expect(error.message).not.toContain(key)
  return error
}

describe("ApiClient: the server's clock", () => {
  it("hands each answer's Date header up with when its request went out, errors and retries included", async () => {
    const { clock, api, op } = world()
    api.addFault({ kind: 'status', status: 503, times: 1 })
    const dates: [string | undefined, number][] = []
    const sentAt: number[] = []
    const reader = new ApiClient({
      baseUrl: API_HOST,
      apiKey: KEY,
      requestTimeoutMs: 5000,
      retryPolicy: new RetryPolicy({ random: () => 0 }),
      pace: new Pace(1000, clock, logger, () => 0),
      clock,
      logger,
      redactor: new Redactor([KEY]),
      deadline: clock.now() + 600_000,
      // Each request takes 250 ms of the fake clock; the retry's answer comes without a Date
      // header, as a server may send it.
      transport: async (url, options) => {
        sentAt.push(clock.now())
        const answer = await httpGet(url, options)
        clock.advance(250)
        if (sentAt.length === 1) return answer
        const headers = { ...answer.headers }
        delete headers.date
        return { ...answer, headers }
      },
      onDate: (date, at) => dates.push([date, at])
    })
    await reader.operations.getOperation(PROJECT, op.id)
    // The 503 first (its Date), then the retry after the back-off (no Date).
    expect(api.requests.map((request) => request.status)).toEqual([503, 200])
    expect(dates).toEqual([
      [new Date(sentAt[0]).toUTCString(), sentAt[0]],
      [undefined, sentAt[1]]
    ])
    expect(sentAt[1]).toBeGreaterThan(sentAt[0] + 250)
  })
})

describe('ApiClient requests', () => {
  it('sends the key as a bearer token, Accept and User-Agent, and URL-encodes path segments', async () => {
    const { world: w, api } = world()
    w.addProject({ id: 'a/b c', orgId: ORG })
    w.addOperation('a/b c', {
      id: 'x?y',
      action: 'start_compute',
      createdAt: w.now() - 5000,
      timeline: [{ status: 'running', ms: 1234 }, { status: 'finished' }]
    })
    const result = await client().operations.getOperation('a/b c', 'x?y')
    expect(result).toMatchObject({ id: 'x?y', status: 'finished', total_duration_ms: 1234 })
    const [request] = api.requests
    expect(request.path).toBe('/api/v2/projects/a%2Fb%20c/operations/x%3Fy')
    expect(request.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      accept: 'application/json',
      'user-agent': `${ACTION_NAME}/${ACTION_VERSION}`
    })
  })

  it('ignores unknown fields and accepts unknown statuses', async () => {
    const { world: w, api } = world()
    const op = w.addOperation(PROJECT, { action: 'x', timeline: [{ status: 'levitating' }] })
    api.addFault({
      kind: 'altered',
      alter: (body) => {
        const { operation } = body as { operation: Record<string, unknown> }
        return { operation: { ...operation, brand_new: { x: 1 } }, extra: 1 }
      }
    })
    const result = await client().operations.getOperation(PROJECT, op.id)
    expect(result).toMatchObject({ id: op.id, status: 'levitating' })
    expect(result).not.toHaveProperty('brand_new')
  })

  it('reads a page of operations with limit and cursor', async () => {
    const { world: w, api } = world()
    w.addHistory(PROJECT, 3, { everyMs: 60_000 })
    const [, second, third] = w.operationsOf(PROJECT).slice(1)
    const cursor = new Date(second.createdAt + 1).toISOString()
    const page = await client().operations.listOperations(PROJECT, { limit: 100, cursor })
    expect(api.requests[0].query).toEqual({ limit: '100', cursor })
    expect(page.operations.map((op) => op.id)).toEqual([second.id, third.id])
    expect(page.pagination?.cursor).toBe(new Date(third.createdAt).toISOString())
  })
})

describe('ApiClient errors', () => {
  it('401: fails at once, says the key is missing, invalid or revoked', async () => {
    const { api, op } = world()
    api.addFault({ kind: 'status', status: 401, code: 'X', message: 'the API explains' })
    const error = await failure(client().operations.getOperation(PROJECT, op.id))
    expect(error).toBeInstanceOf(ApiError)
    const { requestId } = error as ApiError
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(error).toMatchObject({ status: 401, code: 'X' })
    expect(error.message).toBe(
      `The API rejected the key (HTTP 401 on GET /projects/${PROJECT}/operations/${op.id}): api_key is missing, invalid or revoked. API says: "the API explains"; code X; request id ${requestId}`
    )
    expect(api.requests).toHaveLength(1)
  })

  it('403: the key cannot reach the project', async () => {
    const { op } = world()
    const error = await failure(
      client(undefined, { key: KEYS.otherProject }).operations.getOperation(PROJECT, op.id),
      KEYS.otherProject
    )
    expect(error.message).toContain(
      `The key has no access to operation "${op.id}" of project "${PROJECT}" (HTTP 403`
    )
    expect(error.message).toContain('a project-scoped key reaches only its own project')
  })

  it('404: names what was not found', async () => {
    world()
    const error = await failure(
      client().operations.listOperations('no-such-project', { limit: 10 })
    )
    expect(error.message).toMatch(/^Project "no-such-project" was not found \(HTTP 404/)
    expect(error.message).toMatch(/request id [0-9a-f-]{36}/)
  })

  it.each([
    ['the compute list of project', (api: ApiClient) => api.computes.listProjectComputes(PROJECT)],
    ['the compute list of branch', (api: ApiClient) => api.branches.listComputes(PROJECT, 'br-x')]
  ])(
    '404 on a list: "%s … was not found", one thing, whatever the list holds',
    async (said, ask) => {
      const { api } = world()
      api.addFault({ kind: 'status', status: 404 })
      const error = await failure(ask(client()))
      expect(error.message.startsWith(`${said.charAt(0).toUpperCase()}${said.slice(1)} `)).toBe(
        true
      )
      expect(error.message).toMatch(/" was not found \(HTTP 404 on GET /)
    }
  )

  it('other 4xx: status and the API message, no retry', async () => {
    const { api, op } = world()
    api.addFault({ kind: 'status', status: 422, message: 'bad limit' })
    const error = await failure(client().operations.getOperation(PROJECT, op.id))
    expect(error.message).toMatch(
      new RegExp(
        `^GET /projects/${PROJECT}/operations/${op.id} failed with HTTP 422\\. API says: "bad limit"; request id [0-9a-f-]{36}$`
      )
    )
    expect(api.requests).toHaveLength(1)
  })

  it('redacts the key when an error body echoes the request', async () => {
    const { api, op } = world()
    api.addFault({
      kind: 'status',
      status: 400,
      message: `bad header Authorization: Bearer ${KEY}`
    })
    const error = await failure(client().operations.getOperation(PROJECT, op.id))
    expect(error.message).toContain('bad header Authorization: Bearer ***')
  })

  it('an error body that is not JSON still gives the status', async () => {
    const { api, op } = world()
    api.addFault({ kind: 'malformed', status: 400 })
    const error = await failure(client().operations.getOperation(PROJECT, op.id))
    expect(error).toMatchObject({ status: 400 })
  })

  it("an answer for another project, or a list holding another project's operation, is an error", async () => {
    const { api, op } = world()
    const elsewhere = (operation: Record<string, unknown>) => ({
      ...operation,
      project_id: 'someone-else-123'
    })
    api.addFault({
      kind: 'altered',
      times: 2,
      alter: (body) => {
        const { operation, operations } = body as Record<string, Record<string, unknown>[]>
        if (operations) return { ...(body as object), operations: operations.map(elsewhere) }
        return { operation: elsewhere(operation as unknown as Record<string, unknown>) }
      }
    })
    const single = await failure(client().operations.getOperation(PROJECT, op.id))
    expect(single.message).toContain('belongs to project "someone-else-123"')
    const list = await failure(client().operations.listOperations(PROJECT, { limit: 10 }))
    expect(list).toBeInstanceOf(ResponseFormatError)
    expect(list.message).toContain('belongs to project "someone-else-123"')
  })

  it('no request starts later than 1 s after the deadline', async () => {
    const { clock, op } = world()
    const reader = client(clock, { deadlineMs: 5000 })
    clock.advance(6000)
    const error = await failure(reader.operations.getOperation(PROJECT, op.id))
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect(reader.stats.requests).toBe(0)
  })

  it('a 429 slows the pace, and retries wait at least the pace', async () => {
    const { clock, api, op } = world()
    const pace = new Pace(5000, clock, logger, () => 0)
    api.addFault({ kind: 'status', status: 429, times: 1 })
    api.addFault({ kind: 'status', status: 503, times: 1 })
    // The longest draws: the waits show the pace and the back-off's range.
    await client(clock, { pace, random: () => 0.999999 }).operations.getOperation(PROJECT, op.id)
    // The 429's retry goes out late in the interval after the interval; the 503's from the tripled
    // pace's next poll (11.25 s at this draw), spread after it and capped at the recovery bound,
    // 3 intervals.
    expect(clock.sleeps).toEqual([9500, 15_000])
    // The next poll waits the tripled pace, 15 s ± 25 % (the draw of 0 gives its low end).
    expect(pace.nextPollDelayMs()).toBe(11_250)
    expect(pace.rateLimited).toBe(1)
    expect(lines).toContain('429: polling every 15.0 s for now')
  })

  it('5xx then success: retried with backoff', async () => {
    const { clock, api, op } = world()
    for (const status of [500, 502, 503, 504]) api.addFault({ kind: 'status', status, times: 1 })
    const reader = client(clock, { random: () => 0.999999 })
    await expect(reader.operations.getOperation(PROJECT, op.id)).resolves.toMatchObject({
      id: op.id
    })
    // The longest draws: the first retry late in the interval after the floor, the later ones two
    // intervals after it, capped at 3 intervals.
    expect(clock.sleeps).toEqual([1900, 3000, 3000, 3000])
    // Each answered; only the last one read.
    expect(reader.stats).toEqual({ requests: 5, retries: 4, answered: 5, read: 1 })
    expect(lines.filter((line) => line.includes('retrying in'))).toHaveLength(4)
  })

  it('429 with Retry-After: waits as long, then late in the interval after it', async () => {
    const { clock, api, op } = world()
    api.addFault({ kind: 'status', status: 429, retryAfter: '7', times: 1 })
    await client(clock).operations.getOperation(PROJECT, op.id)
    expect(clock.sleeps).toEqual([8000])
    expect(lines).toContainEqual(
      `GET /projects/${PROJECT}/operations/${op.id}: HTTP 429, Retry-After 7; retrying in 8.0 s`
    )
  })

  it('a dropped connection is retried', async () => {
    const { clock, api, op } = world()
    api.addFault({ kind: 'drop', times: 1 })
    // Long enough that the reset, not the time limit, ends the request on a loaded machine.
    const reader = client(clock, { requestTimeoutMs: 10_000, deadlineMs: 2500 })
    await expect(reader.operations.getOperation(PROJECT, op.id)).resolves.toMatchObject({
      id: op.id
    })
    expect(clock.sleeps).toEqual([2000])
    expect(lines).toContainEqual(expect.stringMatching(/: no answer \(ECONNRESET/))
  })

  it('a request that outlives its time limit is a retryable network error', async () => {
    // A socket that is open and silent: only a wire shows it.
    const silent = await hostile(() => undefined)
    letThrough(silent.url)
    const clock = new FakeClock()
    const reader = client(clock, {
      baseUrl: silent.apiHost,
      requestTimeoutMs: 50,
      deadlineMs: 2500
    })
    const error = await failure(reader.operations.getOperation(PROJECT, 'op-1'))
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect((error as DeadlineExceededError).lastError).toBeInstanceOf(NetworkError)
    expect(error.message).toContain('no answer within 50 ms')
    expect(reader.stats).toEqual({ requests: 2, retries: 1, answered: 0, read: 0 })
  })

  it('retries never run past the deadline', async () => {
    const { clock, api, op } = world()
    api.addFault({ kind: 'status', status: 503 })
    const error = await failure(
      client(clock, { deadlineMs: 5000 }).operations.getOperation(PROJECT, op.id)
    )
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(5000)
  })

  it('one body that is not JSON (a proxy’s page with status 200) is retried like a cut-off body', async () => {
    const { clock, api, op } = world()
    api.addFault({ kind: 'malformed', body: PROXY_PAGE, contentType: 'text/html', times: 1 })
    const reader = client(clock)
    const operation = await reader.operations.getOperation(PROJECT, op.id)
    expect(operation.id).toBe(op.id)
    expect(reader.stats).toEqual({ requests: 2, retries: 1, answered: 2, read: 1 })
  })

  it('a run of bodies that are not JSON until the deadline: the deadline, naming the endpoint', async () => {
    const { clock, api, op } = world()
    api.addFault({ kind: 'malformed' })
    const error = await failure(
      client(clock, { deadlineMs: 60_000 }).operations.getOperation(PROJECT, op.id)
    )
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect((error as DeadlineExceededError).lastError).toBeInstanceOf(NotJsonError)
    expect(error.message).toContain(
      `last error: GET /projects/${PROJECT}/operations/${op.id} answered with a body that is not JSON: 31 bytes, a proxy's page?`
    )
  })

  it.each([
    [
      'a missing status names the endpoint and the field',
      { status: undefined },
      /GET \/projects\/.*: field "operation\.status": /
    ],
    ['a wrong type names the field', { failures_count: 'x' }, /field "operation\.failures_count"/]
  ])('%s', async (_case, fields, message) => {
    const { api, op } = world()
    api.addFault({
      kind: 'altered',
      alter: (body) => ({ operation: { ...(body as { operation: object }).operation, ...fields } })
    })
    const error = await failure(client().operations.getOperation(PROJECT, op.id))
    expect(error.message).toMatch(message)
  })
})

describe('ApiClient.listProjects', () => {
  it('walks every page with limit and cursor and passes org_id', async () => {
    // The demo project and 401 more: a full page and two.
    const { world: w, api } = world({ extraProjects: PROJECTS_PAGE_LIMIT + 1 })
    w.unavailableProjectIds.push('project-x')
    const listing = await client().projects.listProjects(ORG)
    const limit = String(PROJECTS_PAGE_LIMIT)
    const last = w.projects.filter((project) => project.orgId === ORG)[PROJECTS_PAGE_LIMIT - 1]
    expect(api.requests.map((request) => request.query)).toEqual([
      { limit, org_id: ORG },
      { limit, org_id: ORG, cursor: last.id }
    ])
    expect(listing.projects).toHaveLength(PROJECTS_PAGE_LIMIT + 2)
    const project = w.project('extra-project-000401')!
    expect(listing.projects[PROJECTS_PAGE_LIMIT + 1]).toMatchObject({
      id: project.id,
      name: 'Extra 401',
      region_id: 'aws-us-east-2',
      pg_version: project.pgVersion,
      created_at: new Date(project.createdAt).toISOString()
    })
    // What the gate does not read is left out.
    expect(listing.projects[0]).not.toHaveProperty('settings')
    expect(listing.unavailableProjectIds).toEqual(['project-x'])
  })

  it('stops on a full page without a cursor', async () => {
    const { api } = world({ extraProjects: PROJECTS_PAGE_LIMIT })
    api.addFault({
      kind: 'altered',
      alter: (body) => ({ projects: (body as { projects: unknown[] }).projects })
    })
    expect((await client().projects.listProjects()).projects).toHaveLength(PROJECTS_PAGE_LIMIT)
    expect(api.requests).toHaveLength(1)
    // A full page may have more after it: the listing says it stopped there.
    expect(lines).toContain(
      `The API gave a full page without a cursor to read on from; stopped listing at ${PROJECTS_PAGE_LIMIT} projects`
    )
  })

  it('ends on a short page without a cursor, with nothing to say', async () => {
    const { api } = world({ extraProjects: 3 })
    api.addFault({
      kind: 'altered',
      alter: (body) => ({ projects: (body as { projects: unknown[] }).projects })
    })
    expect((await client().projects.listProjects()).projects.length).toBeLessThan(
      PROJECTS_PAGE_LIMIT
    )
    expect(api.requests).toHaveLength(1)
    expect(lines.filter((line) => !line.startsWith('GET '))).toEqual([])
  })
})

describe('ApiClient branches', () => {
  it('searches across pages through pagination.next, with an explicit limit', async () => {
    const { api } = branches(BRANCH_PAGE_LIMIT)
    const found = await client().branches.searchBranches(PROJECT, 'main')
    const limit = String(BRANCH_PAGE_LIMIT)
    expect(api.requests.map((request) => request.query)).toEqual([
      { search: 'main', limit },
      { search: 'main', limit, cursor: expect.any(String) }
    ])
    expect(found).toHaveLength(BRANCH_PAGE_LIMIT + 1)
    // Newest first: the main branch, the oldest, ends the second page.
    expect(found.at(-1)).toMatchObject({ id: 'br-main-000001', name: 'main' })
  })

  it('stops at a repeated cursor, with a warning that says how many it looked at', async () => {
    const { api } = branches(3 * BRANCH_PAGE_LIMIT)
    let first: string | undefined
    api.addFault({
      kind: 'altered',
      alter: (body) => {
        const page = body as { pagination: { next?: string } }
        first ??= page.pagination.next
        return { ...page, pagination: { ...page.pagination, next: first } }
      }
    })
    const found = await client().branches.searchBranches(PROJECT, 'main')
    expect(found).toHaveLength(2 * BRANCH_PAGE_LIMIT)
    expect(lines).toContain(
      'Looked at the first 200 branches whose name or id contains "main" only (the API repeated a page cursor)'
    )
  })

  it('stops at the page cap, with a warning', async () => {
    const { api } = branches(MAX_BRANCH_PAGES * BRANCH_PAGE_LIMIT)
    await client().branches.searchBranches(PROJECT, 'main')
    expect(api.requests).toHaveLength(MAX_BRANCH_PAGES)
    expect(lines).toContain(
      `Looked at the first ${MAX_BRANCH_PAGES * BRANCH_PAGE_LIMIT} branches whose name or id contains "main" only (${MAX_BRANCH_PAGES} pages)`
    )
  })
})

describe('ApiClient: every branch of a project, with its parent (before a teardown)', () => {
  type BranchPage = { branches: { id: string }[]; pagination: { next?: string } }

  it('every page, without a search, until pagination.next is absent; a branch two pages show counts once', async () => {
    // main and 100 more, on pages the server cuts to 60: the first is shorter than asked, and not
    // the last: only `next` ends the list.
    const { world, api } = branches(BRANCH_PAGE_LIMIT)
    world.branchesPageCap = 60
    let previous: BranchPage | undefined
    api.addFault({
      kind: 'altered',
      route: 'branches',
      alter: (body) => {
        const page = body as BranchPage
        if (!previous) return (previous = page)
        // The second page repeats the first one's last branch, and carries a next to an empty page.
        return {
          ...page,
          branches: [previous.branches.at(-1), ...page.branches],
          pagination: { ...page.pagination, next: branchCursor(page.branches.at(-1)!.id) }
        }
      },
      times: 2
    })
    // The empty page carries a next too, never given before: the list may go on, so it is read;
    // there, an empty page names the cursor it was asked for: nothing lies past it.
    api.addFault({
      kind: 'altered',
      route: 'branches',
      alter: (body) => ({
        ...(body as BranchPage),
        branches: [],
        pagination: { next: branchCursor('br-b-0') }
      })
    })
    const { branches: found, cut } = await client().branches.listBranches(PROJECT)
    expect(cut).toBeUndefined()
    expect(found).toHaveLength(BRANCH_PAGE_LIMIT + 1)
    expect(api.requests.map((request) => request.query)).toEqual([
      { limit: String(BRANCH_PAGE_LIMIT) },
      { limit: String(BRANCH_PAGE_LIMIT), cursor: expect.any(String) },
      { limit: String(BRANCH_PAGE_LIMIT), cursor: expect.any(String) },
      { limit: String(BRANCH_PAGE_LIMIT), cursor: branchCursor('br-b-0') }
    ])
    // Newest first: main, the oldest, the project's root, ends the list.
    // With what a sweep judges each by (issue 69).
    expect(found[0]).toEqual({
      id: `br-b-${BRANCH_PAGE_LIMIT - 1}`,
      name: `main-${BRANCH_PAGE_LIMIT - 1}`,
      project_id: PROJECT,
      parent_id: MAIN_BRANCH,
      current_state: 'ready',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      default: false,
      protected: false
    })
    expect(found.at(-1)).toEqual({
      id: MAIN_BRANCH,
      name: 'main',
      project_id: PROJECT,
      current_state: 'ready',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      default: true,
      protected: false
    })
    // No warning: only the debug lines of the requests.
    expect(lines.filter((line) => !line.startsWith('GET '))).toEqual([])
  })

  it('an empty page that names a next one does not end the list: the branches past it are read', async () => {
    // main and 150 more, on pages of 60: 60, 60 and 31.
    const { world, api } = branches(150)
    world.branchesPageCap = 60
    // The second page comes back empty (a server that filtered it), its next as it was.
    let pages = 0
    api.addFault({
      kind: 'altered',
      route: 'branches',
      alter: (body) => (++pages === 2 ? { ...(body as BranchPage), branches: [] } : body),
      times: 3
    })
    const { branches: found, cut } = await client().branches.listBranches(PROJECT)
    expect(cut).toBeUndefined()
    expect(api.requests).toHaveLength(3)
    // The first page's 60 and the third page's 31: main, the oldest, is among them.
    expect(found.map((branch) => branch.id)).toContain(MAIN_BRANCH)
    expect(found).toHaveLength(91)
  })

  it.each([
    ['the page cap', MAX_BRANCH_PAGES, `${MAX_BRANCH_PAGES} pages`],
    ['a repeated cursor', 2, 'the API repeated a page cursor']
  ])('stops at %s, with a warning that gives what was read', async (_case, pages, why) => {
    // More branches than the walk reads: main is one more.
    const { api } = branches(Math.max(pages, 3) * BRANCH_PAGE_LIMIT)
    if (why.includes('cursor')) {
      let first: string | undefined
      api.addFault({
        kind: 'altered',
        alter: (body) => {
          const page = body as BranchPage
          first ??= page.pagination.next
          return { ...page, pagination: { ...page.pagination, next: first } }
        }
      })
    }
    const { branches: found, cut } = await client().branches.listBranches(PROJECT)
    expect(cut).toBe(why)
    expect(found).toHaveLength(pages * BRANCH_PAGE_LIMIT)
    expect(api.requests).toHaveLength(pages)
    expect(lines).toContain(
      `Read ${pages * BRANCH_PAGE_LIMIT} branches of project "${PROJECT}" and stopped there (${why}): a child branch among the others is not seen`
    )
  })

  it('the branch with what decides a teardown; a restricted_actions of the wrong type names its field', async () => {
    const { world, api } = branches(0)
    world.addBranch(PROJECT, {
      id: 'br-b-1',
      name: 'b-1',
      protected: true,
      restrictedActions: [{ name: 'restore', reason: 'a restore runs' }]
    })
    expect(await client().branches.getTeardownBranch(PROJECT, 'br-b-1')).toEqual({
      id: 'br-b-1',
      name: 'b-1',
      project_id: PROJECT,
      parent_id: MAIN_BRANCH,
      current_state: 'ready',
      created_at: expect.any(String),
      default: false,
      protected: true,
      restricted_actions: [{ name: 'restore', reason: 'a restore runs' }]
    })
    api.addFault({
      kind: 'altered',
      route: 'branch',
      alter: (body) => ({
        branch: { ...(body as { branch: object }).branch, restricted_actions: 'restore' }
      })
    })
    const error = await failure(client().branches.getTeardownBranch(PROJECT, 'br-b-1'))
    expect(error.message).toContain('field "branch.restricted_actions"')
    // A gate without `before` reads the same answer without that field.
    expect(await client().branches.getBranch(PROJECT, 'br-b-1')).toEqual({
      id: 'br-b-1',
      name: 'b-1',
      project_id: PROJECT,
      current_state: 'ready',
      created_at: expect.any(String)
    })
  })
})

describe('ApiClient: a personal key finds its organization', () => {
  /** A personal key in `count` organizations of the world (none for 0). */
  function personal(count: number) {
    const setup = world()
    const orgIds = Array.from({ length: count }, (_, i) => `org-${i}`)
    orgIds.forEach((id, i) =>
      setup.world.addOrganization(id, i === 0 ? 'A "quoted" <name>' : `Org ${i}`)
    )
    const token = 'napi_local_personal_many_orgs_0001'
    setup.world.addKey({ token, type: 'personal', accountId: 'user-9', orgIds })
    return { ...setup, reader: client(undefined, { key: token }), token }
  }

  it('several organizations: an input error naming org_id that lists at most 10', async () => {
    const { reader, token } = personal(12)
    const error = await failure(reader.projects.listProjects(), token)
    expect(error).toBeInstanceOf(InputError)
    expect(error.message).toContain(
      'input "org_id": required, because the key belongs to 12 organizations: org-0 ("A \\"quoted\\" <name>"), org-1 ("Org 1")'
    )
    expect(error.message).toContain('org-9 ("Org 9"), and 2 more; set org_id to one of them')
    // As the command names it: the flag once at the start, not `--org-id: --org-id is required`.
    const flag = { label: (name: string) => `--${name}`, mention: (name: string) => `--${name}` }
    expect((error as InputError).worded({ ...flag, enabled: flag.mention })).toMatch(
      /^--org_id: required, because the key belongs to 12 organizations: .*; set --org_id to one of them$/
    )
  })

  it.each([
    ['reading them fails', 1, 'reading its organizations failed: The API rejected the key'],
    ['the key has none', 0, 'the key belongs to no organization']
  ])('when %s: the original error, explained', async (kase, count, why) => {
    const { reader, token, api } = personal(count)
    if (kase === 'reading them fails') {
      api.addFault({ kind: 'status', status: 401, route: 'organizations' })
    }
    const error = await failure(reader.projects.listProjects(), token)
    expect(error.message).toMatch(
      /^GET \/projects failed with HTTP 400\. API says: "org_id is required"/
    )
    expect(error.message).toContain(
      `The key must name its organization (input "org_id"), and ${why}`
    )
  })

  it('a 400 that is not about org_id, or any error with org_id given, stays as it is', async () => {
    const { api } = world()
    api.addFault({ kind: 'status', status: 400, message: 'bad limit', times: 1 })
    expect((await failure(client().projects.listProjects())).message).toContain('bad limit')
    const error = await failure(client().projects.listProjects('org-1'))
    expect(error).toBeInstanceOf(ApiError)
    expect(error.message).toContain('no access to organization org-1')
  })
})

describe('resolveBranch', () => {
  const reader = (answers: {
    byId?: Branch | Error
    found?: Branch[]
    every?: Branch[] | Error
    cut?: string
  }) => ({
    getBranch: async () => {
      if (answers.byId instanceof Error) throw answers.byId
      if (!answers.byId) throw new Error('not asked')
      return answers.byId
    },
    searchBranches: async () => answers.found ?? [],
    listBranches: async () => {
      if (answers.every instanceof Error) throw answers.every
      return { branches: answers.every ?? [{ id: 'br-main-1', name: 'main' }], cut: answers.cut }
    }
  })
  const notFound = new ApiError({ status: 404, endpoint: 'GET /x', subject: 'branch' })

  it('an id that is no branch’s id is searched as a name', async () => {
    const named = { id: 'br-quiet-1', name: 'br-hotfix-7' }
    await expect(
      resolveBranch(reader({ byId: notFound, found: [named] }), PROJECT, 'br-hotfix-7')
    ).resolves.toEqual(named)
  })

  it('any other error of the read by id is not hidden by a search', async () => {
    const denied = new ApiError({ status: 403, endpoint: 'GET /x', subject: 'branch' })
    await expect(resolveBranch(reader({ byId: denied }), PROJECT, 'br-x-1')).rejects.toBe(denied)
  })

  it('no exact match in the search: every branch is read, and an exact match there counts', async () => {
    const named = { id: 'br-x-1', name: 'Preview/PR-12' }
    await expect(
      resolveBranch(
        reader({ found: [], every: [{ id: 'br-main-1', name: 'main' }, named] }),
        PROJECT,
        'Preview/PR-12'
      )
    ).resolves.toEqual(named)
  })

  it.each([
    ['case', 'Preview/PR-12'],
    ['a space for the slash', 'preview pr-12'],
    ['no slash, spaces around', ' previewpr-12'],
    ['an id in upper case', 'BR-PREVIEW-PR-12'],
    ['a hyphen for the slash', 'preview-pr-12'],
    ['underscores for the separators', 'preview_pr_12'],
    ['the quotes it was stored with', '"preview/pr-12"'],
    ['single quotes', "'preview/pr-12'"],
    ['the last part of its name only', 'pr-12'],
    ['the last part, in another case', 'PR-12'],
    ['a backslash for the slash', 'preview\\pr-12'],
    ['a Unicode hyphen (U+2010)', 'preview/pr\u201012'],
    ['an en dash', 'preview/pr\u201312'],
    ['an em dash', 'preview/pr\u201412'],
    ['a minus sign', 'preview/pr\u221212'],
    ['full-width digits', 'preview/pr-\uff11\uff12'],
    ['typographic quotes', '\u201cpreview/pr-12\u201d'],
    ['the last part, with full-width digits', 'pr-\uff11\uff12'],
    ['a part more in front of its path', 'team/preview/pr-12'],
    ['another word before the same number, one edit away', 'preview/mr-12'],
    ['a letter more, the same number', 'previews/pr-12'],
    ['the word before the number left out (three edits)', 'preview/12'],
    ['the number with leading zeros', 'preview/pr-0012'],
    ['three letters replaced and a leading zero', 'pheviex/pz-012']
  ])(
    'a near match (%s) is an input error that names the branch found, never NoSuchBranchError',
    async (_case, input) => {
      const branch = { id: 'br-preview-pr-12', name: 'preview/pr-12' }
      const resolving = resolveBranch(reader({ found: [], every: [branch] }), PROJECT, input)
      await expect(resolving).rejects.toBeInstanceOf(InputError)
      await expect(resolving).rejects.not.toBeInstanceOf(NoSuchBranchError)
      await expect(resolving).rejects.toThrow(
        `input "branch_id": project "${PROJECT}" has no branch named "${input}", but has preview/pr-12 (br-preview-pr-12): names are exact but for spaces around them (case, spaces within, quotes and separators count); give that name or the branch id`
      )
    }
  )

  it('not a near match: another number, the same number in a name far from it; then NoSuchBranchError', async () => {
    // preview/mr-12, once another word, is one edit away with the same number: near (issue 65).
    const others = ['preview/pr-1', 'preview/pr-123', 'preview/pr-13', 'r-12', 'pr-1', 'pr-\uff11']
    others.push('staging/mr-12', 'previews/pr-012/xyz')
    // A word of an empty value inside a name, or in a longer word, is no sign of an empty value.
    others.push('fix-null-check', 'preview/nullable', 'preview/annul', 'preview/undefined-x')
    for (const input of others) {
      const every = [{ id: 'br-preview-pr-12', name: 'preview/pr-12' }]
      await expect(resolveBranch(reader({ every }), PROJECT, input)).rejects.toBeInstanceOf(
        NoSuchBranchError
      )
    }
  })

  const UNEXPANDED = 'a variable that was not expanded'
  const EMPTY_VALUE = 'what a template writes for an empty value'
  it.each([
    ['ends in a hyphen (an empty pull-request number)', 'preview/pr-', 'it ends in "-"'],
    ['ends in a slash', 'preview/', 'it ends in "/"'],
    ['ends in an underscore', 'preview_', 'it ends in "_"'],
    ['ends in a dot', 'preview.', 'it ends in "."'],
    ['ends in a backslash', 'preview\\', 'it ends in "\\"'],
    ['ends in an en dash', 'preview/pr\u2013', 'it ends in "\u2013"'],
    ['starts with a slash (an empty prefix)', '/preview', 'it starts with "/"'],
    [
      'a shell variable',
      'preview/mr-$CI_MERGE_REQUEST_IID',
      `it holds "$CI_MERGE_REQUEST_IID", ${UNEXPANDED}`
    ],
    ['a braced one', 'preview/mr-${MR}', `it holds "\${MR}", ${UNEXPANDED}`],
    ['a lone dollar', '$', `it holds "$", ${UNEXPANDED}`],
    ['a trailing dollar', 'preview/pr-$', `it holds "$", ${UNEXPANDED}`],
    [
      'a workflow expression',
      'preview/pr-${{ github.event.number }}',
      `it holds "\${{ github.event.number }}", ${UNEXPANDED}`
    ],
    ['a template', 'preview/pr-{{ .Number }}', `it holds "{{ .Number }}", ${UNEXPANDED}`],
    ['a Windows variable', 'preview/pr-%CI_MR%', `it holds "%CI_MR%", ${UNEXPANDED}`],
    [
      'a GitLab component input',
      'preview/pr-$[[ inputs.mr ]]',
      `it holds "$[[ inputs.mr ]]", ${UNEXPANDED}`
    ],
    ['an Azure Pipelines macro', 'preview/pr-$(PR)', `it holds "$(PR)", ${UNEXPANDED}`],
    ['JavaScript undefined', 'preview/pr-undefined', `it holds "undefined", ${EMPTY_VALUE}`],
    ['null', 'preview/pr-null', `it holds "null", ${EMPTY_VALUE}`],
    ['Python None', 'preview/pr-None', `it holds "None", ${EMPTY_VALUE}`],
    ['nil', 'preview/pr_nil', `it holds "nil", ${EMPTY_VALUE}`],
    ['NaN', 'preview/pr-NaN', `it holds "NaN", ${EMPTY_VALUE}`],
    ['the word alone', 'undefined', `it holds "undefined", ${EMPTY_VALUE}`],
    ['Go templates', 'preview/pr-<no value>', `it holds "<no value>", ${EMPTY_VALUE}`],
    ['Go nil', 'preview/pr-<nil>', `it holds "<nil>", ${EMPTY_VALUE}`],
    ['C null', 'preview/pr-(null)', `it holds "(null)", ${EMPTY_VALUE}`],
    ['a JavaScript object', 'preview/[object Object]', `it holds "[object Object]", ${EMPTY_VALUE}`]
  ])(
    'a name that matches none and looks unfinished (%s) is an input error naming why, never NoSuchBranchError',
    async (_case, input, sign) => {
      const every = [{ id: 'br-preview-pr-12', name: 'preview/pr-12' }]
      const resolving = resolveBranch(reader({ every }), PROJECT, input)
      await expect(resolving).rejects.toBeInstanceOf(InputError)
      await expect(resolving).rejects.not.toBeInstanceOf(NoSuchBranchError)
      await expect(resolving).rejects.toThrow(
        `input "branch_id": project "${PROJECT}" has no branch named "${input}", and the name looks unfinished (${sign}), as a name made from an empty or unexpanded variable does; give a branch id (br-…) or the exact name of one branch of the project`
      )
    }
  )

  it('a name that looks unfinished but is a branch of the project is that branch', async () => {
    const named = { id: 'br-x-1', name: 'release/' }
    await expect(resolveBranch(reader({ every: [named] }), PROJECT, 'release/')).resolves.toEqual(
      named
    )
  })

  it('a list cut short (the page cap) that holds no such branch: an input error, never NoSuchBranchError (before a delete, gone)', async () => {
    const every = [{ id: 'br-main-1', name: 'main' }]
    const resolving = resolveBranch(reader({ every, cut: '50 pages' }), PROJECT, 'preview/pr-12')
    await expect(resolving).rejects.not.toBeInstanceOf(NoSuchBranchError)
    await expect(resolving).rejects.toThrow(
      `input "branch_id": no branch named "preview/pr-12" among the 1 branches of project "${PROJECT}" read before the list stopped (50 pages); the others were not read, so give the branch id`
    )
    // A near match among those read is still named as such.
    const near = [{ id: 'br-pr-1', name: 'Preview/PR-12' }]
    await expect(
      resolveBranch(reader({ every: near, cut: '50 pages' }), PROJECT, 'preview/pr-12')
    ).rejects.toThrow('but has Preview/PR-12 (br-pr-1)')
  })

  it('a project that lists no branch at all, or whose list fails: never NoSuchBranchError', async () => {
    const empty = resolveBranch(reader({ every: [] }), PROJECT, 'preview/pr-12')
    await expect(empty).rejects.not.toBeInstanceOf(NoSuchBranchError)
    await expect(empty).rejects.toThrow(
      `input "project_id": project "${PROJECT}" lists no branch at all, though every project has its root branch; check project_id`
    )
    const missing = new ApiError({ status: 404, endpoint: 'GET /x', subject: 'project' })
    await expect(
      resolveBranch(reader({ byId: notFound, every: missing }), PROJECT, 'br-x-1')
    ).rejects.toBe(missing)
  })

  it('a name that fits more than 5 branches lists 5 and counts the rest', async () => {
    const twins = Array.from({ length: 7 }, (_, i) => ({ id: `br-twin-${i}`, name: 'twin' }))
    await expect(resolveBranch(reader({ found: twins }), PROJECT, 'twin')).rejects.toThrow(
      `input "branch_id": 7 branches of project "${PROJECT}" are named "twin" (br-twin-0, br-twin-1, br-twin-2, br-twin-3, br-twin-4, and 2 more); give the branch id instead`
    )
  })
})
