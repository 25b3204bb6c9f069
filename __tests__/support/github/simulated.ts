/*
 * The local GitHub API (server.ts's handler: comments, jobs, tokens, the log and the contract
 * checks) on the simulated network (time/clock.ts): each leg's CommentApi sends the requests
 * Octokit sends (the same paths, `per_page=100` and the Link header's pages, JSON bodies, the token
 * as `token …`), and each way of each request takes its own time, drawn by `halfTrip`. So the
 * reads and writes of legs that run at once reach GitHub, and take effect there, in any order, as
 * on the real API; and nothing sleeps. Octokit itself over HTTP is pr-comment.test.ts's.
 */
import type { CommitStatus } from '../../../src/runner/comment-records.js'
import type { CommentApi, IssueComment, WorkflowJob } from '../../../src/runner/github-comments.js'
import type { SimulatedTime } from '../time/clock.ts'
import type { GitHubApi } from './server.ts'

interface Exchange {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** The URL of the Link header's `rel="next"`, as a path and query; undefined on the last page. */
function nextPage(headers: Record<string, string> | undefined, apiUrl: string) {
  const next = /<([^>]+)>;\s*rel="next"/.exec(headers?.link ?? '')?.[1]
  return next?.startsWith(apiUrl) ? next.slice(apiUrl.length) : undefined
}

interface SimulatedLeg {
  token: string
  repository: string
  issueNumber: number
  halfTrip: () => number
  /** Sent as the User-Agent, so that the log of requests tells the legs apart. */
  agent: string
  /** Aborts the leg's calls, as Octokit's fetch does: a request already sent still reaches GitHub. */
  signal?: AbortSignal
}

/**
 * One request of a leg: it reaches GitHub `halfTrip()` ms after it is sent, and its answer comes
 * back `halfTrip()` ms after GitHub handled it. An answer over 299 rejects as Octokit's
 * RequestError does (`status`, and the `response` it came in); so does an abort, at once.
 */
function exchanger(time: SimulatedTime, github: GitHubApi, leg: SimulatedLeg) {
  const headers = {
    'user-agent': leg.agent,
    authorization: `token ${leg.token}`,
    accept: 'application/vnd.github.v3+json',
    'content-type': 'application/json; charset=utf-8'
  }
  return (method: string, url: string, body?: unknown): Promise<Exchange> =>
    new Promise((resolve, reject) => {
      const { signal } = leg
      if (signal?.aborted) return reject(signal.reason)
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
      const json = body === undefined ? undefined : JSON.stringify(body)
      time.at(time.now() + leg.halfTrip(), () => {
        void github.handle({ method, url, headers, body: json }).then((answer) => {
          // A silent GitHub never answers.
          if (!answer) return
          time.at(time.now() + leg.halfTrip(), () => {
            if (answer.status < 300) return resolve(answer)
            const message = (answer.body as { message?: string } | undefined)?.message
            const error = new Error(message ?? `HTTP ${answer.status}`)
            reject(Object.assign(error, answer, { response: answer }))
          })
        })
      })
    })
}

/** A leg's CommentApi on issue `issueNumber` of `repository`, through `github` on simulated `time`. */
export function simulatedCommentApi(
  time: SimulatedTime,
  github: GitHubApi,
  leg: SimulatedLeg
): CommentApi {
  const exchange = exchanger(time, github, leg)
  async function* pages<T>(first: string, items: (body: unknown) => T[]) {
    for (let url: string | undefined = first; url;) {
      const answer = await exchange('GET', url)
      yield items(answer.body)
      url = nextPage(answer.headers, github.apiUrl)
    }
  }
  const comments = `/repos/${leg.repository}/issues/${leg.issueNumber}/comments`
  const one = (id: number) => `/repos/${leg.repository}/issues/comments/${id}`
  /** `call`, with a 4xx of `status` as `fallback`'s answer (a call GitHub may refuse). */
  const unless = async <T>(status: number, call: () => Promise<T>, fallback: T) => {
    try {
      return await call()
    } catch (error) {
      if ((error as { status?: number }).status === status) return fallback
      throw error
    }
  }
  return {
    authenticatedLogin: () =>
      unless(
        403,
        async () => ((await exchange('GET', '/user')).body as { login: string }).login,
        undefined
      ),
    listJobs: (runId, attempt) =>
      pages(
        `/repos/${leg.repository}/actions/runs/${runId}/attempts/${attempt}/jobs?per_page=100`,
        (body) => (body as { jobs: WorkflowJob[] }).jobs
      ),
    listComments: () => pages(`${comments}?per_page=100`, (body) => body as IssueComment[]),
    createComment: async (body) =>
      (await exchange('POST', comments, { body })).body as IssueComment,
    updateComment: async (id, body) =>
      (await exchange('PATCH', one(id), { body })).body as IssueComment,
    deleteComment: (id) =>
      unless(404, async () => void (await exchange('DELETE', one(id))), undefined),
    ...statusesOf(exchange, leg.repository, leg.issueNumber, pages)
  }
}

type Exchanger = ReturnType<typeof exchanger>

/** The pull request's head and its commits' statuses, through `exchange`. */
function statusesOf(
  exchange: Exchanger,
  repository: string,
  issueNumber: number,
  pages: <T>(first: string, items: (body: unknown) => T[]) => AsyncIterable<T[]>
): Pick<CommentApi, 'pullHead' | 'createStatus' | 'listStatuses'> {
  return {
    pullHead: async () =>
      (
        (await exchange('GET', `/repos/${repository}/pulls/${issueNumber}`)).body as {
          head: { sha: string }
        }
      ).head.sha,
    createStatus: async (sha, status) =>
      (await exchange('POST', `/repos/${repository}/statuses/${sha}`, status)).body as {
        id: number
      },
    listStatuses: (sha) =>
      pages(
        `/repos/${repository}/commits/${sha}/statuses?per_page=100`,
        (body) => body as CommitStatus[]
      )
  }
}
