/*
 * A local GitHub REST API on 127.0.0.1: the endpoints the pull-request comment uses (issue
 * comments: list with per_page/page and a Link header, create, update, delete; GET /user, which a
 * bot's token may not call, as on GitHub), with tokens that can write, tokens that are read-only (a
 * fork's GITHUB_TOKEN: 403 "Resource not accessible by integration"), and a log of every request;
 * and a run attempt's jobs (GET …/actions/runs/{run_id}/attempts/{attempt_number}/jobs, paged, 403
 * for a token without `actions: read`), which tell matrix legs apart by their runner's name; a pull
 * request's head commit (GET …/pulls/{n}); and commit statuses (create, list; 403 for a token
 * without `statuses: write`), the legs' own records. This file holds its state and the HTTP
 * server; routes.ts the endpoints, views.ts GitHub's JSON. Not bundled into dist/.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Contract, ContractViolation } from '../openapi-contract.ts'
import { type Handling, handle } from './routes.ts'

export interface GitHubUser {
  login: string
  type: 'User' | 'Bot'
}

/** A comment as the local GitHub API keeps it. */
export interface StoredComment {
  id: number
  body: string
  user: GitHubUser
  html_url: string
  issueNumber: number
  repository: string
  createdAt: string
  updatedAt: string
}

/** A pull request, as far as a sweep reads it (issue 69): open, closed, or closed by a merge. */
export interface StoredPull {
  repository: string
  number: number
  state: 'open' | 'closed'
  merged: boolean
  /** Answer 200 with a body that is no pull request (a proxy's, a broken cache's). */
  malformed?: boolean
}

/** A job of a workflow run attempt: a matrix leg, on its runner. */
export interface GitHubJob {
  runId: number
  attempt: number
  /** As GitHub names a matrix leg's job: `gate (a)`. */
  name: string
  runnerName: string | null
  status: 'queued' | 'in_progress' | 'completed'
}

/** A commit status as the local GitHub API keeps it. */
export interface StoredStatus {
  id: number
  repository: string
  sha: string
  state: 'error' | 'failure' | 'pending' | 'success'
  context: string
  description: string | null
  target_url: string | null
  creator: GitHubUser
  createdAt: string
}

export interface GitHubRequestRecord {
  method: string
  path: string
  query: Record<string, string>
  status: number
  token?: string
  /** The request's headers, as it sent them. */
  headers: GitHubRequest['headers']
}

export const ACTIONS_BOT: GitHubUser = { login: 'github-actions[bot]', type: 'Bot' }

/** The comments GitHub deleted, by the anchor of their html_url (`#issuecomment-<id>`). */
export function deletedAnchors(api: Pick<GitHubApi, 'requests'>): string[] {
  return api.requests
    .filter((request) => request.method === 'DELETE' && request.status === 204)
    .map((request) => `#issuecomment-${request.path.split('/').at(-1)}`)
}

/** A request as the handler reads it: over HTTP, or from nock in process. */
export interface GitHubRequest {
  method: string
  /** Path and query. */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The body of a POST or PATCH, as sent. */
  body?: string
}

export interface GitHubAnswer {
  status: number
  /** JSON; none for a 204. */
  body?: unknown
  headers?: Record<string, string>
}

/** The local GitHub API without its transport: its state, the log and the contract checks. */
export interface GitHubApi {
  /** The GITHUB_API_URL to give the action: its links and comment URLs start with it. */
  apiUrl: string
  comments: StoredComment[]
  requests: GitHubRequestRecord[]
  /**
   * Who each token writes as; a token absent here is unknown (401). `actionsRead`: the jobs API
   * answers it (the job was granted `actions: read`); 403 otherwise.
   */
  tokens: Map<
    string,
    { user: GitHubUser; canWrite: boolean; actionsRead?: boolean; statusesWrite?: boolean }
  >
  /** Each pull request's head commit (`repository#number`); a pull request absent here is 404. */
  pulls: Map<string, string>
  /** Commit statuses, oldest first. */
  statuses: StoredStatus[]
  /** The id the next comment gets (ids only grow, as on GitHub). */
  nextCommentId: number
  /** The jobs of every workflow run attempt, as the jobs API lists them. */
  jobs: GitHubJob[]
  /**
   * Pull requests with a state (open, closed, merged), as a sweep reads them; GET
   * …/pulls/{pull_number} answers these first, then those of `pulls`, else 404.
   */
  pullStates: StoredPull[]
  addComment(repository: string, issueNumber: number, body: string, user: GitHubUser): StoredComment
  /** Answer nothing at all (a GitHub API that never answers). */
  silent: boolean
  /**
   * Hold each answer to a list of comments until this many lists were asked for (at most 10 s), so
   * that runs started together all list before any of them creates (matrix legs). 0: answer at once.
   */
  holdListsUntil: number
  /**
   * Failures to inject: the requests of `method` that come after the first `after` of them answer
   * `status`, with GitHub's `message` (a GitHub API that fails half-way: listing again after
   * creating, deleting a duplicate); only `times` of them when given (a GitHub that fails once).
   */
  faults: { method: string; after: number; status: number; message?: string; times?: number }[]
  /** With a contract: what the requests and answers broke in GitHub's REST description. */
  violations: ContractViolation[]
  /** Called with each request once it is logged, before it is answered (another leg's write, say). */
  onRequest?: (record: GitHubRequestRecord) => void
  /**
   * Awaited before GitHub handles a request: a write on a slow network, that lands once an event of
   * the test's released it.
   */
  beforeHandle?: (record: GitHubRequestRecord) => Promise<void> | void
  /**
   * Awaited once GitHub has handled a request (its effect is done, its answer made) and before the
   * answer leaves: a slow network's answer, released by an event of the test's.
   */
  beforeAnswer?: (record: GitHubRequestRecord) => Promise<void> | void
  /** What GitHub answers to `request`; undefined: nothing at all (`silent`). */
  handle(request: GitHubRequest): Promise<GitHubAnswer | undefined>
}

export interface GitHubServer extends GitHubApi {
  close(): Promise<void>
}

/**
 * The local GitHub API as a handler: `apiUrl` is where it is reached (the HTTP server's address,
 * or the origin nock intercepts), which its links and comments' URLs name.
 */
export function createGitHubApi(
  options: {
    apiUrl?: string
    /** Test mode: every request and answer is checked against GitHub's REST description. */
    contract?: Contract
  } = {}
): GitHubApi {
  const state: GitHubApi = {
    apiUrl: options.apiUrl ?? '',
    comments: [],
    requests: [],
    tokens: new Map(),
    jobs: [],
    pulls: new Map(),
    statuses: [],
    nextCommentId: 1000,
    pullStates: [],
    silent: false,
    holdListsUntil: 0,
    faults: [],
    violations: [],
    addComment(repository, issueNumber, body, user) {
      const id = state.nextCommentId++
      const now = new Date().toISOString()
      const html_url = `https://github.com/${repository}/pull/${issueNumber}#issuecomment-${id}`
      const comment = {
        id,
        body,
        user,
        issueNumber,
        repository,
        html_url,
        createdAt: now,
        updatedAt: now
      }
      state.comments.push(comment)
      return comment
    },
    handle: (request) => handle(handling, request, options.contract)
  }
  const handling = handlingOf(state)
  return state
}

/** The counts and the held lists beside `state`. */
function handlingOf(state: GitHubApi): Handling {
  const methodsSeen = new Map<string, number>()
  let listsAsked = 0
  let releaseLists: () => void = () => undefined
  const listsReleased = new Promise<void>((resolve) => (releaseLists = resolve))
  return {
    state,
    count(method) {
      const seen = (methodsSeen.get(method) ?? 0) + 1
      methodsSeen.set(method, seen)
      return seen
    },
    /** Every held list resumes in the same turn, so all of them see the comments of that moment. */
    async listsHeld() {
      if (++listsAsked >= state.holdListsUntil) return releaseLists()
      // At most 10 s, and no timer left behind to keep the test process alive once released.
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        listsReleased,
        new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))
      ])
      clearTimeout(timer)
    }
  }
}

/** The local GitHub API on 127.0.0.1, with Node's `http`. */
export async function startGitHubServer(
  options: {
    /** Test mode: every request and answer is checked against GitHub's REST description. */
    contract?: Contract
  } = {}
): Promise<GitHubServer> {
  const api = createGitHubApi(options)
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk))
    request.on('end', () => {
      void api
        .handle({
          method: request.method ?? '',
          url: request.url ?? '/',
          headers: request.headers,
          body
        })
        .then((answer) => {
          if (!answer) return
          if (answer.status === 204) return void response.writeHead(204).end()
          response.writeHead(answer.status, {
            'content-type': 'application/json',
            ...answer.headers
          })
          response.end(JSON.stringify(answer.body))
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  api.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return Object.assign(api, {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  })
}
