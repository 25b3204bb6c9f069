/*
 * The bundle on pull-request events, against the local API server and the local GitHub API: the
 * context in the log and summary, fork runs without secrets, the sticky comment over real HTTP
 * (created, updated, two matrix legs at once, a read-only token, a silent API) and annotations.
 * Whose comment is the action's, and every other way a GitHub call can go, is pr-comment.test.ts.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, serve } from '../support/bundles/action.js'
import {
  ACTIONS_BOT,
  deletedAnchors,
  type GitHubServer,
  startGitHubServer
} from '../support/github/server.ts'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const REPOSITORY = 'octo/app'
const WRITE_TOKEN = 'ghs_local_write_token_0123456789'
const READ_ONLY_TOKEN = 'ghs_local_read_only_token_98765'
const HEAD = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function github(): Promise<GitHubServer> {
  const server = await startGitHubServer()
  server.tokens.set(WRITE_TOKEN, { user: ACTIONS_BOT, canWrite: true })
  server.tokens.set(READ_ONLY_TOKEN, { user: ACTIONS_BOT, canWrite: false })
  server.pulls.set(`${REPOSITORY}#42`, HEAD)
  cleanups.push(server.close)
  return server
}

/** The environment of a pull_request run (or another event), as the runner sets it. */
function runnerEnv(
  api: GitHubServer,
  options: { event?: string; headRepository?: string; actor?: string } = {}
): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'event-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const eventPath = join(dir, 'event.json')
  writeFileSync(
    eventPath,
    JSON.stringify({
      number: 42,
      pull_request: {
        number: 42,
        html_url: `https://github.com/${REPOSITORY}/pull/42`,
        head: { sha: HEAD, repo: { full_name: options.headRepository ?? REPOSITORY } }
      }
    })
  )
  return {
    GITHUB_EVENT_NAME: options.event ?? 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_SHA: 'ffffffffffffffffffffffffffffffffffffffff',
    GITHUB_WORKFLOW: 'Preview',
    GITHUB_JOB: 'gate',
    GITHUB_RUN_ID: '777',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_ACTOR: options.actor ?? 'octocat',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: api.apiUrl
  }
}

/** The environment of an issue_comment run: a comment on pull request 42 (or on a plain issue). */
function issueCommentEnv(api: GitHubServer, onPullRequest = true): Record<string, string> {
  const env = runnerEnv(api, { event: 'issue_comment' })
  const issue = {
    number: 42,
    html_url: `https://github.com/${REPOSITORY}/${onPullRequest ? 'pull' : 'issues'}/42`,
    ...(onPullRequest
      ? { pull_request: { html_url: `https://github.com/${REPOSITORY}/pull/42` } }
      : {})
  }
  writeFileSync(env.GITHUB_EVENT_PATH, JSON.stringify({ issue, comment: { body: '/deploy' } }))
  return env
}

/** A finished or failing operation, and the inputs that gate on it. */
async function gate(status: 'finished' | 'error' = 'finished') {
  const { world, server } = await serve()
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    branchId: 'br-preview-42',
    timeline: [{ status }]
  })
  return { world, server, op, inputs: { project_id: PROJECT, operation_id: op.id } }
}

const WITH_COMMENT = { pr_comment: 'always', github_token: WRITE_TOKEN }

/**
 * The action run on one operation (finished unless said) with these inputs added, in the
 * environment `env` makes for a fresh local GitHub API (a pull_request run unless said).
 */
async function runOnEvent(
  extra: Record<string, string>,
  env: (api: GitHubServer) => Record<string, string> = runnerEnv,
  options: {
    status?: 'finished' | 'error'
    prepare?: (api: GitHubServer) => void
    killAfterMs?: number
  } = {}
) {
  const api = await github()
  options.prepare?.(api)
  const { server, inputs } = await gate(options.status)
  const run = await runAction(
    server,
    { ...inputs, ...extra },
    { env: env(api), killAfterMs: options.killAfterMs }
  )
  return { api, server, run }
}

/** A local GitHub API and an operation whose first read fails and whose next finishes: two legs' inputs. */
async function redThenGreen() {
  const api = await github()
  const { world, server } = await serve()
  const op = operationIn(world, 'error', {
    then: 'finished',
    branchId: 'br-preview-42',
    error: 'out of capacity'
  })
  const legInputs = { project_id: PROJECT, operation_id: op.id, ...WITH_COMMENT }
  return { api, server, env: runnerEnv(api), legInputs }
}

describe('pull requests: context', () => {
  it('the first log line and the summary name the pull request and its head commit', async () => {
    const { api, run } = await runOnEvent({})
    expect(run.code).toBe(0)
    expect(run.stdout.split('\n')[1]).toBe(
      'Neon operations gate 0.1.0 for pull request #42 (head 1a2b3c4)'
    )
    expect(run.summary).toContain(
      'pull request <a href="https://github.com/octo/app/pull/42">#42</a> · head <code>1a2b3c4</code>'
    )
    expect(api.requests).toHaveLength(0)
  })

  it('on a push, the commit; with pr_comment, one log line and no GitHub call', async () => {
    const { api, run } = await runOnEvent(WITH_COMMENT, (api) => runnerEnv(api, { event: 'push' }))
    expect(run.stdout).toContain('Neon operations gate 0.1.0 for commit fffffff')
    expect(run.summary).toContain('commit <code>fffffff</code>')
    expect(run.stdout).toContain(
      'pr_comment: push run is not for a pull request; no comment written'
    )
    expect(run.outputs.comment_url).toBe('')
    expect(api.requests).toHaveLength(0)
  })
})

describe('pull requests: issue_comment runs (ChatOps)', () => {
  it('a comment on a pull request: the run names it, and the sticky comment goes to it', async () => {
    const { api, run } = await runOnEvent(WITH_COMMENT, issueCommentEnv)
    expect(run.code).toBe(0)
    // The event carries no head commit (GITHUB_SHA is the default branch's): none is named.
    expect(run.stdout).toMatch(/^Neon operations gate 0\.1\.0 for pull request #42$/m)
    expect(run.summary).toContain(
      'pull request <a href="https://github.com/octo/app/pull/42">#42</a> · waited'
    )
    expect(run.summary).not.toContain('fffffff')
    expect(api.comments).toHaveLength(1)
    expect(api.comments[0]).toMatchObject({ issueNumber: 42, repository: REPOSITORY })
    expect(run.outputs.comment_url).toBe(api.comments[0].html_url)
  })

  it('a comment on an issue that is no pull request: one line, and no GitHub call', async () => {
    const { api, run } = await runOnEvent(WITH_COMMENT, (api) => issueCommentEnv(api, false))
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      'pr_comment: issue_comment run is not for a pull request; no comment written'
    )
    expect(api.requests).toHaveLength(0)
  })
})

describe('pull requests: forks and Dependabot', () => {
  it('an empty api_key on a fork pull request says why, and how to skip the step; no request', async () => {
    const { api, server, run } = await runOnEvent({ api_key: '' }, (api) =>
      runnerEnv(api, { headRepository: 'stranger/app' })
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('pull request from the fork stranger/app')
    expect(run.stdout).toContain('GitHub does not pass repository secrets')
    expect(run.stdout).toContain(
      'if: github.event.pull_request.head.repo.full_name == github.repository'
    )
    expect(server.requests).toHaveLength(0)
    expect(api.requests).toHaveLength(0)
  })

  it('an empty api_key on pull_request_target, from a fork too, is a secret not set or misnamed, never blamed on GitHub', async () => {
    const { server, run } = await runOnEvent({ api_key: '' }, (api) =>
      runnerEnv(api, { event: 'pull_request_target', headRepository: 'stranger/app' })
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      '::error::input "api_key" is empty: pull_request_target runs get the repository\'s secrets, fork pull requests included'
    )
    expect(run.stdout).toContain('is not set in this repository')
    expect(run.stdout).not.toContain('GitHub does not pass repository secrets')
    expect(server.requests).toHaveLength(0)
  })

  it('an empty api_key on a Dependabot run says so', async () => {
    const { server, run } = await runOnEvent({ api_key: '' }, (api) =>
      runnerEnv(api, { actor: 'dependabot[bot]' })
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('started by Dependabot')
    expect(server.requests).toHaveLength(0)
  })
})

describe('pull requests: one sticky comment', () => {
  it('always: creates the comment, and a re-run updates it in place', async () => {
    const api = await github()
    const { server, inputs } = await gate()
    const env = runnerEnv(api)
    // A gate of one leg, named (no matrix): a re-run's result replaces the one it re-ran.
    const withComment = { ...inputs, ...WITH_COMMENT, pr_comment_leg: 'null' }
    const first = await runAction(server, withComment, { env })
    expect(first.code).toBe(0)
    expect(api.comments).toHaveLength(1)
    const [comment] = api.comments
    expect(first.outputs.comment_url).toBe(comment.html_url)
    expect(comment.body).toMatch(/^<!-- neon-operations-gate:[0-9a-f]{16} -->\n<h2>/)
    expect(comment.body).toContain('✅ success')
    expect(comment.body).toContain('```mermaid\ngantt')
    expect(comment.body).toContain('actions/runs/777')
    expect(comment.user).toEqual(ACTIONS_BOT)
    // A re-run: the next attempt of the same run.
    const second = await runAction(server, withComment, {
      env: { ...env, GITHUB_RUN_ATTEMPT: '2' }
    })
    expect(second.outputs.comment_url).toBe(comment.html_url)
    expect(api.comments).toHaveLength(1)
    // Each run: its record (a commit status) and the reads of a round at once; the comment
    // created (a placeholder, then filled: no ✅ before a read after it), then updated in place;
    // each time read again, until it holds what was read.
    const comments = api.requests.filter(
      (request) => request.path.endsWith('/comments') || request.path.includes('/issues/comments/')
    )
    expect(comments.map((request) => request.method)).toEqual([
      'GET',
      'POST',
      'GET',
      'PATCH',
      'GET',
      'GET',
      'PATCH',
      'GET'
    ])
    expect(api.statuses.map((status) => status.state)).toEqual(['success', 'success'])
    expect(api.comments[0].body).not.toContain('results of this workflow run')
    // The token goes to the GitHub API only, the key to the API only.
    expect(api.requests.every((request) => request.token === WRITE_TOKEN)).toBe(true)
    expect(server.requests.every((request) => request.keyType === 'organization')).toBe(true)
    for (const run of [first, second]) {
      expect(run.stdout).toContain(`::add-mask::${WRITE_TOKEN}`)
      expect(run.stdout.split(WRITE_TOKEN)).toHaveLength(2)
    }
  })

  it('a read-only token (a fork): one warning; outcome, outputs and exit code unchanged', async () => {
    const { run } = await runOnEvent({ pr_comment: 'always', github_token: READ_ONLY_TOKEN })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.comment_url).toBe('')
    const warnings = run.stdout.split('\n').filter((line) => line.startsWith('::warning::'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('Resource not accessible by integration (HTTP 403)')
    expect(warnings[0]).toContain('pull-requests: write')
  })

  it('an empty github_token (a secret Dependabot runs do not get): one warning, no comment, and the gate runs', async () => {
    const { api, run } = await runOnEvent(
      { pr_comment: 'always', github_token: '' },
      (api) => runnerEnv(api, { actor: 'dependabot[bot]' }),
      { status: 'error' }
    )
    // The gate ran and failed on its own: the operation, never the comment's input.
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('failure')
    expect(run.stdout).toMatch(/^::error::An operation ended in failure/m)
    const warnings = run.stdout.split('\n').filter((line) => line.startsWith('::warning::'))
    expect(warnings).toEqual([
      "::warning::pr_comment: github_token is empty, so no comment is written (a run that gets no secrets, such as Dependabot's, passes an empty secret; leave github_token out to use the job's token)"
    ])
    expect(run.outputs.comment_url).toBe('')
    expect(api.requests).toHaveLength(0)
  })

  it('a GitHub API that never answers: one warning within a few seconds', async () => {
    const { run } = await runOnEvent(WITH_COMMENT, runnerEnv, {
      status: 'error',
      prepare: (api) => (api.silent = true),
      killAfterMs: 60_000
    })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('failure')
    expect(run.stdout).toContain(
      '::warning::Could not write the pull-request comment: the GitHub API did not answer within 10 s'
    )
    // The comment's 10 s and a ceiling for a loaded machine; an unbounded wait ends at the kill.
    expect(run.runningMs).toBeLessThan(25_000)
  })
})

describe('pull requests: annotations', () => {
  it('a timeout is one annotation naming the action and branch', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'running', { action: 'create_branch', branchId: 'br-slow-1' })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id, timeout: '1s' })
    expect(run.outputs.outcome).toBe('timeout')
    const annotations = run.stdout.split('\n').filter((line) => line.startsWith('::error title='))
    expect(annotations).toHaveLength(1)
    expect(annotations[0]).toMatch(
      /^::error title=timeout%3A create_branch still running on br-slow-1::/
    )
  })
})

describe('pull requests: whose comment, and only one', () => {
  it('two matrix legs of the same gate at once leave one comment with both results, the worst first; later runs update it', async () => {
    // The first read finds the operation failed, the second finished: one red leg, one green.
    const { api, server, env, legInputs } = await redThenGreen()
    // Both legs list before either creates, as two legs started together can. The API server
    // holds both legs' first reads until both came, so they reach GitHub together, however long
    // each one's start-up took; the comment's own 10 s then cannot run out between them.
    api.holdListsUntil = 2
    server.holdUntil(2)
    const legs = await Promise.all([
      runAction(server, legInputs, { env }),
      runAction(server, legInputs, { env })
    ])
    expect(legs.map((leg) => leg.outputs.outcome).sort()).toEqual(['failure', 'success'])
    const posts = api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments'))
    expect(posts).toHaveLength(2)
    expect(api.comments).toHaveLength(1)
    const [kept] = api.comments
    // Each leg's comment_url is the comment it ended on: this one, or the other, deleted since.
    const deleted = deletedAnchors(api)
    for (const { outputs } of legs) {
      const url = outputs.comment_url
      if (url !== kept.html_url) expect(deleted).toContain(url.slice(url.indexOf('#')))
    }
    expect(legs.map((leg) => leg.outputs.comment_url)).toContain(kept.html_url)
    // A green leg never hides a red one: the failure heads the comment, and both are listed.
    expect(kept.body).toMatch(
      /^<!-- neon-operations-gate:[0-9a-f]{16} -->\n<h2>Neon operations gate<\/h2>\n<p><b>❌ failure<\/b>/
    )
    expect(kept.body).toContain('<h3>2 results of this workflow run</h3>')
    expect(kept.body).toMatch(/<td>❌ failure: apply_config on br-preview-42 ended in error/)
    expect(kept.body).toMatch(/<td>✅ success: the operation finished/)
    // A re-run (attempt 2) of a leg that cannot be told apart: its green result is added beside
    // the earlier ones, and the red one it may have re-run stays at the head.
    api.holdListsUntil = 0
    const later = await runAction(server, legInputs, { env: { ...env, GITHUB_RUN_ATTEMPT: '2' } })
    expect(later.outputs.comment_url).toBe(kept.html_url)
    expect(api.comments).toHaveLength(1)
    expect(api.comments[0].body).toMatch(/\n<p><b>❌ failure<\/b>/)
    expect(api.comments[0].body).toContain('<h3>3 results of this workflow run</h3>')
    expect(api.comments[0].body).toContain('cannot be told apart')
  })

  it('legs of the same run one after the other: each adds its result, and a red one stays the headline', async () => {
    const { api, server, env, legInputs } = await redThenGreen()
    const red = await runAction(server, legInputs, { env })
    const green = await runAction(server, legInputs, { env })
    expect([red.code, green.code]).toEqual([1, 0])
    expect(api.comments).toHaveLength(1)
    const [comment] = api.comments
    expect(green.outputs.comment_url).toBe(comment.html_url)
    expect(comment.body).toMatch(/\n<p><b>❌ failure<\/b>: <code>apply_config<\/code>/)
    expect(comment.body).toContain('<h3>2 results of this workflow run</h3>')
  })

  it('failure: the red comment turns green in place when the gate passes again (a re-run, then a new run)', async () => {
    const { api, server, env, legInputs } = await redThenGreen()
    // One job, no matrix: pr_comment_leg is `${{ toJSON(matrix) }}`, 'null', so a re-run replaces.
    const inputs = { ...legInputs, pr_comment: 'failure', pr_comment_leg: 'null' }
    const red = await runAction(server, inputs, { env })
    expect(red.code).toBe(1)
    expect(api.comments).toHaveLength(1)
    const [comment] = api.comments
    expect(comment.body).toMatch(/\n<p><b>❌ failure<\/b>: <code>apply_config<\/code>/)
    // "Re-run this job": attempt 2 passes and turns the same comment green.
    const rerun = await runAction(server, inputs, { env: { ...env, GITHUB_RUN_ATTEMPT: '2' } })
    expect(rerun.code).toBe(0)
    expect(rerun.outputs.comment_url).toBe(comment.html_url)
    expect(api.comments).toEqual([comment])
    expect(comment.body).toMatch(/\n<p><b>✅ success<\/b>/)
    expect(comment.body).not.toContain('❌')
    // Red in one run, then a newer run of the pull request passes: green in place, its result alone.
    const next = await redThenGreen()
    const nextInputs = { ...next.legInputs, pr_comment: 'failure', pr_comment_leg: 'null' }
    expect((await runAction(next.server, nextInputs, { env: next.env })).code).toBe(1)
    const [again] = next.api.comments
    expect(again.body).toMatch(/\n<p><b>❌ failure<\/b>/)
    const newer = await runAction(next.server, nextInputs, {
      env: { ...next.env, GITHUB_RUN_ID: '778' }
    })
    expect(newer.code).toBe(0)
    expect(newer.outputs.comment_url).toBe(again.html_url)
    expect(next.api.comments).toEqual([again])
    expect(again.body).toMatch(/\n<p><b>✅ success<\/b>/)
    expect(again.body).not.toContain('❌')
    expect(again.body).toContain('actions/runs/778')
    // A ceiling only: four bundle runs, each about 2 s alone, on a loaded machine.
  }, 180_000)

  it('the key, base64-encoded after "Bearer ", never reaches the comment', async () => {
    const api = await github()
    const { world, server } = await serve()
    const op = operationIn(world, 'error', {
      error: `gateway echo: ${Buffer.from(`Bearer ${KEYS.organization}`).toString('base64')}`
    })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, ...WITH_COMMENT },
      { env: runnerEnv(api) }
    )
    expect(run.code).toBe(1)
    const [comment] = api.comments
    expect(comment.body).toContain('gateway echo: ')
    const middle = KEYS.organization.slice(3, -3)
    for (const [encoded] of comment.body.matchAll(/[A-Za-z0-9+/=]{8,}/g)) {
      for (let offset = 0; offset < 4; offset++) {
        expect(Buffer.from(encoded.slice(offset), 'base64').toString('latin1')).not.toContain(
          middle
        )
      }
    }
  })
})

describe('pull requests: written is written', () => {
  it('listing again after creating its placeholder fails: no comment_url, as it shows no result; the warning says so', async () => {
    const { api, run } = await runOnEvent(WITH_COMMENT, runnerEnv, {
      // The first round's reads (comments, head, statuses) answer; the next round's get a 502.
      prepare: (api) => api.faults.push({ method: 'GET', after: 3, status: 502 })
    })
    expect(run.code).toBe(0)
    expect(api.comments).toHaveLength(1)
    expect(run.outputs.comment_url).toBe('')
    expect(run.stdout).toContain(
      `::warning::pr_comment: created ${api.comments[0].html_url} as a placeholder, but listing the comments failed before it showed this leg's result`
    )
    expect(run.stdout).not.toContain('Could not write the pull-request comment')
  })
})
