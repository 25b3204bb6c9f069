/*
 * The action's requests and the local servers' answers held to the services' own descriptions, in
 * process: gate() (the same request core the bundle runs) against the local API server checked by
 * Neon's OpenAPI document, on simulated time; the comment's calls (the same Octokit side) over real
 * HTTP against the local GitHub API checked by GitHub's REST description. One violation fails.
 * The bundle's own requests over the wire are checked too, in e2e/contract.test.ts.
 */
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals'
import { neonContract } from '../support/neon/contract.ts'
import type { ApiHandler } from '../support/neon/handler.ts'
import { githubContract } from '../support/github/contract.ts'
import { ACTIONS_BOT, type GitHubServer, startGitHubServer } from '../support/github/server.ts'
import type { Contract } from '../support/openapi-contract.ts'
import { writePullRequestComment } from '../../src/runner/pr-comment.js'
import { pullRequestContext } from '../support/github/context.js'
import { collectingLogger } from '../support/logger.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { SimulatedTime } from '../support/time/clock.js'

describe('Neon’s OpenAPI document: gate() and the local API server', () => {
  let contract: Contract
  let api: ApiHandler | undefined
  beforeAll(async () => {
    contract = await neonContract()
  })
  afterEach(() => {
    // Whatever the test did, the requests and the answers kept to the document.
    expect(api?.violations ?? []).toEqual([])
    api = undefined
  })

  function checkedWorld() {
    const setup = simulatedWorld({ contract })
    api = setup.api
    return setup
  }

  it('given operations, read one by one, in flight, failed and finished; one that does not exist is 404', async () => {
    const setup = checkedWorld()
    const [create, start] = setup.world.createBranch(PROJECT)
    create.timeline = [{ status: 'running', reads: 1 }, { status: 'finished' }]
    start.timeline = [
      { status: 'scheduling', reads: 1 },
      { status: 'failed', reads: 1 },
      { status: 'finished' }
    ]
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      operation_id: `${create.id} ${start.id}`
    })
    expect(run.report.outcome).toBe('success')
    const missing = await runSimulated(setup, {
      project_id: PROJECT,
      operation_id: '00000000-0000-4000-8000-000000000000'
    })
    expect(missing.report.error).toContain('HTTP 404')
  })

  it("a branch by id and by name: the branch read, the search and the branch's computes", async () => {
    const setup = checkedWorld()
    setup.world.addBranch(PROJECT, { id: 'br-preview-pr-12', name: 'preview/pr-12' })
    setup.world.createBranch(PROJECT, { branchId: 'br-preview-pr-12', createMs: 1, startMs: 1 })
    setup.world.addCompute(PROJECT, {
      id: 'ep-replica-pr-12',
      branchId: 'br-preview-pr-12',
      current: 'active'
    })
    for (const branch of ['br-preview-pr-12', 'preview/pr-12']) {
      const run = await runSimulated(setup, { project_id: PROJECT, branch_id: branch })
      expect(run.report.outcome).toBe('success')
    }
    expect(setup.api.requests.map((request) => request.route)).toEqual(
      expect.arrayContaining(['branch', 'branches', 'computes'])
    )
  })

  it('before a teardown: the branch with its restrictions, and every branch across pages', async () => {
    const setup = checkedWorld()
    Object.assign(setup.world.branchesOf(PROJECT)[0], {
      protected: true,
      restrictedActions: [{ name: 'restore', reason: 'a restore is running' }]
    })
    for (let i = 0; i < 120; i++) {
      setup.world.addBranch(PROJECT, { id: `br-preview-${String(i).padStart(6, '0')}` })
    }
    for (const before of ['delete', 'reset']) {
      const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'main', before })
      expect(run.report.teardown?.preflight).toBe('blocked')
    }
    // Each run: the search that resolves `main`, then both pages twice (the project's state once
    // it is idle, and the pre-flight).
    expect(setup.api.requests.filter((request) => request.route === 'branches')).toHaveLength(10)
  })

  it('the projects list with an organization key; a personal key finds its organization', async () => {
    const setup = checkedWorld()
    const organizationKey = await runSimulated(setup, { list_projects: 'true' })
    expect(organizationKey.report.listing?.projects).toHaveLength(3)
    const personal = await runSimulated(setup, { api_key: KEYS.personal, list_projects: 'true' })
    expect(personal.report.outcome).toBe('success')
    expect(setup.api.requests.map((request) => [request.route, request.status])).toEqual([
      ['projects', 200],
      ['projects', 400],
      ['organizations', 200],
      ['projects', 200]
    ])
  })

  it('401 for a revoked key', async () => {
    const setup = checkedWorld()
    const run = await runSimulated(setup, { api_key: KEYS.revoked, project_id: PROJECT })
    expect(run.report.error).toContain('HTTP 401')
  })
})

describe('GitHub’s REST description: the comment’s calls and the local GitHub API', () => {
  const WRITE_TOKEN = 'ghs_contract_write_token_0123456'
  const PAT = 'github_pat_contract_0123456789abcdef'
  const READ_ONLY_TOKEN = 'ghs_contract_read_only_token_987'
  let contract: Contract
  let github: GitHubServer | undefined
  beforeAll(async () => {
    contract = await githubContract()
  })
  afterEach(async () => {
    const violations = github?.violations ?? []
    await github?.close()
    github = undefined
    expect(violations).toEqual([])
  })

  async function commentWith(token: string) {
    github = await startGitHubServer({ contract })
    github.tokens.set(WRITE_TOKEN, { user: ACTIONS_BOT, canWrite: true })
    github.tokens.set(PAT, { user: { login: 'octocat', type: 'User' }, canWrite: true })
    github.tokens.set(READ_ONLY_TOKEN, { user: ACTIONS_BOT, canWrite: false })
    const context = pullRequestContext(github.apiUrl)
    github.pulls.set('octo/app#42', context.pullRequest!.headSha!)
    const { logger, lines } = collectingLogger()
    const write = () =>
      writePullRequestComment({
        mode: 'always',
        token,
        context,
        report: { outcome: 'success', requests: { requests: 1, retries: 0 } },
        gate: { projectId: PROJECT, operationIds: [] },
        logger,
        redact: (text) => text,
        // The 5 s limit on simulated time that never moves: the contract is the point here, and on
        // a loaded machine loading Octokit and checking each call can take most of the real 5 s.
        clock: new SimulatedTime()
      })
    return { github, write, lines }
  }

  it('a read-only token (a fork): 403 on the record and on create, one warning', async () => {
    const { github, write, lines } = await commentWith(READ_ONLY_TOKEN)
    expect(await write()).toBeUndefined()
    expect(lines.filter((line) => line.startsWith('warning:'))).toEqual([
      expect.stringContaining('Resource not accessible by integration')
    ])
    // The first round's calls go out at once (their order on the wire is the network's); the
    // create follows once all four are answered.
    const calls = github.requests.map(
      (request) => `${request.method} ${request.path} ${request.status}`
    )
    expect(calls.slice(0, 4).sort()).toEqual([
      'GET /repos/octo/app/commits/' + 'a'.repeat(40) + '/statuses 200',
      'GET /repos/octo/app/issues/42/comments 200',
      'GET /repos/octo/app/pulls/42 200',
      'POST /repos/octo/app/statuses/' + 'a'.repeat(40) + ' 403'
    ])
    expect(calls.slice(4)).toEqual(['POST /repos/octo/app/issues/42/comments 403'])
  })

  it('who a personal token is (GET /user), and deleting a duplicate', async () => {
    const { github, write } = await commentWith(PAT)
    await write()
    const [comment] = github.comments
    github.addComment('octo/app', 42, comment.body, comment.user)
    await write()
    expect(github.requests.map((request) => `${request.method} ${request.status}`)).toContain(
      'DELETE 204'
    )
    expect(github.requests[0].path).toBe('/user')
    expect(github.comments).toHaveLength(1)
  })
})
