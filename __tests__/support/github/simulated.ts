/*
 * The local GitHub API (server.ts's handler: comments, jobs, tokens, the log and the contract
 * checks) on the simulated network (time/clock.ts): each leg's CommentApi sends the requests
 * Octokit sends (the same paths, `per_page=100` and the Link header's pages, JSON bodies, the token
 * as `token …`), and each way of each request takes its own time, drawn by `halfTrip`. So the
 * reads and writes of legs that run at once reach GitHub, and take effect there, in any order, as
 * on the real API; and nothing sleeps. Octokit itself over HTTP is pr-comment.test.ts's.
 */
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

/**
 * A leg's CommentApi on issue 42 of `repository`, through `github` on simulated `time`: each
 * request reaches GitHub `halfTrip()` ms after it is sent, and its answer comes back `halfTrip()` ms
 * after GitHub handled it. An answer over 299 rejects as Octokit's RequestError does (`status`).
 */
export function simulatedCommentApi(
  time: SimulatedTime,
  github: GitHubApi,
  options: {
    token: string
    repository: string
    issueNumber: number
    halfTrip: () => number
    /** Sent as the User-Agent, so that the log of requests tells the legs apart. */
    agent: string
  }
): CommentApi {
  const { repository, issueNumber, halfTrip } = options
  const headers = {
    'user-agent': options.agent,
    authorization: `token ${options.token}`,
    accept: 'application/vnd.github.v3+json',
    'content-type': 'application/json; charset=utf-8'
  }
  const exchange = (method: string, url: string, body?: unknown): Promise<Exchange> =>
    new Promise((resolve, reject) => {
      time.at(time.now() + halfTrip(), () => {
        const request = {
          method,
          url,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body)
        }
        void github.handle(request).then((answer) => {
          // A silent GitHub never answers.
          if (!answer) return
          time.at(time.now() + halfTrip(), () => {
            if (answer.status < 300) return resolve(answer)
            const message = (answer.body as { message?: string } | undefined)?.message
            reject(Object.assign(new Error(message ?? `HTTP ${answer.status}`), answer))
          })
        })
      })
    })
  async function* pages<T>(first: string, items: (body: unknown) => T[]) {
    for (let url: string | undefined = first; url;) {
      const answer = await exchange('GET', url)
      yield items(answer.body)
      url = nextPage(answer.headers, github.apiUrl)
    }
  }
  const comments = `/repos/${repository}/issues/${issueNumber}/comments`
  const one = (id: number) => `/repos/${repository}/issues/comments/${id}`
  return {
    async authenticatedLogin() {
      try {
        return ((await exchange('GET', '/user')).body as { login: string }).login
      } catch (error) {
        if ((error as { status?: number }).status === 403) return undefined
        throw error
      }
    },
    listJobs: (runId, attempt) =>
      pages(
        `/repos/${repository}/actions/runs/${runId}/attempts/${attempt}/jobs?per_page=100`,
        (body) => (body as { jobs: WorkflowJob[] }).jobs
      ),
    listComments: () => pages(`${comments}?per_page=100`, (body) => body as IssueComment[]),
    createComment: async (body) =>
      (await exchange('POST', comments, { body })).body as IssueComment,
    updateComment: async (id, body) =>
      (await exchange('PATCH', one(id), { body })).body as IssueComment,
    async deleteComment(id) {
      try {
        await exchange('DELETE', one(id))
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error
      }
    }
  }
}
