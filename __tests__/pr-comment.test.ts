/*
 * The sticky pull-request comment over Octokit in process: which comment is the action's, create or
 * update in place, pages, tokens and who they write as, legs that converge, and every failure one
 * warning. GitHub is the local GitHub API's handler behind nock, so the requests are Octokit's own;
 * every order of several legs' calls is simulated/comment-interleavings.test.ts's, the bundle's
 * legs are e2e/pull-request.
 */
import { FakeClock, SimulatedTime } from './support/time/clock.js'
import { describe, expect, it } from '@jest/globals'
import { letThrough, withoutNetwork } from './support/nock.js'
import { octokitCommentApi } from '../src/runner/github-comments.js'
import { readView, renderView } from '../src/runner/comment-view.js'
import type { CommentMode } from '../src/runner/comment-writes.js'
import { gateMarker, writePullRequestComment } from '../src/runner/pr-comment.js'
import type { RunReport } from '../src/report/report.js'
import { pullRequestContext } from './support/github/context.js'
import { GITHUB_ORIGIN, nockGitHub } from './support/github/nock.js'
import { ACTIONS_BOT, type GitHubUser } from './support/github/server.js'
import { collectingLogger } from './support/logger.js'

const TOKEN = 'ghs_unit_test_token_abcdef'
const PAT = 'github_pat_unit_test_0123456789'
const REPOSITORY = 'octo/app'
const context = pullRequestContext(GITHUB_ORIGIN)
const gate = { projectId: 'p-1', branchId: 'br-1', operationIds: [] }
const marker = gateMarker(context, gate)
const bot = ACTIONS_BOT
const person: GitHubUser = { login: 'octocat', type: 'User' }
const myApp: GitHubUser = { login: 'my-app[bot]', type: 'Bot' }

const { logger, lines } = collectingLogger()

/**
 * The local GitHub API behind nock: TOKEN writes as github-actions[bot] (a workflow's
 * GITHUB_TOKEN), PAT as octocat; `comments` are on the pull request already, oldest first.
 */
function github(comments: [string, GitHubUser][] = []) {
  const api = nockGitHub()
  api.tokens.set(TOKEN, { user: bot, canWrite: true })
  api.tokens.set(PAT, { user: person, canWrite: true })
  api.pulls.set(`${REPOSITORY}#42`, HEAD)
  const written = comments.map(([body, user]) => api.addComment(REPOSITORY, 42, body, user))
  /** The requests of comments and of who the token is, as `GET /repos/…/comments?page=2`. */
  const calls = () =>
    api.requests
      .filter((request) => request.path.includes('/comments') || request.path === '/user')
      .map((request) => {
        const query = new URLSearchParams(request.query).toString()
        return `${request.method} ${request.path}${query ? `?${query}` : ''}`
      })
  return { api, written, calls }
}

const LIST = `/repos/${REPOSITORY}/issues/42/comments`
const HEAD = context.pullRequest!.headSha!
const ONE = (id: number) => `/repos/${REPOSITORY}/issues/comments/${id}`

/** The comment another leg of run 9 wrote, with its result alone (a result it could not record). */
function legComment(leg: string, outcome: 'success' | 'failure') {
  const key = `u-${leg}`
  const result = {
    key,
    leg: `neon-operations-gate/x/u-9-1-${leg}`,
    told: false,
    run: 9,
    attempt: 1,
    outcome,
    line: `${outcome}: ${leg} line`
  }
  const details = `<h2>Neon operations gate</h2>\n<p>${leg} details</p>\n`
  return renderView(marker, { run: 9, shown: key, detailed: true, results: [result], details }, '')
}

/** The results a comment holds: its line and outcome, in order. */
function resultsOf(body: string): [string, string][] {
  return (readView(body, marker)?.results ?? []).map((r) => [r.line, r.outcome])
}

const warnings = () => lines.filter((line) => line.startsWith('warning'))

/** No warning was logged: every call the comment made was answered. */
const noWarnings = () => expect(warnings()).toEqual([])

/** The comment's calls through Octokit, to pull request 42 of the local GitHub API server. */
const octokitApi =
  (token = TOKEN, apiUrl = GITHUB_ORIGIN) =>
  (signal: AbortSignal) =>
    octokitCommentApi({
      token,
      apiUrl,
      repository: REPOSITORY,
      issueNumber: 42,
      signal,
      fetch: globalThis.fetch
    })

/**
 * `api` with each call taking 100 ms of `clock`'s time: a leg that never stops calling GitHub meets
 * its time limit (a warning) after about 100 calls, instead of hanging the test until Jest's own
 * limit (a planted loop, a mutant's). The time is counted by calls: nock may answer a call before
 * the clock has played the last one's.
 */
function paced(api: ReturnType<typeof octokitApi>, clock: SimulatedTime) {
  let calls = 0
  return async (signal: AbortSignal) =>
    new Proxy(await api(signal), {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          const at = ++calls * 100
          clock.at(at, () => undefined)
          void clock.run(at)
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      }
    })
}

function write(
  mode: CommentMode,
  outcome: RunReport['outcome'],
  timeLimitMs?: number,
  token = TOKEN,
  author?: string,
  apiUrl = GITHUB_ORIGIN
) {
  const clock = new SimulatedTime()
  return writePullRequestComment({
    mode,
    token,
    author,
    context,
    report: { outcome, requests: { requests: 1, retries: 0 } },
    gate,
    logger,
    redact: (text) => text.split(token).join('***'),
    leg: 'leg-this',
    // Without a time limit of the test's own, the limit is on simulated time that moves only with
    // GitHub's calls (paced), never with the machine: the first test pays for loading Octokit,
    // which on a loaded machine can take most of the real 10 s. The limit itself is the tests'
    // that give one.
    ...(timeLimitMs === undefined
      ? { clock, api: paced(octokitApi(token, apiUrl), clock) }
      : { timeLimitMs, api: octokitApi(token, apiUrl) })
  })
}

withoutNetwork(() => {
  lines.length = 0
})

describe('the sticky pull-request comment', () => {
  it('creates one when none exists, with the token as auth and the marker first', async () => {
    const { api, calls } = github([['hello', person]])
    let made = ''
    api.beforeHandle = (request) => {
      if (request.method === 'PATCH') made = api.comments[1].body
    }
    const url = await write('always', 'success')
    const created = api.comments[1]
    expect(url).toBe(created.html_url)
    // Made as a placeholder, filled after a read, and listed once more: only this comment, as
    // it was filled.
    expect(calls()).toEqual([
      `GET ${LIST}?per_page=100`,
      `POST ${LIST}`,
      `GET ${LIST}?per_page=100`,
      `PATCH /repos/octo/app/issues/comments/${created.id}`,
      `GET ${LIST}?per_page=100`
    ])
    expect(made).toContain('⏳')
    expect(made).not.toContain('✅')
    expect(created.body).toContain('✅')
    for (const request of api.requests) expect(request.headers.authorization).toBe(`token ${TOKEN}`)
    noWarnings()
    expect(created.user).toEqual(bot)
    expect(created.body.startsWith(`${marker}\n<h2>Neon operations gate</h2>`)).toBe(true)
    expect(lines).toContain(`info: pr_comment: created ${created.html_url}`)
  })

  it('updates its own comment found on page two, following the Link header', async () => {
    const others = Array.from({ length: 101 }, (_, i): [string, GitHubUser] => [`c${i}`, person])
    const { api, written, calls } = github([...others, [`${marker}\nold`, bot]])
    const own = written.at(-1)!
    expect(await write('always', 'success')).toBe(own.html_url)
    // Read back: both pages again, the comment as it was written.
    const pages = [`GET ${LIST}?per_page=100`, `GET ${LIST}?per_page=100&page=2`]
    expect(calls()).toEqual([...pages, `PATCH ${ONE(own.id)}`, ...pages])
    noWarnings()
    expect(api.comments).toHaveLength(102)
    expect(own.body).toContain('✅ success')
  })

  it('a red result goes into a comment made after its record; the older one is deleted once it holds all', async () => {
    const { api, written, calls } = github([[`${marker}\nold`, bot]])
    const [old] = written
    const url = await write('always', 'failure')
    const created = api.comments.at(-1)!
    expect(url).toBe(created.html_url)
    expect(created.id).toBeGreaterThan(old.id)
    expect(calls()).toEqual([
      `GET ${LIST}?per_page=100`,
      `POST ${LIST}`,
      `GET ${LIST}?per_page=100`,
      `DELETE ${ONE(old.id)}`
    ])
    expect(api.comments).toEqual([created])
    expect(created.body).toContain('❌ failure')
    noWarnings()
  })

  it("never edits a person's comment that quotes or even copies the marker", async () => {
    const { api, written } = github([
      [`> ${marker}\n> ✅ success`, person],
      [`${marker}\ncopied`, person]
    ])
    expect(await write('always', 'success')).toBe(api.comments[2].html_url)
    expect(written.map((comment) => comment.body)).toEqual([
      `> ${marker}\n> ✅ success`,
      `${marker}\ncopied`
    ])
    noWarnings()
  })

  it('another gate of the same pull request keeps its own comment', async () => {
    const other = gateMarker(context, { ...gate, branchId: 'br-2' })
    expect(other).not.toBe(marker)
    const { api, written } = github([[`${other}\nother gate`, bot]])
    expect(await write('always', 'success')).toBe(api.comments[1].html_url)
    expect(written[0].body).toBe(`${other}\nother gate`)
    noWarnings()
  })

  it('failure: creates nothing while the gate passes, but turns an existing red comment green', async () => {
    const { api } = github()
    expect(await write('failure', 'success')).toBeUndefined()
    expect(api.comments).toEqual([])
    expect(lines).toContain('info: pr_comment: failure, and the gate passed: no comment written')
    // A comment of an earlier run (or of an older version, without results): replaced.
    const red = api.addComment(REPOSITORY, 42, `${marker}\n❌ failure`, bot)
    expect(await write('failure', 'success')).toBe(red.html_url)
    expect(red.body).toContain('✅ success')
    expect(red.body).not.toContain('❌ failure')
    api.comments.length = 0
    const url = await write('failure', 'timeout')
    expect(url).toBe(api.comments[0].html_url)
    noWarnings()
  })

  it.each([
    [403, 'Resource not accessible by integration', 'pull-requests: write'],
    [401, 'Bad credentials', 'github_token is missing or invalid'],
    [404, 'Not Found', 'the pull request or repository was not found'],
    [500, 'Server Error', 'HTTP 500']
  ])('HTTP %i is one warning, never a throw', async (status, message, hint) => {
    const { api } = github()
    // A read-only token (a fork's) is refused the write; no token GitHub knows, every call; a
    // pull request that is gone, and GitHub failing, the first list.
    if (status === 403) api.tokens.set(TOKEN, { user: bot, canWrite: false })
    else if (status === 401) api.tokens.delete(TOKEN)
    else api.faults.push({ method: 'GET', after: 0, status, message })
    expect(await write('always', 'success')).toBeUndefined()
    expect(warnings()).toHaveLength(1)
    expect(warnings()[0]).toContain(message)
    expect(warnings()[0]).toContain(hint)
  })

  it('a red leg whose GitHub fails once (502 on a read, 500 on its create) still writes its comment', async () => {
    const { api } = github([[`${marker}\nold`, bot]])
    api.faults.push({ method: 'GET', after: 0, status: 502, message: 'Bad Gateway', times: 1 })
    api.faults.push({ method: 'POST', after: 1, status: 500, message: 'Server Error', times: 1 })
    const url = await write('always', 'failure')
    expect(api.comments).toHaveLength(1)
    expect(url).toBe(api.comments[0].html_url)
    expect(api.comments[0].body).toContain('❌ failure')
    noWarnings()
  })

  it('a network error is one warning', async () => {
    // Nothing listens on the discard port.
    letThrough('http://127.0.0.1:9')
    expect(await write('always', 'success', 2000, TOKEN, undefined, 'http://127.0.0.1:9')).toBe(
      undefined
    )
    expect(warnings()).toHaveLength(1)
  })

  it('a GitHub API that never answers is one warning at the time limit', async () => {
    const clock = new FakeClock()
    const result = await writePullRequestComment({
      mode: 'always',
      token: TOKEN,
      context,
      report: { outcome: 'success', requests: { requests: 0, retries: 0 } },
      gate,
      logger,
      redact: (text) => text,
      api: async () => ({
        authenticatedLogin: () => new Promise(() => undefined),
        // eslint-disable-next-line require-yield
        async *listComments() {
          await new Promise(() => undefined)
        },
        // eslint-disable-next-line require-yield
        async *listJobs() {
          await new Promise(() => undefined)
        },
        createComment: () => new Promise(() => undefined),
        updateComment: () => new Promise(() => undefined),
        deleteComment: () => new Promise(() => undefined),
        pullHead: () => new Promise(() => undefined),
        createStatus: () => new Promise(() => undefined),
        // eslint-disable-next-line require-yield
        async *listStatuses() {
          await new Promise(() => undefined)
        }
      }),
      timeLimitMs: 300,
      clock
    })
    expect(result).toBeUndefined()
    expect(clock.sleeps).toEqual([300])
    expect(lines).toEqual([
      'warning: Could not write the pull-request comment: the GitHub API did not answer within 0.3 s'
    ])
  })

  it('outside a pull request: one line and no call; off: nothing', async () => {
    const { api } = github()
    const push = { ...context, eventName: 'push', pullRequest: undefined }
    const result = await writePullRequestComment({
      mode: 'always',
      token: TOKEN,
      context: push,
      report: { outcome: 'success', requests: { requests: 0, retries: 0 } },
      gate,
      logger,
      redact: (text) => text
    })
    expect(result).toBeUndefined()
    expect(lines).toEqual([
      'info: pr_comment: push run is not for a pull request; no comment written'
    ])
    lines.length = 0
    expect(await write('off', 'failure')).toBeUndefined()
    expect(lines).toEqual([])
    expect(api.requests).toEqual([])
  })
})

describe('with a personal access token as github_token', () => {
  const writeWithPat = () => write('always', 'success', undefined, PAT)

  it('asks GitHub who the token is, and updates that account’s comment, not a bot’s', async () => {
    const { written, calls, api } = github([
      [`${marker}\nby the bot`, bot],
      [`${marker}\nold`, person]
    ])
    const [byTheBot, own] = written
    expect(await writeWithPat()).toBe(own.html_url)
    expect(calls()).toEqual([
      'GET /user',
      `GET ${LIST}?per_page=100`,
      `PATCH ${ONE(own.id)}`,
      `GET ${LIST}?per_page=100`
    ])
    for (const request of api.requests) expect(request.headers.authorization).toBe(`token ${PAT}`)
    expect(byTheBot.body).toBe(`${marker}\nby the bot`)
    noWarnings()
  })

  it('never edits another person’s comment that copies the marker', async () => {
    const mallory: GitHubUser = { login: 'mallory', type: 'User' }
    const { api, written } = github([[`${marker}\ncopied`, mallory]])
    expect(await writeWithPat()).toBe(api.comments[1].html_url)
    expect(api.comments[1].user).toEqual(person)
    expect(written[0].body).toBe(`${marker}\ncopied`)
    noWarnings()
  })

  it('a token GitHub will not identify (403 on /user) looks for github-actions[bot]’s comment', async () => {
    const { api, written } = github([
      [`${marker}\nby a person`, person],
      [`${marker}\nold`, bot]
    ])
    // GitHub answers /user with 403 for a token of an App's bot.
    api.tokens.set(PAT, { user: bot, canWrite: true })
    const [byAPerson, own] = written
    expect(await writeWithPat()).toBe(own.html_url)
    expect(api.requests[0]).toMatchObject({ path: '/user', status: 403 })
    expect(byAPerson.body).toBe(`${marker}\nby a person`)
    noWarnings()
  })

  it('a rejected token is one warning, before any comment is read', async () => {
    const { api, calls } = github()
    api.tokens.delete(PAT)
    expect(await writeWithPat()).toBeUndefined()
    expect(calls()).toEqual(['GET /user'])
    expect(lines).toEqual([
      'warning: Could not write the pull-request comment: Bad credentials (HTTP 401): github_token is missing or invalid'
    ])
  })
})

describe("whose comment is the action's", () => {
  it('with the GITHUB_TOKEN, another bot’s comment that starts with the marker is left alone', async () => {
    const chatops: GitHubUser = { login: 'chatops[bot]', type: 'Bot' }
    const { api, written } = github([[`${marker}\nby chatops`, chatops]])
    expect(await write('always', 'success')).toBe(api.comments[1].html_url)
    expect(written[0].body).toBe(`${marker}\nby chatops`)
    noWarnings()
  })

  it('pr_comment_author names another GitHub App’s bot: only its comment is updated', async () => {
    const { written } = github([
      [`${marker}\nold`, bot],
      [`${marker}\nold`, myApp]
    ])
    const [byTheBot, own] = written
    expect(await write('always', 'success', undefined, TOKEN, 'my-app[bot]')).toBe(own.html_url)
    expect(byTheBot.body).toBe(`${marker}\nold`)
    expect(own.body).toContain('✅ success')
    noWarnings()
  })

  it('a comment written as someone else than expected: a warning that says what to set', async () => {
    const { api } = github()
    // The token writes as the App's bot, where github-actions[bot] was expected.
    api.tokens.set(TOKEN, { user: myApp, canWrite: true })
    expect(await write('always', 'success')).toBe(api.comments[0].html_url)
    expect(lines).toContainEqual(expect.stringContaining('set pr_comment_author: my-app[bot]'))
  })

  it('two legs that both created a comment converge on the newest, with both results, and delete the other', async () => {
    const { api, calls } = github()
    // The other leg creates its comment between this leg's list and its create.
    let otherLeg: ReturnType<typeof api.addComment> | undefined
    api.onRequest = (request) => {
      if (request.method !== 'POST' || !request.path.endsWith('/comments') || otherLeg) return
      otherLeg = api.addComment(REPOSITORY, 42, legComment('leg-other', 'failure'), bot)
    }
    const url = await write('always', 'success')
    const created = api.comments.at(-1)!
    expect(url).toBe(created.html_url)
    expect(created.id).toBe(otherLeg!.id + 1)
    expect(calls()).toEqual([
      `GET ${LIST}?per_page=100`,
      `POST ${LIST}`,
      `GET ${LIST}?per_page=100`,
      `PATCH ${ONE(created.id)}`,
      `GET ${LIST}?per_page=100`,
      `DELETE ${ONE(otherLeg!.id)}`
    ])
    expect(api.comments).toEqual([created])
    noWarnings()
    const body = created.body
    expect(body).toMatch(
      new RegExp(`^${marker}\n<h2>Neon operations gate</h2>\n<p>leg-other details`)
    )
    expect(resultsOf(body).sort()).toEqual([
      ['failure: leg-other line', 'failure'],
      ['✅ success', 'success']
    ])
  })

  it('an update of a comment another leg deleted first (GitHub: 404) reads again and writes the newer one', async () => {
    const { api, written, calls } = github([[`${marker}\nold`, bot]])
    const [old] = written
    // Another leg's red made a newer comment and deleted this one, just before this leg's update.
    let newer: ReturnType<typeof api.addComment> | undefined
    api.onRequest = (request) => {
      if (request.method !== 'PATCH' || newer) return
      newer = api.addComment(REPOSITORY, 42, legComment('leg-other', 'failure'), bot)
      api.comments.splice(api.comments.indexOf(old), 1)
    }
    expect(await write('always', 'success')).toBe(newer!.html_url)
    expect(calls()).toEqual([
      `GET ${LIST}?per_page=100`,
      `PATCH ${ONE(old.id)}`,
      `GET ${LIST}?per_page=100`,
      `PATCH ${ONE(newer!.id)}`,
      `GET ${LIST}?per_page=100`
    ])
    expect(api.requests.find((request) => request.method === 'PATCH')?.status).toBe(404)
    expect(resultsOf(newer!.body).sort()).toEqual([
      ['failure: leg-other line', 'failure'],
      ['✅ success', 'success']
    ])
    noWarnings()
  })

  it('an update GitHub answers 404 again while it still lists the comment: one warning, no claim', async () => {
    const { api, written, calls } = github([[`${marker}\nold`, bot]])
    const [old] = written
    // Not a comment another leg deleted (it is listed again): the token cannot write it.
    api.faults.push({ method: 'PATCH', after: 0, status: 404, message: 'Not Found' })
    expect(await write('always', 'success')).toBeUndefined()
    expect(calls()).toEqual([
      `GET ${LIST}?per_page=100`,
      `PATCH ${ONE(old.id)}`,
      `GET ${LIST}?per_page=100`,
      `PATCH ${ONE(old.id)}`
    ])
    expect(warnings()).toEqual([
      'warning: Could not write the pull-request comment: Not Found (HTTP 404): the pull request or repository was not found with this token'
    ])
    expect(lines.filter((line) => line.includes('updated'))).toEqual([])
  })

  it('older comments are deleted once the newest holds every result; one already deleted is no error', async () => {
    const { api, written } = github([
      [`${marker}\na`, bot],
      [`${marker}\nb`, bot]
    ])
    const [older, own] = written
    // Another leg deletes the older comment first.
    api.onRequest = (request) => {
      if (request.method === 'DELETE') api.comments.splice(api.comments.indexOf(older), 1)
    }
    expect(await write('always', 'success')).toBe(own.html_url)
    expect(api.requests.find((request) => request.method === 'DELETE')?.status).toBe(404)
    expect(api.comments).toEqual([own])
    noWarnings()
  })
})

describe('written is written: a later call that fails keeps the comment that holds the result', () => {
  it('listing again after creating a red view fails: the new comment, and the warning says what failed', async () => {
    const { api } = github()
    // The reads of the first round (comments, head, statuses) answer; the next round's fail.
    api.faults.push({ method: 'GET', after: 3, status: 502, message: 'Bad Gateway' })
    const url = await write('always', 'failure')
    expect(url).toBe(api.comments[0].html_url)
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: pr_comment: created ${url!.replace(/[.?]/g, '\\$&')}, but listing the comments failed, so it may not show every leg's result yet`
        )
      )
    ])
  })

  it('listing again after creating a placeholder fails: no comment_url, the warning says it shows no result', async () => {
    const { api } = github()
    api.faults.push({ method: 'GET', after: 3, status: 502, message: 'Bad Gateway' })
    expect(await write('always', 'success')).toBeUndefined()
    expect(lines).toEqual([
      `warning: pr_comment: created ${api.comments[0].html_url} as a placeholder, but listing the comments failed before it showed this leg's result (each leg's commit status keeps its own): Bad Gateway (HTTP 502)`
    ])
  })

  it('reading back after an update fails: the updated comment, and the warning says what that may leave', async () => {
    const { api, written } = github([[`${marker}\nold`, bot]])
    api.faults.push({ method: 'GET', after: 3, status: 502, message: 'Bad Gateway' })
    const [own] = written
    expect(await write('always', 'success')).toBe(own.html_url)
    expect(lines).toEqual([
      `warning: pr_comment: updated ${own.html_url}, but listing the comments failed, so it may not show every leg's result yet (each leg's commit status keeps its own): Bad Gateway (HTTP 502)`
    ])
  })

  it('filling its placeholder fails: no comment_url, since the comment holds no result, and one warning', async () => {
    const { api } = github()
    api.faults.push({ method: 'PATCH', after: 0, status: 500, message: 'Server Error' })
    expect(await write('always', 'success')).toBeUndefined()
    expect(readView(api.comments[0].body, marker)).toBeUndefined()
    expect(lines).toEqual([
      `warning: pr_comment: created ${api.comments[0].html_url} as a placeholder, but updating ${api.comments[0].html_url} failed before it showed this leg's result (each leg's commit status keeps its own): Server Error (HTTP 500)`
    ])
  })

  it('deleting a duplicate fails: the updated comment, and the warning names the duplicate', async () => {
    const { api, written } = github([
      [`${marker}\na`, bot],
      [`${marker}\nb`, bot]
    ])
    api.faults.push({ method: 'DELETE', after: 0, status: 500, message: 'Server Error' })
    const [duplicate, own] = written
    expect(await write('always', 'success')).toBe(own.html_url)
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: pr_comment: updated ${own.html_url.replace(/[.?]/g, '\\$&')}, but deleting the duplicate comment ${duplicate.id} failed`
        )
      )
    ])
  })
})

describe('telling matrix legs apart through the jobs API (Octokit)', () => {
  function legWrite(runnerName: string, outcome: RunReport['outcome']) {
    return writePullRequestComment({
      mode: 'always',
      token: TOKEN,
      context: { ...context, runnerName },
      report: { outcome, requests: { requests: 1, retries: 0 } },
      gate,
      logger,
      redact: (text) => text,
      api: octokitApi()
    })
  }

  it('the job in progress on this runner names the leg, every page of jobs read', async () => {
    const { api } = github()
    api.tokens.set(TOKEN, { user: bot, canWrite: true, actionsRead: true })
    for (let i = 0; i < 120; i++) {
      const status = i === 110 ? 'in_progress' : 'completed'
      api.jobs.push({
        runId: 9,
        attempt: 1,
        name: `gate (${i})`,
        runnerName: `runner-${i}`,
        status
      })
    }
    expect(await legWrite('runner-110', 'success')).toBe(api.comments[0].html_url)
    const jobsCalls = api.requests.filter((request) => request.path.endsWith('/jobs'))
    expect(jobsCalls.map((request) => request.query.page ?? '1')).toEqual(['1', '2'])
    expect(resultsOf(api.comments[0].body)).toHaveLength(1)
    expect(readView(api.comments[0].body, marker)?.results[0].name).toBe('gate (110)')
    noWarnings()
  })

  it('no job on this runner: a log line, and the result is kept as a leg not told apart', async () => {
    const { api } = github()
    api.tokens.set(TOKEN, { user: bot, canWrite: true, actionsRead: true })
    await legWrite('runner-elsewhere', 'failure')
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^info: pr_comment: no job of this run attempt is in progress on runner runner-elsewhere alone/
      )
    )
    expect(readView(api.comments[0].body, marker)?.results[0].name).toBeUndefined()
    noWarnings()
  })

  it('without actions: read: one warning naming the permission; the comment is still written', async () => {
    const { api } = github()
    await legWrite('runner-1', 'success')
    expect(api.comments).toHaveLength(1)
    expect(warnings()).toEqual([
      expect.stringContaining(
        'pr_comment: could not tell this leg apart, because the jobs API failed: Resource not accessible by integration (HTTP 403). Grant the job "permissions: actions: read"'
      )
    ])
  })
})

describe('each leg’s result is a record of its own: a commit status', () => {
  it('records the result on the head commit, in a context of its own, with the run attempt as its link', async () => {
    const { api } = github()
    await write('always', 'failure')
    expect(api.statuses).toEqual([
      expect.objectContaining({
        sha: HEAD,
        state: 'failure',
        context: expect.stringMatching(/^neon-operations-gate\/[0-9a-f]{16}\/u-9-1-legthis$/),
        description: expect.stringMatching(/^❌ failure/),
        target_url: 'https://github.com/octo/app/actions/runs/9/attempts/1'
      })
    ])
    noWarnings()
  })

  it('without statuses: write, one warning naming the permission; the comment still shows the result', async () => {
    const { api } = github()
    api.tokens.set(TOKEN, { user: bot, canWrite: true, statusesWrite: false })
    expect(await write('always', 'failure')).toBe(api.comments[0].html_url)
    expect(api.statuses).toEqual([])
    expect(resultsOf(api.comments[0].body)).toEqual([
      ['❌ failure: nothing could be read, so the state is unknown', 'failure']
    ])
    expect(warnings()).toEqual([
      expect.stringContaining(
        'could not record this leg\'s result as a commit status: Resource not accessible by integration (HTTP 403). Grant the job "permissions: statuses: write"'
      )
    ])
  })

  it('a passing run whose commit is no longer the head writes nothing over the comment: one line', async () => {
    const { api, written } = github([[legComment('newer', 'success'), bot]])
    api.pulls.set(`${REPOSITORY}#42`, 'c'.repeat(40))
    expect(await write('always', 'success')).toBeUndefined()
    expect(written[0].body).toBe(legComment('newer', 'success'))
    expect(
      api.requests.filter(
        (r) => r.method === 'PATCH' || (r.path.endsWith('/comments') && r.method === 'POST')
      )
    ).toEqual([])
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^info: pr_comment: superseded: run 9 is for commit aaaaaaa, but the pull request's head is ccccccc now/
      )
    )
    noWarnings()
  })

  it('a red run whose commit is no longer the head, which has no result of the gate: its commit shown, red', async () => {
    const { api } = github([[legComment('sibling', 'success'), bot]])
    api.pulls.set(`${REPOSITORY}#42`, 'c'.repeat(40))
    expect(await write('always', 'failure')).toBe(api.comments.at(-1)!.html_url)
    expect(api.comments).toHaveLength(1)
    expect(resultsOf(api.comments[0].body)).toEqual([
      ['❌ failure: nothing could be read, so the state is unknown', 'failure'],
      ['success: sibling line', 'success']
    ])
    expect(lines).toContainEqual(
      "info: pr_comment: the pull request's head is ccccccc now, with no result of this gate yet; the comment shows run 9 of commit aaaaaaa, its failure at its head"
    )
    expect(lines.filter((line) => line.includes('superseded'))).toEqual([])
    noWarnings()
  })

  it('an event without the head commit (an issue_comment): the head is read, then the record made on it', async () => {
    const { api } = github()
    const chatOps = { ...context, pullRequest: { ...context.pullRequest!, headSha: undefined } }
    await writePullRequestComment({
      mode: 'always',
      token: TOKEN,
      context: chatOps,
      report: { outcome: 'failure', requests: { requests: 1, retries: 0 } },
      gate,
      logger,
      redact: (text) => text,
      leg: 'leg-this',
      api: octokitApi()
    })
    expect(api.statuses.map((status) => status.sha)).toEqual([HEAD])
    expect(api.comments[0].body).toContain('❌ failure')
    noWarnings()
  })

  it('the token never reaches the record or the comment, not even through pr_comment_leg', async () => {
    const { api } = github()
    await writePullRequestComment({
      legInput: `{"region": "eu", "t": "${TOKEN}"}`,
      mode: 'always',
      token: TOKEN,
      context,
      report: {
        outcome: 'error',
        requests: { requests: 1, retries: 0 },
        error: `bad ${TOKEN}`
      },
      gate,
      logger,
      redact: (text) => text.split(TOKEN).join('***'),
      leg: 'leg-this',
      api: octokitApi()
    })
    expect(api.comments[0].body).toContain('bad ***')
    expect(api.statuses[0].description).toContain('bad ***')
    expect(api.comments[0].body).not.toContain(TOKEN)
    expect(JSON.stringify(api.statuses)).not.toContain(TOKEN)
  })
})
