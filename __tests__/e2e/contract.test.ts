/*
 * The local servers and the bundle's requests held to the services' own descriptions: Neon's
 * OpenAPI document and GitHub's REST description, checked by the servers in test mode
 * (support/openapi-contract.ts). One violation fails. Here, the bundle's own requests over
 * the wire (the project gate; the comment's list, create and update) and answers no run asks for;
 * every other endpoint and status the action uses is checked in process, with the same request
 * code, in simulated/contract.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { neonContract } from '../support/neon/contract.ts'
import { demoWorld, operationIn } from '../support/neon/scenarios.ts'
import { createApiHandler } from '../support/neon/handler.ts'
import { type ApiServer, startApiServer } from '../support/neon/server.ts'
import type { World } from '../support/neon/world.ts'
import { githubContract } from '../support/github/contract.ts'
import { ACTIONS_BOT, type GitHubServer, startGitHubServer } from '../support/github/server.ts'
import type { Contract } from '../support/openapi-contract.ts'
import { runAction } from '../support/bundles/action.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

let contract: Contract
beforeAll(async () => {
  contract = await neonContract()
})

let server: ApiServer | undefined
afterEach(async () => {
  // Whatever the test did, the server and the bundle kept to the document.
  const violations = server?.violations ?? []
  await server?.close()
  server = undefined
  expect(violations).toEqual([])
})

async function serve(): Promise<{ world: World; server: ApiServer }> {
  const world = demoWorld()
  server = await startApiServer(world, { contract })
  return { world, server }
}

/** A request of our own, as any client would send it. */
async function get(path: string, key: string = KEYS.organization) {
  const response = await fetch(`${server!.apiHost}${path}`, {
    headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' }
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('Neon’s OpenAPI document: the local server and the bundle', () => {
  it('the checks are not vacuous: one answer that breaks the document is one violation', () => {
    const violations = contract.check(
      {
        method: 'GET',
        path: `/api/v2/projects/${PROJECT}/operations`,
        query: { limit: '5' },
        headers: { authorization: 'Bearer x' }
      },
      {
        status: 200,
        body: {
          operations: [
            {
              id: '5a1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
              project_id: PROJECT,
              action: 'apply_config',
              status: 'running',
              failures_count: 0,
              created_at: '2026-11-21T10:00:00Z',
              updated_at: '2026-11-21T10:00:00Z'
            }
          ]
        }
      }
    )
    expect(violations).toEqual([
      {
        exchange: `GET /api/v2/projects/${PROJECT}/operations → 200`,
        where: 'answer',
        problems: ["/operations/0 must have required property 'total_duration_ms'"]
      }
    ])
    const badRequest = contract.check(
      {
        method: 'GET',
        path: `/api/v2/projects/${PROJECT}/operations`,
        query: { limit: '5000' },
        headers: {}
      },
      { status: 400, body: { code: '', message: 'bad' } }
    )
    expect(badRequest.map((violation) => violation.problems)).toEqual([
      ['/query/limit must be <= 1000', 'Authorization is not "Bearer <token>"']
    ])
  })

  it('the project gate: the operations list, operations in flight and finished', async () => {
    const { world, server } = await serve()
    operationIn(world, 'running', { action: 'start_compute', then: 'finished' })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    expect(
      server.requests.filter((request) => request.route === 'operations').length
    ).toBeGreaterThan(1)
  })

  it('the organizations of every kind of key', async () => {
    await serve()
    for (const key of [KEYS.personal, KEYS.organization, KEYS.project, KEYS.multiOrg]) {
      const answer = await get('/users/me/organizations', key)
      expect(answer.status).toBe(200)
      expect((answer.body.organizations as unknown[]).length).toBeGreaterThan(0)
    }
  })

  it('a personal key must name its organization to list projects (400 org_id is required)', async () => {
    await serve()
    const answer = await get('/projects', KEYS.personal)
    expect(answer.status).toBe(400)
    expect(answer.body.message).toMatch(/org_id/)
  })

  it('the limiter’s 429 with Retry-After, and a 503: what the server answers', async () => {
    // The bundle's requests are the same GET every other test sends; the answers are checked here.
    const world = demoWorld()
    const api = createApiHandler(world, {
      contract,
      limits: { perSecondPerRoute: 1, retryAfter: 'seconds' }
    })
    const request = {
      method: 'GET',
      url: `/api/v2/projects/${PROJECT}/operations?limit=10`,
      headers: { authorization: `Bearer ${KEYS.organization}` }
    }
    api.addFault({ kind: 'status', status: 503, times: 1 })
    for (let i = 0; i < 3; i++) api.handle(request)
    expect(api.requests.map((record) => [record.status, record.retryAfter])).toEqual([
      [503, undefined],
      [200, undefined],
      [429, '1']
    ])
    expect(api.violations).toEqual([])
  })
})

describe('GitHub’s REST description: the local GitHub API and the comment’s calls', () => {
  let github: GitHubServer | undefined
  let githubContractChecks: Contract
  const HEAD = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
  const dir = mkdtempSync(join(tmpdir(), 'contract-event-'))
  const event = join(dir, 'event.json')
  writeFileSync(
    event,
    JSON.stringify({
      pull_request: {
        number: 42,
        html_url: 'https://github.com/octo/app/pull/42',
        head: { sha: HEAD, repo: { full_name: 'octo/app' } }
      }
    })
  )
  const WRITE_TOKEN = 'ghs_contract_write_token_0123456'
  const PAT = 'github_pat_contract_0123456789abcdef'
  const READ_ONLY_TOKEN = 'ghs_contract_read_only_token_987'

  beforeAll(async () => {
    githubContractChecks = await githubContract()
    // Before any bundle runs: compiled at a first request, the validators took the comment's 5 s.
    githubContractChecks.precompile()
  }, 120_000)
  afterEach(async () => {
    const violations = github?.violations ?? []
    await github?.close()
    github = undefined
    expect(violations).toEqual([])
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  async function gate(token: string) {
    github = await startGitHubServer({ contract: githubContractChecks })
    github.tokens.set(WRITE_TOKEN, { user: ACTIONS_BOT, canWrite: true })
    github.tokens.set(PAT, { user: { login: 'octocat', type: 'User' }, canWrite: true })
    github.tokens.set(READ_ONLY_TOKEN, { user: ACTIONS_BOT, canWrite: false })
    github.pulls.set('octo/app#42', HEAD)
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    const inputs = {
      project_id: PROJECT,
      operation_id: op.id,
      pr_comment: 'always',
      github_token: token
    }
    const env = {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: event,
      GITHUB_REPOSITORY: 'octo/app',
      GITHUB_WORKFLOW: 'Preview',
      GITHUB_JOB: 'gate',
      GITHUB_RUN_ID: '9',
      GITHUB_API_URL: github.apiUrl
    }
    return { github, run: () => runAction(server, inputs, { env }) }
  }

  it('the checks are not vacuous: a comment without its author is a violation', () => {
    const violations = githubContractChecks.check(
      {
        method: 'GET',
        path: '/repos/octo/app/issues/42/comments',
        query: { per_page: '100' },
        headers: {}
      },
      { status: 200, body: [{ id: 1, body: 'x', html_url: 'https://github.com/o/a/pull/1#c1' }] }
    )
    expect(violations).toHaveLength(1)
    expect(violations[0].problems).toContain("/0 must have required property 'user'")
  })

  it('record, list, read the head and the records, create, read again, fill it, read again; then the same with an update, with the GITHUB_TOKEN', async () => {
    const { github, run } = await gate(WRITE_TOKEN)
    const calls = () =>
      github.requests.map((request) => `${request.method} ${request.path} ${request.status}`)
    // Each round's calls go out at once: their order on the wire is the network's, so each round
    // is compared as a set; each write comes between two rounds.
    const reads = [
      `GET /repos/octo/app/commits/${HEAD}/statuses 200`,
      'GET /repos/octo/app/issues/42/comments 200',
      'GET /repos/octo/app/pulls/42 200'
    ]
    const update = /^PATCH \/repos\/octo\/app\/issues\/comments\/\d+ 200$/
    // The first run creates the comment as a placeholder and fills it; the second updates it.
    for (const writes of [
      [/^POST \/repos\/octo\/app\/issues\/42\/comments 201$/, update],
      [update]
    ]) {
      const before = calls().length
      const { outputs, stdout } = await run()
      expect(outputs.comment_url).toMatch(/#issuecomment-/)
      const made = calls().slice(before)
      expect(made.slice(0, 4).sort()).toEqual(
        [...reads, `POST /repos/octo/app/statuses/${HEAD} 201`].sort()
      )
      // A read after a write: cut short, with a warning that says so, only when the comment's
      // time limit ran out first (a machine too busy to answer in time).
      const cut = stdout.includes('did not answer within')
      let at = 4
      for (const write of writes) {
        if (cut && at >= made.length) break
        expect(made[at]).toMatch(write)
        const read = made.slice(at + 1, at + 1 + reads.length)
        if (cut) expect(reads).toEqual(expect.arrayContaining(read))
        else expect(read.sort()).toEqual(reads)
        at += 1 + reads.length
      }
      if (!cut) expect(made).toHaveLength(at)
    }
  })
})
