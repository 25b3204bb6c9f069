/*
 * The calls of the legs' comment protocols (src/runner/comment-protocol.ts) as requests to the
 * local GitHub API's handler (server.ts), for the scheduler (interleavings.ts): the same paths
 * and bodies Octokit sends, each answer read as the action reads it.
 */
import type { Answer } from '../../../src/runner/comment-protocol.js'
import type { CommitStatus } from '../../../src/runner/comment-records.js'
import type { Call, WriterConfig } from '../../../src/runner/comment-round.js'
import type { GitHubApi, StoredComment, StoredStatus } from './server.ts'

export const REPOSITORY = 'octo/app'
const PULL = `${REPOSITORY}#42`

/** What the scheduler saves of GitHub's state, and restores before each step. */
export interface Saved {
  comments: StoredComment[]
  statuses: StoredStatus[]
  head: string
  nextCommentId: number
}

export function save(github: GitHubApi): Saved {
  return {
    comments: github.comments.map((comment) => ({ ...comment })),
    statuses: [...github.statuses],
    head: github.pulls.get(PULL)!,
    nextCommentId: github.nextCommentId
  }
}

export function restore(github: GitHubApi, saved: Saved): void {
  github.comments = saved.comments.map((comment) => ({ ...comment }))
  github.statuses = [...saved.statuses]
  github.pulls.set(PULL, saved.head)
  github.nextCommentId = saved.nextCommentId
  github.requests.length = 0
}

const TOKEN_HEADERS = {
  authorization: 'token ghs_interleavings_token_000000',
  'content-type': 'application/json'
}

/** One call's effect on GitHub, and its answer as the protocol reads it. */
export async function callGitHub(
  github: GitHubApi,
  config: WriterConfig,
  call: Call
): Promise<Answer> {
  const send = async (method: string, url: string, body?: unknown) => {
    const answer = await github.handle({
      method,
      url,
      headers: TOKEN_HEADERS,
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return answer!
  }
  const base = `/repos/${REPOSITORY}`
  if (call.call === 'comments' || call.call === 'records') return read(send, config, call)
  switch (call.call) {
    case 'record': {
      const answer = await send('POST', `${base}/statuses/${call.sha}`, call.status)
      return answer.status === 201 ? { id: (answer.body as { id: number }).id } : 'refused'
    }
    case 'head':
      return {
        head: ((await send('GET', `${base}/pulls/42`)).body as { head: { sha: string } }).head.sha
      }
    case 'update':
    case 'create': {
      const answer =
        call.call === 'update'
          ? await send('PATCH', `${base}/issues/comments/${call.id}`, { body: call.body })
          : await send('POST', `${base}/issues/42/comments`, { body: call.body })
      // Another leg deleted it first (comment-writes.ts reads a 404 so).
      if (call.call === 'update' && answer.status === 404) return 'gone'
      if (answer.status >= 300) throw new Error(`${call.call}: HTTP ${answer.status}`)
      const { id, html_url } = answer.body as { id: number; html_url: string }
      return { written: { id, html_url } }
    }
    default:
      await send('DELETE', `${base}/issues/comments/${call.id}`)
      return 'deleted'
  }
}

type Send = (
  method: string,
  url: string,
  body?: unknown
) => Promise<{ status: number; body?: unknown }>

/** A read of the comments or of a commit's statuses, as the protocol reads it. */
async function read(
  send: Send,
  config: WriterConfig,
  call: Extract<Call, { call: 'comments' | 'records' }>
): Promise<Answer> {
  const base = `/repos/${REPOSITORY}`
  switch (call.call) {
    case 'comments': {
      const answer = await send('GET', `${base}/issues/42/comments?per_page=100`)
      const all = answer.body as {
        id: number
        html_url: string
        body: string
        user: { login: string }
      }[]
      const own = all.filter(
        (c) => c.body.startsWith(config.marker) && c.user.login === config.author
      )
      const comments = own.map(({ id, html_url, body }) => ({ id, html_url, body }))
      return { comments: comments.sort((a, b) => a.id - b.id) }
    }
    default: {
      const answer = await send('GET', `${base}/commits/${call.sha}/statuses?per_page=100`)
      const statuses = (answer.body as CommitStatus[]).map((status) => ({
        id: status.id,
        state: status.state,
        context: status.context,
        description: status.description,
        target_url: status.target_url,
        creator: { login: status.creator!.login }
      }))
      return { statuses }
    }
  }
}
