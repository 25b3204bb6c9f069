import { afterEach, describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { type ApiServer, startApiServer } from '../support/neon/server.ts'
import { demoWorld } from '../support/neon/scenarios.ts'
import { operationJson } from '../support/neon/api-json.ts'
import { World } from '../support/neon/world.ts'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { startWritingFront, type WritingFront } from '../support/neon/writes.ts'

let server: ApiServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(world = demoWorld(), limits = {}) {
  server = await startApiServer(world, { limits })
  return server
}

/** The parts of the answers these tests read. */
interface Answer {
  projects: { id: string }[]
  operations: { created_at: string }[]
  pagination: { cursor: string }
  message?: string
}

async function get(path: string, key: string | null = KEYS.organization) {
  const response = await fetch(`${server!.apiHost}${path}`, {
    headers: key !== null ? { Authorization: `Bearer ${key}` } : {}
  })
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer
  }
}

describe('local API server', () => {
  it('401 for a missing header, an unknown key and a revoked key, with an error body', async () => {
    await start()
    for (const key of [null, 'napi_nope', KEYS.revoked]) {
      const answer = await get('/projects', key)
      expect(answer.status).toBe(401)
      expect(answer.body).toEqual({
        code: '',
        message: 'authentication required',
        request_id: expect.any(String)
      })
    }
    expect(server!.requests.map((request) => request.keyType)).toEqual([
      'missing',
      'unknown',
      'revoked'
    ])
  })

  it('key scopes: project-scoped lists no projects, others are 403, unknown projects 404', async () => {
    await start()
    const listed = await get('/projects', KEYS.project)
    expect(listed.status).toBe(403)
    expect(listed.body.message).toBe('project-scoped API keys cannot list projects')
    expect((await get(`/projects/${PROJECT}/operations`, KEYS.otherProject)).status).toBe(403)
    expect((await get(`/projects/${PROJECT}/operations`, KEYS.personal)).status).toBe(200)
    expect((await get('/projects/missing-project/operations')).status).toBe(404)
  })

  it('projects are paged: default 10, limit 1-400, cursor = last id', async () => {
    await start(demoWorld({ extraProjects: 24 }))
    const first = await get('/projects')
    expect(first.body.projects).toHaveLength(10)
    const cursor = first.body.pagination.cursor
    expect(cursor).toBe(first.body.projects[9].id)
    const rest = await get(`/projects?limit=400&cursor=${cursor}`)
    expect(rest.body.projects).toHaveLength(15)
    expect((await get('/projects?limit=401')).status).toBe(400)
    expect((await get('/projects?limit=0')).status).toBe(400)
  })

  it('operations are newest first and paged by creation time, limit 1-1000', async () => {
    await start(demoWorld({ history: 25 }))
    const first = await get(`/projects/${PROJECT}/operations?limit=10`)
    const times = first.body.operations.map((op: { created_at: string }) =>
      Date.parse(op.created_at)
    )
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(first.body.pagination.cursor).toBe(first.body.operations[9].created_at)
    const second = await get(
      `/projects/${PROJECT}/operations?limit=1000&cursor=${encodeURIComponent(first.body.pagination.cursor)}`
    )
    expect(second.body.operations).toHaveLength(15)
    expect(Date.parse(second.body.operations[0].created_at)).toBeLessThan(times[9])
    expect((await get(`/projects/${PROJECT}/operations?limit=1001`)).status).toBe(400)
    expect((await get(`/projects/${PROJECT}/operations?cursor=yesterday`)).status).toBe(400)
  })

  it('operations follow their timeline, with live-API fields', () => {
    let now = 1_000_000
    const world = new World(() => now)
    world.addProject({ id: 'p', orgId: 'o' })
    const op = world.addOperation('p', {
      action: 'start_compute',
      endpointId: 'ep-1',
      timeline: [
        { status: 'scheduling', ms: 100 },
        { status: 'failed', ms: 200 },
        { status: 'running', ms: 300 },
        { status: 'finished' }
      ]
    })
    expect(operationJson(op, now)).toMatchObject({
      status: 'scheduling',
      failures_count: 0,
      endpoint_id: 'ep-1'
    })
    now += 150
    expect(operationJson(op, now)).toMatchObject({
      status: 'failed',
      failures_count: 1,
      error: expect.any(String),
      retry_at: new Date(1_000_300).toISOString()
    })
    now += 1000
    const finished = operationJson(op, now)
    expect(finished).toMatchObject({
      status: 'finished',
      failures_count: 1,
      total_duration_ms: 600
    })
    expect(finished.updated_at).toBe(new Date(1_000_600).toISOString())
  })

  it('a create-branch starts create_branch (running) and start_compute (scheduling)', () => {
    const world = demoWorld()
    const [create, start] = world.createBranch(PROJECT)
    expect(operationJson(create, world.now())).toMatchObject({
      action: 'create_branch',
      status: 'running'
    })
    expect(operationJson(start, world.now())).toMatchObject({
      action: 'start_compute',
      status: 'scheduling'
    })
    expect(operationJson(create, world.now())).not.toHaveProperty('endpoint_id')
  })

  it('rate limits: per account per window and per route per second, with Retry-After', async () => {
    await start(demoWorld(), { perMinute: 3, accountWindowMs: 60_000 })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await get(`/projects/${PROJECT}/operations`)).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const limited = await get('/projects')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(59)
  })

  it('the per-route limit of 40 a second', async () => {
    // The world's clock stands still, so all 45 fall in one second however slow the machine is.
    const at = Date.now()
    await start(demoWorld({ now: () => at }))
    const statuses = await Promise.all(
      Array.from(
        { length: 45 },
        async () => (await get(`/projects/${PROJECT}/operations?limit=1`)).status
      )
    )
    expect(statuses.filter((status) => status === 200)).toHaveLength(40)
    expect(statuses.filter((status) => status === 429)).toHaveLength(5)
  })

  it('faults: for a number of requests, on one route', async () => {
    await start()
    server!.addFault({ kind: 'status', status: 502, times: 2, route: 'operations' })
    expect((await get('/projects')).status).toBe(200)
    expect((await get(`/projects/${PROJECT}/operations`)).status).toBe(502)
    expect((await get(`/projects/${PROJECT}/operations`)).status).toBe(502)
    expect((await get(`/projects/${PROJECT}/operations`)).status).toBe(200)
  })

  it('faults: for a time window', async () => {
    let now = Date.now()
    const world = demoWorld({ now: () => now })
    await start(world)
    server!.addFault({ kind: 'status', status: 500, until: now + 1000 })
    expect((await get('/projects')).status).toBe(500)
    now += 1000
    expect((await get('/projects')).status).toBe(200)
  })

  it('branches: main is the root and the default; others are its children unless set; protected and restricted_actions as set', async () => {
    const world = demoWorld()
    world.addBranch(PROJECT, { id: 'br-a-000001', name: 'a' })
    world.addBranch(PROJECT, {
      id: 'br-b-000002',
      name: 'b',
      parentId: 'br-a-000001',
      protected: true,
      restrictedActions: [{ name: 'restore', reason: 'a restore is running' }]
    })
    await start(world)
    const branch = async (id: string) =>
      ((await get(`/projects/${PROJECT}/branches/${id}`)).body as unknown as { branch: object })
        .branch
    const main = await branch('br-main-000001')
    expect(main).toMatchObject({ default: true, protected: false })
    expect(main).not.toHaveProperty('parent_id')
    expect(main).not.toHaveProperty('restricted_actions')
    expect(await branch('br-a-000001')).toMatchObject({
      parent_id: 'br-main-000001',
      default: false
    })
    expect(await branch('br-b-000002')).toMatchObject({
      parent_id: 'br-a-000001',
      protected: true,
      restricted_actions: [{ name: 'restore', reason: 'a restore is running' }]
    })
  })
})

describe('npm run api-server: its flags', () => {
  const script = join(import.meta.dirname, '..', '..', 'script', 'servers', 'api-server.ts')
  // A server that starts does not end by itself: 60 s (a loaded machine's ceiling) bounds a run that failed to stop.
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 60_000 })

  it('--help and -h print the usage and exit 0, starting no server', () => {
    for (const flag of ['--help', '-h']) {
      const { status, stdout, stderr } = run(flag)
      expect({ status, stderr }).toEqual({ status: 0, stderr: '' })
      expect(stdout).toMatch(/^Usage: npm run api-server -- \[--port N\]/)
      for (const name of ['--port', '--clock-skew', '--database-url', '--help']) {
        expect(stdout).toContain(name)
      }
      expect(stdout).not.toContain('Management API v2 on')
    }
  })

  it('an unknown flag, a stray argument or a value that is no number is an error: exit 2, the usage on stderr', () => {
    for (const args of [
      ['--bogus'],
      ['4010'],
      ['--port', 'many'],
      ['--clock-skew', '1h'],
      ['--port']
    ]) {
      const { status, stdout, stderr } = run(...args)
      expect({ args, status, stdout }).toEqual({ args, status: 2, stdout: '' })
      expect(stderr).toMatch(/^api-server: /)
      expect(stderr).toContain('Usage: npm run api-server')
    }
  })
})

describe('local API server with writes (--database-url)', () => {
  let front: WritingFront | undefined
  afterEach(async () => {
    await front?.close()
    front = undefined
  })

  const post = async (body: unknown) => {
    const response = await fetch(`${front!.apiHost}/projects/${PROJECT}/branches`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEYS.organization}`, 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    return { status: response.status, body: (await response.json()) as { branch?: { id: string } } }
  }

  it("a new branch is the child of the parent_id it names (Neon's CLI's --parent), and an unknown parent is a 404 that creates nothing", async () => {
    const world = demoWorld()
    world.addBranch(PROJECT, { id: 'br-preview-mr-7', name: 'preview/mr-7' })
    front = await startWritingFront(world, await start(world), {
      databaseUrl: 'postgresql://role:secret@127.0.0.1:5432/db'
    })
    const child = await post({ branch: { name: 'preview/mr-7-a', parent_id: 'br-preview-mr-7' } })
    expect(child.status).toBe(201)
    expect(
      world.branchesOf(PROJECT).find((branch) => branch.id === child.body.branch?.id)
    ).toMatchObject({ name: 'preview/mr-7-a', parentId: 'br-preview-mr-7' })
    const count = world.branchesOf(PROJECT).length
    const orphan = await post({
      branch: { name: 'preview/mr-8-a', parent_id: 'br-nowhere-000000' }
    })
    expect(orphan.status).toBe(404)
    expect(world.branchesOf(PROJECT)).toHaveLength(count)
    expect(front.violations).toEqual([])
  })
})
