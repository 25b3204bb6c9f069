/*
 * The pull-request comment as a run writes it (src/runner/pr-comment.ts), through its own Octokit
 * (the job's token, the context's API URL) against the local GitHub API on 127.0.0.1, held to
 * GitHub's REST description: what the comment and the leg's record hold, the lines it logs, and the
 * marker that finds the comment again in later runs.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { octokitCommentApi } from '../src/runner/github-comments.js'
import { recordContext } from '../src/runner/comment-records.js'
import { readView } from '../src/runner/comment-view.js'
import type { RunReport } from '../src/report/report.js'
import {
  gateMarker,
  type PullRequestCommentOptions,
  writePullRequestComment
} from '../src/runner/pr-comment.js'
import { pullRequestContext } from './support/github/context.js'
import { githubContract } from './support/github/contract.js'
import { ACTIONS_BOT, type GitHubServer, startGitHubServer } from './support/github/server.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'
import { SimulatedTime } from './support/time/clock.js'

const TOKEN = 'ghs_writer_test_token_0123456789'
/** A token that may write comments, not commit statuses. */
const NO_STATUSES = 'ghs_writer_test_no_statuses_98765'
const gate = { projectId: 'p-1', branchId: 'br-1', operationIds: ['op-2', 'op-1'] }
const { logger, lines } = collectingLogger()

let github: GitHubServer
let context: ReturnType<typeof pullRequestContext>
beforeAll(async () => {
  github = await startGitHubServer({ contract: await githubContract() })
  github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: true })
  github.tokens.set(NO_STATUSES, { user: ACTIONS_BOT, canWrite: true, statusesWrite: false })
  context = pullRequestContext(github.apiUrl)
  github.pulls.set('octo/app#42', context.pullRequest!.headSha!)
})
afterAll(async () => {
  await github.close()
})
beforeEach(() => {
  lines.length = 0
  github.comments.length = 0
  github.statuses.length = 0
  github.requests.length = 0
})

/**
 * This leg's comment with GitHub's own API (no `api` given): the time limit on a clock that never
 * moves, so only GitHub's answers end it.
 */
const write = (changes: Partial<PullRequestCommentOptions> = {}) =>
  writePullRequestComment({
    mode: 'always',
    token: TOKEN,
    context,
    report: REPORT,
    gate,
    logger,
    redact: (text) => text,
    leg: 'leg-this',
    clock: new SimulatedTime(),
    ...changes
  })

/** The results the comment holds, as its view records them. */
const resultsOf = (body: string) => readView(body, gateMarker(context, gate))?.results ?? []

const REPORT = { outcome: 'success', requests: { requests: 1, retries: 0 } } as const

describe("a run's pull-request comment", () => {
  it('is written with the job token at the API URL, with the pull request, its head and at most 20 operation rows', async () => {
    const operations = Array.from({ length: 21 }, () => operation({ status: 'finished' }))
    const wait = { outcome: 'success', polls: 1, observed: true, readAt: new Map(), elapsedMs: 0 }
    const url = await write({
      report: { ...REPORT, wait: { ...wait, operations } as RunReport['wait'] }
    })
    const [comment] = github.comments
    expect(url).toBe(comment.html_url)
    expect(lines).toEqual([`info: pr_comment: created ${url}`])
    expect(github.requests.length).toBeGreaterThan(0)
    expect(github.requests.every((request) => request.token === TOKEN)).toBe(true)
    expect(github.violations).toEqual([])
    expect(comment.body).toContain('<p>pull request #42 · head <code>aaaaaaa</code> · ')
    for (const shown of operations.slice(0, 20)) expect(comment.body).toContain(shown.id)
    expect(comment.body).not.toContain(operations[20].id)
    expect(comment.body).toContain('… and 1 more operations not shown')
  })

  it('a leg not told apart records under an id of its own, of at most 12 of its letters and digits', async () => {
    await write({ leg: 'Leg-ABCDEF-0123456789-xyz' })
    const marker = gateMarker(context, gate)
    const gateHash = marker.slice(marker.indexOf(':') + 1, marker.indexOf(' -->'))
    const leg = recordContext(gateHash, 'u-9-1-LegABCDEF012')
    expect(github.statuses.map((status) => status.context)).toEqual([leg])
    expect(resultsOf(github.comments[0].body)).toMatchObject([{ leg, told: false }])
  })

  it('a leg named by pr_comment_leg is told apart in its result', async () => {
    await write({ legInput: '{"os":"linux"}' })
    expect(resultsOf(github.comments[0].body)).toMatchObject([{ told: true, name: 'linux' }])
  })

  it.each([
    ['{"os":"linux"}', true],
    ['', false]
  ])(
    'a leg whose result cannot be recorded keeps in the comment whether it is told apart (pr_comment_leg %j: %j)',
    async (legInput, told) => {
      await write({ token: NO_STATUSES, legInput })
      expect(github.statuses).toEqual([])
      expect(resultsOf(github.comments[0].body)).toMatchObject([{ told }])
    }
  )

  it('an empty github_token: one warning, and GitHub is not asked', async () => {
    expect(await write({ token: '' })).toBeUndefined()
    expect(lines).toEqual([
      "warning: pr_comment: github_token is empty, so no comment is written (a run that gets no secrets, such as Dependabot's, passes an empty secret; leave github_token out to use the job's token)"
    ])
    expect(github.requests).toEqual([])
  })

  it.each([
    ['push', 'push'],
    ['', 'this']
  ])(
    'a %j run without a pull request: one line naming it, and GitHub is not asked',
    async (eventName, named) => {
      const push = { ...context, eventName, pullRequest: undefined }
      expect(await write({ context: push })).toBeUndefined()
      expect(lines).toEqual([
        `info: pr_comment: ${named} run is not for a pull request; no comment written`
      ])
      expect(github.requests).toEqual([])
    }
  )

  it('a create that fails with no error at all: one warning that it may have landed, never a throw', async () => {
    const api = async (signal: AbortSignal) => ({
      ...(await octokitCommentApi({
        token: TOKEN,
        apiUrl: github.apiUrl,
        repository: 'octo/app',
        issueNumber: 42,
        signal
      })),
      createComment: () => Promise.reject(undefined as unknown as Error)
    })
    expect(await write({ api })).toBeUndefined()
    expect(lines).toEqual([
      expect.stringMatching(/^warning: pr_comment: creating .* got no answer/)
    ])
  })
})

describe('the marker that finds the comment again', () => {
  /** The marker as every version wrote it: the first 16 hex digits of the SHA-256 of these lines. */
  const written = (lines: string[]) =>
    `<!-- neon-operations-gate:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)} -->`

  it.each([
    [{ projectId: 'p-1', operationIds: ['op-2', 'op-1'] }, ['p-1', '', 'op-1,op-2']],
    [{ branchId: 'br-1', operationIds: [] }, ['', 'br-1', '']]
  ])('of gate %j is the one a comment written earlier holds', (gate, identity) => {
    expect(gateMarker(context, gate)).toBe(written(['octo/app', 'Preview', 'gate', ...identity]))
  })
})
