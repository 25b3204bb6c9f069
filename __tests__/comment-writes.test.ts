/*
 * The comment's writes on GitHub (comment-writes.ts) through upsertComment itself, on an in-memory
 * CommentApi: what each round's calls are named in the progress a failure reports, which errors are
 * tried again, a record GitHub refuses, and the line each ending logs. Octokit over HTTP is
 * pr-comment.test.ts's; every order of several legs' calls is simulated/comment-interleavings'.
 */
import { beforeEach, describe, expect, it } from '@jest/globals'
import type { CommitStatus } from '../src/runner/comment-records.js'
import type { WriterConfig } from '../src/runner/comment-round.js'
import { type CommentProgress, upsertComment } from '../src/runner/comment-writes.js'
import type { CommentApi, IssueComment } from '../src/runner/github-comments.js'
import { legConfig, MARKER, SHA, statusesOf, viewBody } from './support/github/comment-fixtures.js'
import { collectingLogger } from './support/logger.js'

type Method =
  | 'listComments'
  | 'createComment'
  | 'updateComment'
  | 'deleteComment'
  | 'pullHead'
  | 'createStatus'
  | 'listStatuses'

const ME = { login: 'me' }
/** A comment of the action's without a view (an older version's). */
const OLD = `${MARKER}\nold`

/**
 * One pull request's comments, head and commit statuses in memory, as a CommentApi sees them.
 * `faults[method]`: what its next calls throw, one each, before they do anything; `tries`: the
 * calls of each method; `afterWrite`: another leg's doing, once a comment was created or updated.
 */
interface FakeGitHub {
  comments: IssueComment[]
  statuses: { sha: string; status: CommitStatus }[]
  head: string
  nextId: number
  /** Who a written comment comes back as. */
  writer: IssueComment['user']
  faults: Partial<Record<Method, unknown[]>>
  tries: Partial<Record<Method, number>>
  afterWrite: (comment: IssueComment) => void
  add(body: string | null, user?: IssueComment['user'], id?: number): IssueComment
}

function fakeGitHub() {
  const gh: FakeGitHub = {
    comments: [],
    statuses: [],
    head: SHA,
    nextId: 100,
    writer: ME,
    faults: {},
    tries: {},
    afterWrite: () => undefined,
    add(body, user = ME, id = gh.nextId++) {
      const comment = { id, body, user, html_url: `https://c/${id}` }
      gh.comments.push(comment)
      return comment
    }
  }
  const enter = (method: Method) => {
    gh.tries[method] = (gh.tries[method] ?? 0) + 1
    const faults = gh.faults[method]
    if (faults?.length) throw faults.shift()
  }
  const api: CommentApi = {
    authenticatedLogin: async () => ME.login,
    async *listJobs() {},
    async *listComments() {
      enter('listComments')
      yield gh.comments.map((comment) => ({ ...comment }))
    },
    async createComment(body) {
      enter('createComment')
      const made = gh.add(body)
      gh.afterWrite(made)
      return { ...made, user: gh.writer }
    },
    async updateComment(id, body) {
      enter('updateComment')
      const found = gh.comments.find((comment) => comment.id === id)
      if (!found) throw Object.assign(new Error('Not Found'), { status: 404 })
      found.body = body
      gh.afterWrite(found)
      return { ...found, user: gh.writer }
    },
    async deleteComment(id) {
      enter('deleteComment')
      gh.comments = gh.comments.filter((comment) => comment.id !== id)
    },
    async pullHead() {
      enter('pullHead')
      return gh.head
    },
    async createStatus(sha, status) {
      enter('createStatus')
      const id = gh.statuses.length + 1
      gh.statuses.push({ sha, status: { id, ...status, creator: ME } })
      return { id }
    },
    async *listStatuses(sha) {
      enter('listStatuses')
      yield gh.statuses.filter((stored) => stored.sha === sha).map((stored) => stored.status)
    }
  }
  return { gh, api }
}

const { logger, lines } = collectingLogger()

beforeEach(() => {
  lines.length = 0
})

/** Leg `a`'s comment, passing, on `api`. */
function upsert(
  api: CommentApi,
  progress: CommentProgress = {},
  signal?: AbortSignal,
  config: WriterConfig = legConfig('a', 'success')
) {
  return upsertComment(api, progress, { config, logger, describe: String, signal })
}

const httpError = (status: number, message: string) =>
  Object.assign(new Error(message), { status, response: {} })

describe('a round that fails', () => {
  it.each([
    [
      'listComments',
      { doing: "recording this leg's result as a commit status, listing the comments" }
    ],
    [
      'pullHead',
      { doing: "reading the pull request's head commit, reading the legs' commit statuses" }
    ]
  ] as const)(
    'a refused %s throws, and the progress names every call of its round, nothing written',
    async (method, progressed) => {
      const { gh, api } = fakeGitHub()
      gh.faults[method] = [httpError(422, 'Unprocessable')]
      const progress: CommentProgress = {}
      await expect(upsert(api, progress)).rejects.toThrow('Unprocessable')
      expect(progress).toStrictEqual(progressed)
      expect(gh.tries[method]).toBe(1)
    }
  )

  it('an update cut short three times throws, and names the comment it may have written', async () => {
    const { gh, api } = fakeGitHub()
    gh.add(OLD, ME, 5)
    gh.faults.updateComment = [1, 2, 3].map(() => new Error('socket hang up'))
    const progress: CommentProgress = {}
    await expect(upsert(api, progress)).rejects.toThrow('socket hang up')
    expect(gh.tries.updateComment).toBe(3)
    expect(progress.doing).toBe('updating https://c/5')
    expect(progress.sending).toEqual({ doing: 'updating https://c/5', url: 'https://c/5' })
  })

  it('a 5xx and a network error are tried again: the comment is still written', async () => {
    const { gh, api } = fakeGitHub()
    gh.faults.listComments = [httpError(502, 'Bad Gateway'), new Error('fetch failed')]
    const progress: CommentProgress = {}
    expect(await upsert(api, progress)).toBe('written')
    // Three tries for the first list, then one for each of the two rounds after a write.
    expect(gh.tries.listComments).toBe(5)
    expect(progress.written).toEqual({ action: 'created', url: 'https://c/100' })
    expect(lines).toEqual([])
  })

  it('an update GitHub refuses (422) is neither tried again nor taken as deleted', async () => {
    const { gh, api } = fakeGitHub()
    gh.add(OLD, ME, 5)
    gh.faults.updateComment = Array.from({ length: 20 }, () => httpError(422, 'Unprocessable'))
    await expect(upsert(api)).rejects.toThrow('Unprocessable')
    expect(gh.tries.updateComment).toBe(1)
  })
})

describe('the record', () => {
  it('refused with a bare error, no signal given: one warning that says what was thrown', async () => {
    const { gh, api } = fakeGitHub()
    gh.faults.createStatus = ['boom']
    expect(await upsert(api)).toBe('written')
    expect(lines).toEqual([
      `warning: pr_comment: could not record this leg's result as a commit status: boom. Grant the job "permissions: statuses: write": without it, the comment shows this result, but another leg writing at the same moment may drop it`
    ])
  })

  it('failing once the time limit aborted the writes: it throws, no warning', async () => {
    const { gh, api } = fakeGitHub()
    const aborted = new AbortController()
    aborted.abort()
    gh.faults.createStatus = [new Error('aborted')]
    await expect(upsert(api, {}, aborted.signal)).rejects.toThrow('aborted')
    expect(lines).toEqual([])
  })
})

describe('what each ending logs', () => {
  it('written: no line of its own, the comment it created', async () => {
    const { gh, api } = fakeGitHub()
    const progress: CommentProgress = {}
    expect(await upsert(api, progress)).toBe('written')
    expect(lines).toEqual([])
    expect(progress.written).toEqual({ action: 'created', url: 'https://c/100' })
    expect(gh.comments.map((comment) => comment.id)).toEqual([100])
  })

  it.each([
    ['with a comment', true, ' https://c/5'],
    ['without a comment', false, '']
  ])('superseded, %s: one line naming both commits', async (_, commented, named) => {
    const { gh, api } = fakeGitHub()
    if (commented) gh.add(OLD, ME, 5)
    gh.head = 'd'.repeat(40)
    expect(await upsert(api)).toBe('superseded')
    expect(lines).toEqual([
      `info: pr_comment: superseded: run 9 is for commit ccccccc, but the pull request's head is ddddddd now; its result stays in its commit status, and the comment${named} is left to the head's runs`
    ])
  })

  it('a later run: one line, the comment left as it is', async () => {
    const { gh, api } = fakeGitHub()
    const later = legConfig('x', 'failure')
    const body = viewBody(statusesOf([50, { ...later, own: { ...later.own, run: 10 } }]))
    gh.add(body, ME, 5)
    expect(await upsert(api)).toBe('later run')
    expect(gh.comments[0].body).toBe(body)
    expect(lines).toEqual([
      'info: pr_comment: https://c/5 shows a later run of this gate; left as it is'
    ])
  })

  it('other legs writing over each update: a warning after 8 rounds, the comment written', async () => {
    const { gh, api } = fakeGitHub()
    gh.add(OLD, ME, 5)
    gh.afterWrite = (comment) => void (comment.body = OLD)
    const progress: CommentProgress = {}
    expect(await upsert(api, progress)).toBe('written')
    expect(gh.tries.updateComment).toBe(8)
    expect(progress.written).toEqual({ action: 'updated', url: 'https://c/5' })
    expect(lines).toEqual([
      "warning: pr_comment: other legs kept writing https://c/5 at the same time; after 8 rounds it may lack a result (each leg's commit status keeps its own)"
    ])
  })

  it('other legs deleting each placeholder it creates: a warning after 8 rounds, no comment', async () => {
    const { gh, api } = fakeGitHub()
    gh.afterWrite = (comment) => void gh.comments.splice(gh.comments.indexOf(comment), 1)
    const progress: CommentProgress = {}
    expect(await upsert(api, progress)).toBe('rounds')
    expect(progress.written).toBeUndefined()
    expect(progress.placeholder).toBe('https://c/107')
    expect(lines).toEqual([
      "warning: pr_comment: other legs kept writing the comment at the same time; after 8 rounds it may lack a result (each leg's commit status keeps its own)"
    ])
  })

  it("another leg's newer comment holding this result: that one is the comment, as updated", async () => {
    const { gh, api } = fakeGitHub()
    let once = true
    gh.afterWrite = () => {
      if (once)
        gh.add(
          viewBody(
            gh.statuses.map((stored) => stored.status),
            's1'
          )
        )
      once = false
    }
    const progress: CommentProgress = {}
    expect(await upsert(api, progress)).toBe('written')
    expect(gh.comments.map((comment) => comment.id)).toEqual([101])
    expect(progress.written).toEqual({ action: 'updated', url: 'https://c/101' })
    expect(lines).toEqual([])
  })
})

describe("the action's comments", () => {
  it('listed out of order: the newest is kept, the older deleted; no author or no body is not its', async () => {
    const { gh, api } = fakeGitHub()
    gh.add(OLD, ME, 7)
    gh.add(OLD, ME, 5)
    gh.add(OLD, null, 6)
    gh.add(null, ME, 4)
    const progress: CommentProgress = {}
    expect(await upsert(api, progress)).toBe('written')
    expect(gh.comments.map((comment) => comment.id)).toEqual([7, 6, 4])
    expect(progress.written).toEqual({ action: 'updated', url: 'https://c/7' })
    expect(gh.comments[0].body).toContain('✅ success: a')
  })

  it('a comment that comes back without its author is taken as written by the action', async () => {
    const { gh, api } = fakeGitHub()
    gh.writer = null
    expect(await upsert(api)).toBe('written')
    expect(gh.comments).toHaveLength(1)
    expect(lines).toEqual([])
  })
})
