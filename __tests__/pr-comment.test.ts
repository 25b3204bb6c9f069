import { FakeClock } from './support/time/clock.js'
import { describe, expect, it } from '@jest/globals'
import nock from 'nock'
import { withoutNetwork } from './support/nock.js'
import { octokitCommentApi } from '../src/runner/github-comments.js'
import {
  type LegResult,
  legResult,
  readComment,
  renderComment
} from '../src/runner/comment-results.js'
import type { CommentMode } from '../src/runner/comment-writes.js'
import { gateMarker, writePullRequestComment } from '../src/runner/pr-comment.js'
import type { RunReport } from '../src/report/report.js'
import { pullRequestContext } from './support/github/context.js'
import { collectingLogger } from './support/logger.js'

const API = 'http://127.0.0.1:4020'
const TOKEN = 'ghs_unit_test_token_abcdef'
const LIST = '/repos/octo/app/issues/42/comments'
const context = pullRequestContext(API)
const gate = { projectId: 'p-1', branchId: 'br-1', operationIds: [] }
const marker = gateMarker(context, gate)
const bot = { login: 'github-actions[bot]', type: 'Bot' }
const person = { login: 'octocat', type: 'User' }
const comment = (id: number, body: string, user = person) => ({
  id,
  body,
  user,
  html_url: `https://github.com/octo/app/pull/42#issuecomment-${id}`
})

const { logger, lines } = collectingLogger()

/**
 * One comment as GitHub keeps it: `take` records the body of a create or an update (a nock body
 * matcher), `reply` and `list` answer with the body last sent, as GitHub would.
 */
function kept(id: number, user = bot, body = '') {
  const state = { body }
  return {
    state,
    take: (sent: { body: string }) => {
      state.body = sent.body
      return true
    },
    reply: () => comment(id, state.body, user),
    list: () => [comment(id, state.body, user)]
  }
}

/** The comment another leg of run 9 (or of `run`) wrote, with its result alone. */
function legComment(leg: string, outcome: LegResult['outcome'], run = '9', attempt = '1') {
  const result = legResult(
    leg,
    outcome,
    `${outcome}: ${leg} line`,
    Date.parse('2026-11-21T12:00:00Z')
  )
  const details = `<h2>Neon operations gate</h2>\n<p>${leg} details</p>\n`
  return renderComment(
    marker,
    { results: { run, attempt, shown: leg, results: [result] }, details },
    ''
  )
}

/** The results a comment holds: leg and outcome, in order. */
function resultsOf(body: string): [string, string][] {
  return (readComment(body, marker)?.results.results ?? []).map((r) => [r.leg, r.outcome])
}

/** No warning was logged: every call the comment made was answered. */
const noWarnings = () => expect(lines.filter((line) => line.startsWith('warning'))).toEqual([])

function write(
  mode: CommentMode,
  outcome: RunReport['outcome'],
  timeLimitMs?: number,
  token = TOKEN,
  author?: string
) {
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
    api: (signal) =>
      octokitCommentApi({
        token,
        apiUrl: API,
        repository: 'octo/app',
        issueNumber: 42,
        signal,
        fetch: globalThis.fetch
      }),
    timeLimitMs
  })
}

withoutNetwork(() => {
  lines.length = 0
})

describe('the sticky pull-request comment', () => {
  it('creates one when none exists, with the token as auth and the marker first', async () => {
    const created = kept(2)
    const scope = nock(API, { reqheaders: { authorization: `token ${TOKEN}` } })
      .get(LIST)
      .query({ per_page: '100' })
      .reply(200, [comment(1, 'hello')])
      .post(LIST, created.take)
      .reply(201, created.reply)
      // Listed once more after creating: only this run's comment, as it was written.
      .get(LIST)
      .query(true)
      .reply(200, () => [comment(1, 'hello'), ...created.list()])
    expect(await write('always', 'success')).toBe(
      'https://github.com/octo/app/pull/42#issuecomment-2'
    )
    scope.done()
    noWarnings()
    const posted = created.state.body
    expect(posted.startsWith(`${marker}\n<h2>Neon operations gate</h2>`)).toBe(true)
    expect(lines).toContain(
      'info: pr_comment: created https://github.com/octo/app/pull/42#issuecomment-2'
    )
  })

  it('updates its own comment found on page two, following the Link header', async () => {
    const page2 = `${API}${LIST}?per_page=100&page=2`
    const updated = kept(500)
    const scope = nock(API)
      .get(LIST)
      .query({ per_page: '100' })
      .reply(
        200,
        Array.from({ length: 100 }, (_, i) => comment(i + 1, `c${i}`)),
        { link: `<${page2}>; rel="next", <${page2}>; rel="last"` }
      )
      .get(LIST)
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(101, 'c100'), comment(500, `${marker}\nold`, bot)])
      .patch('/repos/octo/app/issues/comments/500', updated.take)
      .reply(200, updated.reply)
      // Read back: both pages again, the comment as it was written.
      .get(LIST)
      .query({ per_page: '100' })
      .reply(
        200,
        Array.from({ length: 100 }, (_, i) => comment(i + 1, `c${i}`)),
        { link: `<${page2}>; rel="next", <${page2}>; rel="last"` }
      )
      .get(LIST)
      .query({ per_page: '100', page: '2' })
      .reply(200, () => [comment(101, 'c100'), ...updated.list()])
    expect(await write('always', 'failure')).toContain('issuecomment-500')
    scope.done()
    noWarnings()
    expect(updated.state.body).toContain('❌ failure')
  })

  it("never edits a person's comment that quotes or even copies the marker", async () => {
    const created = kept(3)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [comment(1, `> ${marker}\n> ✅ success`), comment(2, `${marker}\ncopied`)])
      .post(LIST, created.take)
      .reply(201, created.reply)
      // Listed once more after creating: only this run's comment is the action's.
      .get(LIST)
      .query(true)
      .reply(200, () => [comment(2, `${marker}\ncopied`), ...created.list()])
    expect(await write('always', 'success')).toContain('issuecomment-3')
    scope.done()
    noWarnings()
  })

  it('another gate of the same pull request keeps its own comment', async () => {
    const other = gateMarker(context, { ...gate, branchId: 'br-2' })
    expect(other).not.toBe(marker)
    const created = kept(8)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [comment(7, `${other}\nother gate`, bot)])
      .post(LIST, created.take)
      .reply(201, created.reply)
      .get(LIST)
      .query(true)
      .reply(200, () => [comment(7, `${other}\nother gate`, bot), ...created.list()])
    expect(await write('always', 'success')).toContain('issuecomment-8')
    scope.done()
    noWarnings()
  })

  it('failure: creates nothing while the gate passes, but turns an existing red comment green', async () => {
    nock(API).get(LIST).query(true).reply(200, [])
    expect(await write('failure', 'success')).toBeUndefined()
    expect(lines).toContain('info: pr_comment: failure, and the gate passed: no comment written')
    // A comment of an earlier run (or of an older version, without results): replaced.
    const red = kept(4, bot, `${marker}\n❌ failure`)
    nock(API)
      .get(LIST)
      .query(true)
      .reply(200, red.list)
      .patch('/repos/octo/app/issues/comments/4', red.take)
      .reply(200, red.reply)
      .get(LIST)
      .query(true)
      .reply(200, red.list)
    expect(await write('failure', 'success')).toContain('issuecomment-4')
    expect(red.state.body).toContain('✅ success')
    expect(red.state.body).not.toContain('❌ failure')
    const created = kept(5)
    nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [])
      .post(LIST, created.take)
      .reply(201, created.reply)
      .get(LIST)
      .query(true)
      .reply(200, created.list)
    expect(await write('failure', 'timeout')).toContain('issuecomment-5')
    noWarnings()
  })

  it.each([
    [403, 'Resource not accessible by integration', 'pull-requests: write'],
    [401, 'Bad credentials', 'github_token is missing or invalid'],
    [404, 'Not Found', 'the pull request or repository was not found'],
    [500, 'Server Error', 'HTTP 500']
  ])('HTTP %i is one warning, never a throw', async (status, message, hint) => {
    nock(API).get(LIST).query(true).reply(status, { message })
    expect(await write('always', 'success')).toBeUndefined()
    const warnings = lines.filter((line) => line.startsWith('warning:'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(message)
    expect(warnings[0]).toContain(hint)
  })

  it('a network error is one warning', async () => {
    nock(API).get(LIST).query(true).replyWithError('connect ECONNREFUSED')
    expect(await write('always', 'success', 2000)).toBeUndefined()
    expect(lines.filter((line) => line.startsWith('warning:'))).toHaveLength(1)
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
        createComment: () => new Promise(() => undefined),
        updateComment: () => new Promise(() => undefined),
        deleteComment: () => new Promise(() => undefined)
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
  })
})

describe('with a personal access token as github_token', () => {
  const PAT = 'github_pat_unit_test_0123456789'
  const writeWithPat = () => write('always', 'success', undefined, PAT)

  it('asks GitHub who the token is, and updates that account’s comment, not a bot’s', async () => {
    const own = kept(2, person, `${marker}\nold`)
    const byTheBot = comment(1, `${marker}\nby the bot`, bot)
    const scope = nock(API, { reqheaders: { authorization: `token ${PAT}` } })
      .get('/user')
      .reply(200, person)
      .get(LIST)
      .query(true)
      .reply(200, () => [byTheBot, ...own.list()])
      .patch('/repos/octo/app/issues/comments/2', own.take)
      .reply(200, own.reply)
      .get(LIST)
      .query(true)
      .reply(200, () => [byTheBot, ...own.list()])
    expect(await writeWithPat()).toContain('issuecomment-2')
    scope.done()
    noWarnings()
  })

  it('never edits another person’s comment that copies the marker', async () => {
    const copied = comment(1, `${marker}\ncopied`, { login: 'mallory', type: 'User' })
    const created = kept(3, person)
    const scope = nock(API)
      .get('/user')
      .reply(200, person)
      .get(LIST)
      .query(true)
      .reply(200, [copied])
      .post(LIST, created.take)
      .reply(201, created.reply)
      .get(LIST)
      .query(true)
      .reply(200, () => [copied, ...created.list()])
    expect(await writeWithPat()).toContain('issuecomment-3')
    scope.done()
    noWarnings()
  })

  it('a token GitHub will not identify (403 on /user) looks for github-actions[bot]’s comment', async () => {
    const byAPerson = comment(1, `${marker}\nby a person`)
    const own = kept(4, bot, `${marker}\nold`)
    const scope = nock(API)
      .get('/user')
      .reply(403, { message: 'Resource not accessible by integration' })
      .get(LIST)
      .query(true)
      .reply(200, () => [byAPerson, ...own.list()])
      .patch('/repos/octo/app/issues/comments/4', own.take)
      .reply(200, own.reply)
      .get(LIST)
      .query(true)
      .reply(200, () => [byAPerson, ...own.list()])
    expect(await writeWithPat()).toContain('issuecomment-4')
    scope.done()
    noWarnings()
  })

  it('a rejected token is one warning, before any comment is read', async () => {
    const scope = nock(API).get('/user').reply(401, { message: 'Bad credentials' })
    expect(await writeWithPat()).toBeUndefined()
    scope.done()
    expect(lines).toEqual([
      'warning: Could not write the pull-request comment: Bad credentials (HTTP 401): github_token is missing or invalid'
    ])
  })
})

describe("whose comment is the action's", () => {
  const chatops = { login: 'chatops[bot]', type: 'Bot' }
  const myApp = { login: 'my-app[bot]', type: 'Bot' }

  it('with the GITHUB_TOKEN, another bot’s comment that starts with the marker is left alone', async () => {
    const byChatops = comment(1, `${marker}\nby chatops`, chatops)
    const created = kept(2)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [byChatops])
      .post(LIST, created.take)
      .reply(201, created.reply)
      .get(LIST)
      .query(true)
      .reply(200, () => [byChatops, ...created.list()])
    expect(await write('always', 'success')).toContain('issuecomment-2')
    scope.done()
    noWarnings()
  })

  it('pr_comment_author names another GitHub App’s bot: only its comment is updated', async () => {
    const byTheBot = comment(1, `${marker}\nold`, bot)
    const own = kept(2, myApp, `${marker}\nold`)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, () => [byTheBot, ...own.list()])
      .patch('/repos/octo/app/issues/comments/2', own.take)
      .reply(200, own.reply)
      .get(LIST)
      .query(true)
      .reply(200, () => [byTheBot, ...own.list()])
    expect(await write('always', 'success', undefined, TOKEN, 'my-app[bot]')).toContain(
      'issuecomment-2'
    )
    scope.done()
    noWarnings()
  })

  it('a comment written as someone else than expected: a warning that says what to set', async () => {
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [])
      .post(LIST)
      .reply(201, comment(5, 'x', myApp))
    expect(await write('always', 'success')).toContain('issuecomment-5')
    scope.done()
    expect(lines).toContainEqual(expect.stringContaining('set pr_comment_author: my-app[bot]'))
  })

  it('two legs that both created a comment converge on the oldest, with both results, and delete the other', async () => {
    const otherLeg = kept(8, bot, legComment('leg-other', 'failure'))
    const created = kept(9)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [])
      .post(LIST, created.take)
      .reply(201, created.reply)
      .get(LIST)
      .query(true)
      .reply(200, () => [...otherLeg.list(), ...created.list()])
      .patch('/repos/octo/app/issues/comments/8', otherLeg.take)
      .reply(200, otherLeg.reply)
      .delete('/repos/octo/app/issues/comments/9')
      .reply(204)
      .get(LIST)
      .query(true)
      .reply(200, otherLeg.list)
    expect(await write('always', 'success')).toContain('issuecomment-8')
    scope.done()
    noWarnings()
    const body = otherLeg.state.body
    expect(body).toMatch(
      new RegExp(`^${marker}\n<h2>Neon operations gate</h2>\n<p>leg-other details`)
    )
    expect(resultsOf(body)).toEqual([
      ['leg-other', 'failure'],
      ['leg-this', 'success']
    ])
  })

  it('an update also deletes leftover duplicates; one already deleted is no error', async () => {
    const own = kept(3, bot, `${marker}\na`)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, () => [...own.list(), comment(4, `${marker}\nb`, bot)])
      .patch('/repos/octo/app/issues/comments/3', own.take)
      .reply(200, own.reply)
      .delete('/repos/octo/app/issues/comments/4')
      .reply(404, { message: 'Not Found' })
      .get(LIST)
      .query(true)
      .reply(200, own.list)
    expect(await write('always', 'success')).toContain('issuecomment-3')
    scope.done()
    noWarnings()
  })
})

describe('written is written: a later call that fails keeps the comment that holds the result', () => {
  it('listing again after creating fails: the new comment, and the warning says what failed', async () => {
    const created = kept(7)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [])
      .post(LIST, created.take)
      .reply(201, created.reply)
      .get(LIST)
      .query(true)
      .reply(502, { message: 'Bad Gateway' })
    expect(await write('always', 'success')).toBe(comment(7, '').html_url)
    scope.done()
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: pr_comment: created https:\/\/github\.com\/octo\/app\/pull\/42#issuecomment-7, but listing the comments again to find duplicates from other runs of this gate failed, so a duplicate comment may be left behind: /
      )
    ])
  })

  it('reading back after an update fails: the updated comment, and the warning says what that may leave', async () => {
    const own = kept(3, bot, `${marker}\nold`)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, own.list)
      .patch('/repos/octo/app/issues/comments/3', own.take)
      .reply(200, own.reply)
      .get(LIST)
      .query(true)
      .reply(502, { message: 'Bad Gateway' })
    expect(await write('always', 'success')).toBe(comment(3, '').html_url)
    scope.done()
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: pr_comment: updated https:\/\/github\.com\/octo\/app\/pull\/42#issuecomment-3, but listing the comments again to check that no other leg's write replaced this result failed, so another leg's result may be missing from it: Bad Gateway \(HTTP 502\)$/
      )
    ])
  })

  it('deleting a duplicate fails: the updated comment, and the warning names the duplicate', async () => {
    const own = kept(3, bot, `${marker}\na`)
    const scope = nock(API)
      .get(LIST)
      .query(true)
      .reply(200, [comment(3, `${marker}\na`, bot), comment(4, `${marker}\nb`, bot)])
      .patch('/repos/octo/app/issues/comments/3', own.take)
      .reply(200, own.reply)
      .delete('/repos/octo/app/issues/comments/4')
      .reply(500, { message: 'Server Error' })
    expect(await write('always', 'success')).toBe(comment(3, '').html_url)
    scope.done()
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: pr_comment: updated https:\/\/github\.com\/octo\/app\/pull\/42#issuecomment-3, but deleting the duplicate comment https:\/\/github\.com\/octo\/app\/pull\/42#issuecomment-4 failed/
      )
    ])
  })
})
