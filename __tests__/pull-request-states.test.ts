/*
 * A sweep's pull-request states (issue 69, src/runner/pull-request-states.ts) read with Octokit from
 * the local GitHub API on 127.0.0.1, held to GitHub's REST description: open, closed, merged, and
 * every way a pull request cannot be read (404, 403, 500, an answer that is no pull request, no
 * answer), each named with why, never guessed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals'
import {
  octokitPullRequests,
  readPullRequestStates,
  stateOf
} from '../src/runner/pull-request-states.js'
import { githubContract } from './support/github/contract.js'
import { ACTIONS_BOT, type GitHubServer, startGitHubServer } from './support/github/server.js'

const TOKEN = 'ghs_sweep_test_token_0123456789'
const READ_ONLY = 'ghs_sweep_read_only_token_98765'
const REPOSITORY = 'octo/app'

let github: GitHubServer
beforeAll(async () => {
  github = await startGitHubServer({ contract: await githubContract() })
  github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: true })
  github.tokens.set(READ_ONLY, { user: ACTIONS_BOT, canWrite: false })
  github.pullStates.push(
    { repository: REPOSITORY, number: 11, state: 'open', merged: false },
    { repository: REPOSITORY, number: 12, state: 'closed', merged: false },
    { repository: REPOSITORY, number: 13, state: 'closed', merged: true },
    { repository: 'octo/other', number: 14, state: 'closed', merged: true }
  )
})
afterAll(async () => {
  await github.close()
})
afterEach(() => {
  github.faults.length = 0
})

const reader = (token = TOKEN) =>
  octokitPullRequests({
    token,
    apiUrl: github.apiUrl,
    repository: REPOSITORY,
    signal: new AbortController().signal,
    fetch: globalThis.fetch
  })

describe("a sweep's pull requests", () => {
  it('open, closed and merged; another repository’s number, and one that does not exist: 404, named', async () => {
    const states = await readPullRequestStates(await reader(), [11, 12, 13, 14, 15, 12])
    expect([...states.entries()].sort(([a], [b]) => a - b)).toEqual([
      [11, 'open'],
      [12, 'closed'],
      [13, 'merged'],
      [14, { unreadable: 'HTTP 404 (no such pull request in this repository)' }],
      [15, { unreadable: 'HTTP 404 (no such pull request in this repository)' }]
    ])
    const reads = github.requests.filter((request) => request.path.includes('/pulls/'))
    // Each number once, with the token, on this repository's path.
    expect(reads.map((request) => request.path).sort()).toEqual(
      [11, 12, 13, 14, 15].map((n) => `/repos/${REPOSITORY}/pulls/${n}`)
    )
    expect(reads.every((request) => request.token === TOKEN)).toBe(true)
    expect(github.violations).toEqual([])
  })

  it.each([
    [403, 'HTTP 403 (the token cannot read pull requests: give the job pull-requests: read)'],
    [500, 'HTTP 500']
  ])('HTTP %d: named, not guessed', async (status, why) => {
    github.faults.push({ method: 'GET', after: 0, status })
    const states = await readPullRequestStates(await reader(), [11, 13])
    expect(states.get(11)).toEqual({ unreadable: why })
    expect(states.get(13)).toEqual({ unreadable: why })
  })

  it('an unknown token: 401, named', async () => {
    const states = await readPullRequestStates(await reader('ghs_unknown_token'), [11])
    expect(states.get(11)).toEqual({
      unreadable: 'HTTP 401 (the token cannot read pull requests: give the job pull-requests: read)'
    })
  })

  it('an answer that is no pull request (200): named, not guessed', async () => {
    github.pullStates.push({
      repository: REPOSITORY,
      number: 16,
      state: 'open',
      merged: false,
      malformed: true
    })
    const states = await readPullRequestStates(await reader(), [16])
    expect(states.get(16)).toEqual({
      unreadable: 'the answer is not this pull request (no number and state)'
    })
    // The malformed answer broke the description on purpose.
    github.violations.length = 0
  })

  it('no answer at all: named with the error', async () => {
    const states = await readPullRequestStates(async () => {
      throw new TypeError('fetch failed')
    }, [17])
    expect(states.get(17)).toEqual({ unreadable: 'no answer (fetch failed)' })
  })

  it('reads cut by the signal (the run’s timeout): each one not over is named by its reason, those read stand', async () => {
    const controller = new AbortController()
    const reading = readPullRequestStates(
      (pullNumber) =>
        pullNumber === 1
          ? Promise.resolve({ number: 1, state: 'open' })
          : new Promise((_, reject) => {
              controller.signal.addEventListener('abort', () => reject(new Error('aborted')))
            }),
      [1, 2, 3, 4, 5, 6],
      controller.signal
    )
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort(new Error('no answer before the timeout ran out'))
    const states = await reading
    expect(states.get(1)).toBe('open')
    for (const pullNumber of [2, 3, 4, 5, 6]) {
      expect(states.get(pullNumber)).toEqual({
        unreadable: 'no answer before the timeout ran out'
      })
    }
  })
})

describe('the state in an answer', () => {
  it.each([
    [{ number: 1, state: 'open', merged: false }, 'open'],
    [{ number: 1, state: 'closed', merged: false, merged_at: null }, 'closed'],
    [{ number: 1, state: 'closed', merged: true }, 'merged'],
    // The list endpoints' answers carry merged_at only.
    [{ number: 1, state: 'closed', merged_at: '2026-11-01T00:00:00Z' }, 'merged'],
    [
      { number: 2, state: 'open' },
      { unreadable: 'the answer is not this pull request (no number and state)' }
    ],
    [
      { number: 1, state: 'draft' },
      { unreadable: 'the answer is not this pull request (no number and state)' }
    ],
    ['<html>', { unreadable: 'the answer is not this pull request (no number and state)' }],
    [null, { unreadable: 'the answer is not this pull request (no number and state)' }]
  ])('%j: %j', (answer, state) => {
    expect(stateOf(1, answer)).toEqual(state)
  })
})
