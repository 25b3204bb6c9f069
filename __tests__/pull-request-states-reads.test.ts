/*
 * The sweep's reader of pull requests (src/runner/pull-request-states.ts, gitHubPullRequests) with
 * the token the comment uses, against the local GitHub API on 127.0.0.1, held to GitHub's REST
 * description: the numbers asked for read with that token, none read without one, and a read the
 * run stopped before it began named by why.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { gitHubPullRequests, readPullRequestStates } from '../src/runner/pull-request-states.js'
import { githubContract } from './support/github/contract.js'
import { ACTIONS_BOT, type GitHubServer, startGitHubServer } from './support/github/server.js'

const REPOSITORY = 'octo/app'
/** The job's token: it may read pull requests (pull-requests: read). */
const TOKEN = 'ghs_sweep_reads_token_0123456789'
const pull = (number: number, state: 'open' | 'closed', merged: boolean) => ({
  repository: REPOSITORY,
  number,
  state,
  merged
})

let github: GitHubServer
beforeAll(async () => {
  github = await startGitHubServer({ contract: await githubContract() })
  github.pullStates.push(pull(21, 'open', false), pull(22, 'closed', true))
  github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: false })
})
afterAll(async () => {
  await github.close()
})
beforeEach(() => {
  github.requests.length = 0
})

/** The reader of REPOSITORY's pull requests with `token` as github_token. */
const reader = (token: string) =>
  gitHubPullRequests({ apiUrl: github.apiUrl, repository: REPOSITORY }, token)
const signal = () => new AbortController().signal

describe("the sweep's reader of pull requests", () => {
  it('reads each number asked for with the token, on this repository', async () => {
    const states = await reader(TOKEN)([21, 22], signal())
    expect([...states.entries()].sort(([a], [b]) => a - b)).toEqual([
      [21, 'open'],
      [22, 'merged']
    ])
    expect(github.requests.map((request) => [request.path, request.token]).sort()).toEqual([
      [`/repos/${REPOSITORY}/pulls/21`, TOKEN],
      [`/repos/${REPOSITORY}/pulls/22`, TOKEN]
    ])
    expect(github.violations).toEqual([])
  })

  it('no number asked: nothing, and GitHub is not asked', async () => {
    expect([...(await reader(TOKEN)([], signal()))]).toEqual([])
    expect(github.requests).toEqual([])
  })

  it('an empty github_token: each number named with why, and GitHub is not asked', async () => {
    const why = { unreadable: "github_token is empty (leave it out to use the job's token)" }
    const states = await reader('')([21, 23], signal())
    expect([...states.entries()]).toEqual([
      [21, why],
      [23, why]
    ])
    expect(github.requests).toEqual([])
  })

  it('a run stopped for a reason that is no error: each read not begun says the run stopped', async () => {
    const controller = new AbortController()
    controller.abort('cancelled')
    const states = await readPullRequestStates(
      () => Promise.reject(new Error('never read')),
      [24],
      controller.signal
    )
    expect(states.get(24)).toEqual({ unreadable: 'the run stopped' })
  })
})
