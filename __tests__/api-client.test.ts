import { describe, expect, it } from '@jest/globals'
import nock from 'nock'
import { withoutNetwork } from './support/nock.js'
import { ApiClient } from '../src/api/api-client.js'
import { httpGet } from '../src/api/http-transport.js'
import { resolveBranch } from '../src/wait/branch-resolver.js'
import { BRANCH_PAGE_LIMIT, MAX_BRANCH_PAGES } from '../src/api/resources/branches.js'
import { PROJECTS_PAGE_LIMIT } from '../src/api/resources/projects.js'
import type { Branch } from '../src/domain/schemas.js'
import {
  ApiError,
  DeadlineExceededError,
  InputError,
  NetworkError,
  ResponseFormatError
} from '../src/domain/errors.js'
import type { Logger } from '../src/domain/logger.js'
import { Pace } from '../src/api/pace.js'
import { RetryPolicy } from '../src/api/retry-policy.js'
import { Redactor } from '../src/domain/untrusted-text.js'
import { ACTION_NAME, ACTION_VERSION } from '../src/domain/version.js'
import { FakeClock } from './support/time/clock.js'
import { startLocalServer } from './support/listen.js'
import { OP_A, PROJECT, operation } from './support/neon/operations.js'

const HOST = 'http://127.0.0.1:4010'
const BASE = `${HOST}/api/v2`
const KEY = 'napi_secret_key_1234567890'

const lines: string[] = []
const logger: Logger = {
  info: (message) => lines.push(message),
  warning: (message) => lines.push(message),
  debug: (message) => lines.push(message)
}

function client(
  clock = new FakeClock(),
  options: { deadlineMs?: number; requestTimeoutMs?: number; random?: () => number } = {}
) {
  return new ApiClient({
    baseUrl: `${BASE}/`,
    apiKey: KEY,
    requestTimeoutMs: options.requestTimeoutMs ?? 5000,
    retryPolicy: new RetryPolicy({ random: options.random ?? (() => 0) }),
    pace: new Pace(1000, clock, logger, () => 0),
    clock,
    logger,
    redactor: new Redactor([KEY]),
    deadline: clock.now() + (options.deadlineMs ?? 600_000),
    transport: httpGet
  })
}

withoutNetwork(() => {
  lines.length = 0
})

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught as Error
  )
  if (!error) throw new Error('expected the request to fail')
  expect(error.message).not.toContain(KEY)
  return error
}

describe("ApiClient: the server's clock", () => {
  it("hands each answer's Date header up with when its request went out, errors and retries included", async () => {
    const clock = new FakeClock(1_000_000)
    const dates: [string | undefined, number][] = []
    const api = new ApiClient({
      baseUrl: BASE,
      apiKey: KEY,
      requestTimeoutMs: 5000,
      retryPolicy: new RetryPolicy({ random: () => 0 }),
      pace: new Pace(1000, clock, logger, () => 0),
      clock,
      logger,
      redactor: new Redactor([KEY]),
      deadline: clock.now() + 600_000,
      transport: async (_url, options) => {
        options.signal?.throwIfAborted()
        clock.advance(250)
        const date = dates.length === 0 ? 'Mon, 23 Nov 2026 10:00:00 GMT' : undefined
        const status = dates.length === 0 ? 503 : 200
        const body = JSON.stringify({
          operation: operation({ id: OP_A, project_id: PROJECT, status: 'finished' })
        })
        return { status, headers: date ? { date } : {}, body }
      },
      onDate: (date, sentAt) => dates.push([date, sentAt])
    })
    await api.operations.getOperation(PROJECT, OP_A)
    // The 503 first (its Date), then the retry after the back-off (no Date).
    expect(dates).toEqual([
      ['Mon, 23 Nov 2026 10:00:00 GMT', 1_000_000],
      [undefined, expect.any(Number)]
    ])
    expect(dates[1][1]).toBeGreaterThan(1_000_250)
  })
})

describe('ApiClient requests', () => {
  it('sends the key as a bearer token, Accept and User-Agent, and URL-encodes path segments', async () => {
    const scope = nock(HOST, {
      reqheaders: {
        authorization: `Bearer ${KEY}`,
        accept: 'application/json',
        'user-agent': `${ACTION_NAME}/${ACTION_VERSION}`
      }
    })
      .get('/api/v2/projects/a%2Fb%20c/operations/x%3Fy')
      .reply(200, {
        operation: operation({ id: 'x?y', project_id: 'a/b c', status: 'finished' })
      })
    const result = await client().operations.getOperation('a/b c', 'x?y')
    expect(result).toMatchObject({ id: 'x?y', status: 'finished', total_duration_ms: 1234 })
    scope.done()
  })

  it('ignores unknown fields and accepts unknown statuses', async () => {
    nock(HOST)
      .get(`/api/v2/projects/${PROJECT}/operations/${OP_A}`)
      .reply(200, { operation: { id: OP_A, status: 'levitating', brand_new: { x: 1 } }, extra: 1 })
    const result = await client().operations.getOperation(PROJECT, OP_A)
    expect(result).toEqual({ id: OP_A, status: 'levitating' })
  })

  it('reads a page of operations with limit and cursor', async () => {
    nock(HOST)
      .get(`/api/v2/projects/${PROJECT}/operations`)
      .query({ limit: '100', cursor: '2026-11-21T11:00:00.123456Z' })
      .reply(200, {
        operations: [operation({ id: OP_A })],
        pagination: { cursor: '2026-11-21T10:59:00Z' }
      })
    const page = await client().operations.listOperations(PROJECT, {
      limit: 100,
      cursor: '2026-11-21T11:00:00.123456Z'
    })
    expect(page.operations.map((op) => op.id)).toEqual([OP_A])
    expect(page.pagination?.cursor).toBe('2026-11-21T10:59:00Z')
  })
})

describe('ApiClient errors', () => {
  const path = `/api/v2/projects/${PROJECT}/operations/${OP_A}`
  const body = { code: 'X', message: 'the API explains', request_id: 'req-42' }

  it('401: fails at once, says the key is missing, invalid or revoked', async () => {
    const scope = nock(HOST).get(path).once().reply(401, body)
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 401, code: 'X', requestId: 'req-42' })
    expect(error.message).toBe(
      `The API rejected the key (HTTP 401 on GET /projects/${PROJECT}/operations/${OP_A}): api_key is missing, invalid or revoked. API says: "the API explains"; code X; request id req-42`
    )
    scope.done()
  })

  it('403: the key cannot reach the project', async () => {
    nock(HOST).get(path).reply(403, { message: 'forbidden' })
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error.message).toContain(
      `The key has no access to operation "${OP_A}" of project "${PROJECT}" (HTTP 403`
    )
    expect(error.message).toContain('a project-scoped key reaches only its own project')
  })

  it('404: names what was not found', async () => {
    nock(HOST).get(`/api/v2/projects/${PROJECT}/operations`).query(true).reply(404, body)
    const error = await failure(client().operations.listOperations(PROJECT, { limit: 10 }))
    expect(error.message).toMatch(new RegExp(`^Project "${PROJECT}" was not found \\(HTTP 404`))
    expect(error.message).toContain('request id req-42')
  })

  it('other 4xx: status and the API message, no retry', async () => {
    const scope = nock(HOST).get(path).once().reply(422, { message: 'bad limit' })
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error.message).toBe(
      `GET /projects/${PROJECT}/operations/${OP_A} failed with HTTP 422. API says: "bad limit"`
    )
    scope.done()
  })

  it('redacts the key when an error body echoes the request', async () => {
    nock(HOST)
      .get(path)
      .reply(400, { message: `bad header Authorization: Bearer ${KEY}` })
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error.message).toContain('bad header Authorization: Bearer ***')
  })

  it('an error body that is not JSON still gives the status', async () => {
    nock(HOST).get(path).reply(400, '<html>bad gateway</html>')
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error).toMatchObject({ status: 400 })
  })

  it("an answer for another project, or a list holding another project's operation, is an error", async () => {
    nock(HOST)
      .get(path)
      .reply(200, { operation: operation({ id: OP_A, project_id: 'someone-else-123' }) })
    const single = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(single.message).toContain('belongs to project "someone-else-123"')
    nock(HOST)
      .get(`/api/v2/projects/${PROJECT}/operations`)
      .query(true)
      .reply(200, { operations: [operation({ project_id: 'someone-else-123' })] })
    const list = await failure(client().operations.listOperations(PROJECT, { limit: 10 }))
    expect(list).toBeInstanceOf(ResponseFormatError)
    expect(list.message).toContain('belongs to project "someone-else-123"')
  })

  it('no request starts later than 1 s after the deadline', async () => {
    const clock = new FakeClock()
    const api = client(clock, { deadlineMs: 5000 })
    clock.advance(6000)
    const error = await failure(api.operations.getOperation(PROJECT, OP_A))
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect(api.stats.requests).toBe(0)
  })

  it('a 429 slows the pace, and retries wait at least the pace', async () => {
    const clock = new FakeClock()
    const pace = new Pace(5000, clock, logger, () => 0)
    const api = new ApiClient({
      baseUrl: BASE,
      apiKey: KEY,
      requestTimeoutMs: 5000,
      // The longest draws: the waits show the pace and the back-off's range.
      retryPolicy: new RetryPolicy({ random: () => 0.999999 }),
      pace,
      clock,
      logger,
      redactor: new Redactor([KEY]),
      deadline: clock.now() + 600_000,
      transport: httpGet
    })
    nock(HOST)
      .get(path)
      .reply(429)
      .get(path)
      .reply(503)
      .get(path)
      .reply(200, { operation: operation({ id: OP_A }) })
    await api.operations.getOperation(PROJECT, OP_A)
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
    const clock = new FakeClock()
    nock(HOST).get(path).reply(500).get(path).reply(502).get(path).reply(503).get(path).reply(504)
    nock(HOST)
      .get(path)
      .reply(200, { operation: operation({ id: OP_A }) })
    const api = client(clock, { random: () => 0.999999 })
    await expect(api.operations.getOperation(PROJECT, OP_A)).resolves.toMatchObject({ id: OP_A })
    // The longest draws: the first retry late in the interval after the floor, the later ones two
    // intervals after it, capped at 3 intervals.
    expect(clock.sleeps).toEqual([1900, 3000, 3000, 3000])
    expect(api.stats).toEqual({ requests: 5, retries: 4 })
    expect(lines.filter((line) => line.includes('retrying in'))).toHaveLength(4)
  })

  it('429 with Retry-After: waits as long, then late in the interval after it', async () => {
    const clock = new FakeClock()
    nock(HOST).get(path).reply(429, body, { 'Retry-After': '7' })
    nock(HOST)
      .get(path)
      .reply(200, { operation: operation({ id: OP_A }) })
    await client(clock).operations.getOperation(PROJECT, OP_A)
    expect(clock.sleeps).toEqual([8000])
    expect(lines).toContainEqual(
      `GET /projects/${PROJECT}/operations/${OP_A}: HTTP 429, Retry-After 7; retrying in 8.0 s`
    )
  })

  async function withLocalServer(
    handler: Parameters<typeof startLocalServer>[0],
    test: (api: ApiClient, clock: FakeClock) => Promise<void>,
    requestTimeoutMs = 50
  ): Promise<void> {
    const server = await startLocalServer(handler)
    nock.enableNetConnect(`127.0.0.1:${server.port}`)
    const clock = new FakeClock()
    const api = new ApiClient({
      baseUrl: `${server.url}/api/v2`,
      apiKey: KEY,
      requestTimeoutMs,
      retryPolicy: new RetryPolicy({ random: () => 0 }),
      pace: new Pace(1000, clock, logger, () => 0),
      clock,
      logger,
      redactor: new Redactor([KEY]),
      deadline: clock.now() + 2500,
      transport: httpGet
    })
    try {
      await test(api, clock)
    } finally {
      await server.close()
      nock.disableNetConnect()
    }
  }

  it('a dropped connection is retried', async () => {
    let requests = 0
    await withLocalServer(
      (request, response) => {
        if (++requests === 1) {
          request.socket.destroy()
        } else {
          response.setHeader('content-type', 'application/json')
          response.end(JSON.stringify({ operation: operation({ id: OP_A }) }))
        }
      },
      async (api, clock) => {
        await expect(api.operations.getOperation(PROJECT, OP_A)).resolves.toMatchObject({
          id: OP_A
        })
        expect(clock.sleeps).toEqual([2000])
        expect(lines).toContainEqual(expect.stringMatching(/: no answer \(ECONNRESET/))
      },
      // Long enough that the reset, not the time limit, ends the request on a loaded machine.
      10_000
    )
  })

  it('a request that outlives its time limit is a retryable network error', async () => {
    await withLocalServer(
      () => undefined, // accepts connections and never answers
      async (api) => {
        const error = await failure(api.operations.getOperation(PROJECT, OP_A))
        expect(error).toBeInstanceOf(DeadlineExceededError)
        expect((error as DeadlineExceededError).lastError).toBeInstanceOf(NetworkError)
        expect(error.message).toContain('no answer within 50 ms')
        expect(api.stats).toEqual({ requests: 2, retries: 1 })
      }
    )
  })

  it('retries never run past the deadline', async () => {
    const clock = new FakeClock()
    nock(HOST).get(path).times(10).reply(503)
    const error = await failure(
      client(clock, { deadlineMs: 5000 }).operations.getOperation(PROJECT, OP_A)
    )
    expect(error).toBeInstanceOf(DeadlineExceededError)
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(5000)
  })

  it('a body that is not JSON names the endpoint', async () => {
    nock(HOST).get(path).reply(200, '{"operation": ')
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error).toBeInstanceOf(ResponseFormatError)
    expect(error.message).toBe(
      `Unexpected response from GET /projects/${PROJECT}/operations/${OP_A}: the body is not JSON`
    )
  })

  it('a missing status names the endpoint and the field', async () => {
    nock(HOST)
      .get(path)
      .reply(200, { operation: { id: OP_A } })
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error.message).toMatch(/GET \/projects\/.*: field "operation\.status": /)
  })

  it('a wrong type names the field', async () => {
    nock(HOST)
      .get(path)
      .reply(200, { operation: { id: OP_A, status: 'running', failures_count: 'x' } })
    const error = await failure(client().operations.getOperation(PROJECT, OP_A))
    expect(error.message).toContain('field "operation.failures_count"')
  })
})

describe('ApiClient.listProjects', () => {
  const project = (i: number) => ({
    id: `project-${i}`,
    name: `Project ${i}`,
    region_id: 'aws-us-east-2',
    pg_version: 17,
    created_at: '2026-01-01T00:00:00Z',
    settings: { allowed_ips: [] }
  })

  it('walks every page with limit and cursor and passes org_id', async () => {
    const first = Array.from({ length: PROJECTS_PAGE_LIMIT }, (_, i) => project(i))
    const scope = nock(HOST)
      .get('/api/v2/projects')
      .query({ limit: String(PROJECTS_PAGE_LIMIT), org_id: 'org-1' })
      .reply(200, { projects: first, pagination: { cursor: 'project-399' } })
      .get('/api/v2/projects')
      .query({ limit: String(PROJECTS_PAGE_LIMIT), org_id: 'org-1', cursor: 'project-399' })
      .reply(200, {
        projects: [project(400), project(401)],
        pagination: { cursor: 'project-401' },
        unavailable_project_ids: ['project-x']
      })
    const listing = await client().projects.listProjects('org-1')
    expect(listing.projects).toHaveLength(402)
    expect(listing.projects[401]).toEqual({
      id: 'project-401',
      name: 'Project 401',
      region_id: 'aws-us-east-2',
      pg_version: 17,
      created_at: '2026-01-01T00:00:00Z'
    })
    expect(listing.unavailableProjectIds).toEqual(['project-x'])
    scope.done()
  })

  it('stops on a full page without a cursor', async () => {
    const full = Array.from({ length: PROJECTS_PAGE_LIMIT }, (_, i) => project(i))
    const scope = nock(HOST)
      .get('/api/v2/projects')
      .query(true)
      .once()
      .reply(200, { projects: full })
    expect((await client().projects.listProjects()).projects).toHaveLength(PROJECTS_PAGE_LIMIT)
    scope.done()
  })
})

describe('ApiClient branches', () => {
  const branch = (i: number, name = `main-${i}`) => ({ id: `br-b-${i}`, name, project_id: PROJECT })
  const searchPath = `/api/v2/projects/${PROJECT}/branches`

  it('searches across pages through pagination.next, with an explicit limit', async () => {
    const first = Array.from({ length: BRANCH_PAGE_LIMIT }, (_, i) => branch(i))
    const scope = nock(HOST)
      .get(searchPath)
      .query({ search: 'main', limit: String(BRANCH_PAGE_LIMIT) })
      .reply(200, { branches: first, pagination: { next: 'page-2' } })
      .get(searchPath)
      .query({ search: 'main', limit: String(BRANCH_PAGE_LIMIT), cursor: 'page-2' })
      .reply(200, { branches: [branch(100, 'main')], pagination: {} })
    const found = await client().branches.searchBranches(PROJECT, 'main')
    expect(found).toHaveLength(101)
    expect(found.at(-1)).toMatchObject({ id: 'br-b-100', name: 'main' })
    scope.done()
  })

  it('stops at a repeated cursor, with a warning that says how many it looked at', async () => {
    let page = 0
    nock(HOST)
      .get(searchPath)
      .query(true)
      .times(2)
      .reply(200, () => {
        const start = page++ * 1000
        const branches = Array.from({ length: BRANCH_PAGE_LIMIT }, (_, i) => branch(start + i))
        return { branches, pagination: { next: 'same' } }
      })
    const found = await client().branches.searchBranches(PROJECT, 'main')
    expect(found).toHaveLength(2 * BRANCH_PAGE_LIMIT)
    expect(lines).toContain(
      'Looked at the first 200 branches whose name or id contains "main" only (the API repeated a page cursor)'
    )
  })

  it('stops at the page cap, with a warning', async () => {
    let page = 0
    nock(HOST)
      .get(searchPath)
      .query(true)
      .times(MAX_BRANCH_PAGES)
      .reply(200, () => ({
        branches: Array.from({ length: BRANCH_PAGE_LIMIT }, (_, i) => branch(page * 1000 + i)),
        pagination: { next: `page-${++page}` }
      }))
    await client().branches.searchBranches(PROJECT, 'main')
    expect(lines).toContain(
      `Looked at the first ${MAX_BRANCH_PAGES * BRANCH_PAGE_LIMIT} branches whose name or id contains "main" only (${MAX_BRANCH_PAGES} pages)`
    )
  })
})

describe('ApiClient: a personal key finds its organization', () => {
  const refused = () =>
    nock(HOST)
      .get('/api/v2/projects')
      .query({ limit: String(PROJECTS_PAGE_LIMIT) })
      .reply(400, { code: '', message: 'org_id is required' })

  it('several organizations: an input error naming org_id that lists at most 10', async () => {
    refused()
    const organizations = Array.from({ length: 12 }, (_, i) => ({
      id: `org-${i}`,
      name: i === 0 ? 'A "quoted" <name>' : `Org ${i}`
    }))
    nock(HOST).get('/api/v2/users/me/organizations').reply(200, { organizations })
    const error = await failure(client().projects.listProjects())
    expect(error).toBeInstanceOf(InputError)
    expect(error.message).toContain(
      'input "org_id": org_id is required, because the key belongs to 12 organizations: org-0 ("A \\"quoted\\" <name>"), org-1 ("Org 1")'
    )
    expect(error.message).toContain('org-9 ("Org 9"), and 2 more; set org_id to one of them')
  })

  it.each([
    [
      'reading them fails',
      () => nock(HOST).get('/api/v2/users/me/organizations').reply(401, {}),
      'reading its organizations failed: The API rejected the key'
    ],
    [
      'the key has none',
      () => nock(HOST).get('/api/v2/users/me/organizations').reply(200, { organizations: [] }),
      'the key belongs to no organization'
    ]
  ])('when %s: the original error, explained', async (_case, answer, why) => {
    refused()
    answer()
    const error = await failure(client().projects.listProjects())
    expect(error.message).toMatch(
      /^GET \/projects failed with HTTP 400\. API says: "org_id is required"/
    )
    expect(error.message).toContain(
      `The key must name its organization (input "org_id"), and ${why}`
    )
  })

  it('a 400 that is not about org_id, or any error with org_id given, stays as it is', async () => {
    nock(HOST).get('/api/v2/projects').query(true).reply(400, { code: '', message: 'bad limit' })
    expect((await failure(client().projects.listProjects())).message).toContain('bad limit')
    nock(HOST).get('/api/v2/projects').query(true).reply(403, { code: '', message: 'no access' })
    const error = await failure(client().projects.listProjects('org-1'))
    expect(error).toBeInstanceOf(ApiError)
  })
})

describe('resolveBranch', () => {
  const reader = (answers: { byId?: Branch | Error; found?: Branch[] }) => ({
    getBranch: async () => {
      if (answers.byId instanceof Error) throw answers.byId
      if (!answers.byId) throw new Error('not asked')
      return answers.byId
    },
    searchBranches: async () => answers.found ?? []
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

  it('a name that fits more than 5 branches lists 5 and counts the rest', async () => {
    const twins = Array.from({ length: 7 }, (_, i) => ({ id: `br-twin-${i}`, name: 'twin' }))
    await expect(resolveBranch(reader({ found: twins }), PROJECT, 'twin')).rejects.toThrow(
      'input "branch_id": 7 branches of project "shiny-wind-12345678" are named "twin" (br-twin-0, br-twin-1, br-twin-2, br-twin-3, br-twin-4, and 2 more); give the branch id instead'
    )
  })
})
