/*
 * A local GitHub REST API on 127.0.0.1: the endpoints the pull-request comment uses (issue comments:
 * list with per_page/page and a Link header, create, update, delete; GET /user, which a bot's token may not
 * call, as on GitHub), with tokens that can write, tokens that are read-only (a fork's GITHUB_TOKEN:
 * 403 "Resource not accessible by integration"), and a log of every request; and a run attempt's jobs
 * (GET …/actions/runs/{run_id}/attempts/{attempt_number}/jobs, paged, 403 for a token without
 * `actions: read`), which tell matrix legs apart by their runner's name. Not bundled into dist/.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Contract, ContractViolation } from '../openapi-contract.ts'

export interface GitHubUser {
  login: string
  type: 'User' | 'Bot'
}

interface IssueComment {
  id: number
  body: string
  user: GitHubUser
  html_url: string
  issueNumber: number
  repository: string
  createdAt: string
  updatedAt: string
}

/** A job of a workflow run attempt: a matrix leg, on its runner. */
interface GitHubJob {
  runId: number
  attempt: number
  /** As GitHub names a matrix leg's job: `gate (a)`. */
  name: string
  runnerName: string | null
  status: 'queued' | 'in_progress' | 'completed'
}

interface GitHubRequestRecord {
  method: string
  path: string
  query: Record<string, string>
  status: number
  token?: string
  /** The request's headers, as it sent them. */
  headers: GitHubRequest['headers']
}

export const ACTIONS_BOT: GitHubUser = { login: 'github-actions[bot]', type: 'Bot' }

/** A request as the handler reads it: over HTTP, or from nock in process. */
interface GitHubRequest {
  method: string
  /** Path and query. */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The body of a POST or PATCH, as sent. */
  body?: string
}

interface GitHubAnswer {
  status: number
  /** JSON; none for a 204. */
  body?: unknown
  headers?: Record<string, string>
}

/** The local GitHub API without its transport: its state, the log and the contract checks. */
export interface GitHubApi {
  /** The GITHUB_API_URL to give the action: its links and comment URLs start with it. */
  apiUrl: string
  comments: IssueComment[]
  requests: GitHubRequestRecord[]
  /**
   * Who each token writes as; a token absent here is unknown (401). `actionsRead`: the jobs API
   * answers it (the job was granted `actions: read`); 403 otherwise.
   */
  tokens: Map<string, { user: GitHubUser; canWrite: boolean; actionsRead?: boolean }>
  /** The jobs of every workflow run attempt, as the jobs API lists them. */
  jobs: GitHubJob[]
  addComment(repository: string, issueNumber: number, body: string, user: GitHubUser): IssueComment
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
   * creating, deleting a duplicate).
   */
  faults: { method: string; after: number; status: number; message?: string }[]
  /** With a contract: what the requests and answers broke in GitHub's REST description. */
  violations: ContractViolation[]
  /** Called with each request once it is logged, before it is answered (another leg's write, say). */
  onRequest?: (record: GitHubRequestRecord) => void
  /** What GitHub answers to `request`; undefined: nothing at all (`silent`). */
  handle(request: GitHubRequest): Promise<GitHubAnswer | undefined>
}

export interface GitHubServer extends GitHubApi {
  close(): Promise<void>
}

/** A user as GitHub's `simple-user` schema has it; the id is made from the login. */
function userView(user: GitHubUser) {
  const base = `https://api.github.com/users/${encodeURIComponent(user.login)}`
  let id = 0
  for (const character of user.login) id = (id * 31 + character.charCodeAt(0)) % 1_000_000_007
  return {
    login: user.login,
    id,
    node_id: `U_local${id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url: base,
    html_url: `https://github.com/${encodeURIComponent(user.login)}`,
    followers_url: `${base}/followers`,
    following_url: `${base}/following{/other_user}`,
    gists_url: `${base}/gists{/gist_id}`,
    starred_url: `${base}/starred{/owner}{/repo}`,
    subscriptions_url: `${base}/subscriptions`,
    organizations_url: `${base}/orgs`,
    repos_url: `${base}/repos`,
    events_url: `${base}/events{/privacy}`,
    received_events_url: `${base}/received_events`,
    type: user.type,
    site_admin: false
  }
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
  let nextId = 1000
  let listsAsked = 0
  const methodsSeen = new Map<string, number>()
  let releaseLists: () => void = () => undefined
  const listsReleased = new Promise<void>((resolve) => (releaseLists = resolve))
  const state: GitHubApi = {
    apiUrl: options.apiUrl ?? '',
    comments: [],
    requests: [],
    tokens: new Map(),
    jobs: [],
    silent: false,
    holdListsUntil: 0,
    faults: [],
    violations: [],
    addComment(repository, issueNumber, body, user) {
      const id = nextId++
      const now = new Date().toISOString()
      const comment = {
        id,
        body,
        user,
        issueNumber,
        repository,
        html_url: `https://github.com/${repository}/pull/${issueNumber}#issuecomment-${id}`,
        createdAt: now,
        updatedAt: now
      }
      state.comments.push(comment)
      return comment
    },
    async handle(request) {
      const url = new URL(request.url, 'http://127.0.0.1')
      const record: GitHubRequestRecord = {
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        status: 0,
        headers: request.headers
      }
      state.requests.push(record)
      state.onRequest?.(record)
      if (state.silent) return undefined
      let answer: GitHubAnswer
      try {
        answer = await respond(request, url, record)
      } catch {
        answer = { status: 400, body: { message: 'Problems parsing JSON' } }
      }
      record.status = answer.status
      if (options.contract) {
        const written = request.method === 'POST' || request.method === 'PATCH'
        state.violations.push(
          ...options.contract.check(
            {
              method: record.method,
              path: record.path,
              query: record.query,
              headers: request.headers,
              body: written ? parsed(request.body) : undefined
            },
            { status: answer.status, body: answer.status === 204 ? null : answer.body }
          )
        )
      }
      return answer
    }
  }

  /** An issue comment as GitHub's REST description has it, every required field included. */
  const view = (comment: IssueComment) => ({
    id: comment.id,
    node_id: `IC_local${comment.id}`,
    url: `${state.apiUrl}/repos/${comment.repository}/issues/comments/${comment.id}`,
    html_url: comment.html_url,
    issue_url: `${state.apiUrl}/repos/${comment.repository}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: userView(comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: comment.user.type === 'Bot' ? 'NONE' : 'MEMBER'
  })

  async function respond(
    request: GitHubRequest,
    url: URL,
    record: GitHubRequestRecord
  ): Promise<GitHubAnswer> {
    const authorization = String(request.headers.authorization ?? '')
    const token = /^(?:token|Bearer) (.+)$/i.exec(authorization)?.[1]
    record.token = token
    const identity = token ? state.tokens.get(token) : undefined
    if (!identity) return { status: 401, body: { message: 'Bad credentials' } }
    const seen = (methodsSeen.get(record.method) ?? 0) + 1
    methodsSeen.set(record.method, seen)
    const fault = state.faults.find((f) => f.method === record.method && seen > f.after)
    if (fault) {
      return {
        status: fault.status,
        body: { message: fault.message ?? `injected HTTP ${fault.status}` }
      }
    }
    const jobs = /^\/repos\/([^/]+\/[^/]+)\/actions\/runs\/(\d+)\/attempts\/(\d+)\/jobs$/.exec(
      url.pathname
    )
    if (jobs && request.method === 'GET') {
      if (!identity.actionsRead) {
        return { status: 403, body: { message: 'Resource not accessible by integration' } }
      }
      return jobsPage(url, jobs[1], Number(jobs[2]), Number(jobs[3]))
    }
    const list = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname)
    const one = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname)
    let payload: { body?: unknown } = {}
    if (request.method === 'POST' || request.method === 'PATCH') {
      payload = JSON.parse(request.body || '{}') as { body?: unknown }
      if (!identity.canWrite) {
        return { status: 403, body: { message: 'Resource not accessible by integration' } }
      }
      if (typeof payload.body !== 'string') {
        return { status: 422, body: { message: 'body is required' } }
      }
      if (payload.body.length > 65_536) {
        return { status: 422, body: { message: 'Body is too long (maximum is 65536 characters)' } }
      }
    }
    if (url.pathname === '/user' && request.method === 'GET') {
      if (identity.user.type === 'Bot') {
        return { status: 403, body: { message: 'Resource not accessible by integration' } }
      }
      return { status: 200, body: userAccount(identity.user) }
    }
    if (list && request.method === 'GET') {
      await listsHeld()
      return listPage(url, list[1], Number(list[2]))
    }
    if (list && request.method === 'POST') {
      const comment = state.addComment(
        list[1],
        Number(list[2]),
        payload.body as string,
        identity.user
      )
      return { status: 201, body: view(comment) }
    }
    // As on GitHub, a token that can write to the repository may edit or delete anyone's comment.
    const found = one
      ? state.comments.find(
          (candidate) => candidate.id === Number(one[2]) && candidate.repository === one[1]
        )
      : undefined
    if (one && request.method === 'PATCH') {
      if (!found) return { status: 404, body: { message: 'Not Found' } }
      found.body = payload.body as string
      found.updatedAt = new Date().toISOString()
      return { status: 200, body: view(found) }
    }
    if (one && request.method === 'DELETE') {
      if (!identity.canWrite) {
        return { status: 403, body: { message: 'Resource not accessible by integration' } }
      }
      if (!found) return { status: 404, body: { message: 'Not Found' } }
      state.comments.splice(state.comments.indexOf(found), 1)
      return { status: 204 }
    }
    return { status: 404, body: { message: 'Not Found' } }
  }

  /** Every held list resumes in the same turn, so all of them see the comments of that moment. */
  async function listsHeld(): Promise<void> {
    if (++listsAsked >= state.holdListsUntil) return releaseLists()
    // At most 10 s, and no timer left behind to keep the test process alive once released.
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      listsReleased,
      new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))
    ])
    clearTimeout(timer)
  }

  /** One page of an issue's comments (per_page, page), with GitHub's Link header. */
  function listPage(url: URL, repository: string, issueNumber: number): GitHubAnswer {
    const all = state.comments.filter(
      (comment) => comment.repository === repository && comment.issueNumber === issueNumber
    )
    const { items, headers } = paged(url, all)
    return { status: 200, body: items.map(view), headers }
  }

  /** One page of a run attempt's jobs, as GitHub's `job` schema has them, every required field. */
  function jobsPage(url: URL, repository: string, runId: number, attempt: number): GitHubAnswer {
    const all = state.jobs.filter((job) => job.runId === runId && job.attempt === attempt)
    const { items, headers } = paged(url, all)
    const base = `${state.apiUrl}/repos/${repository}/actions`
    const jobsOfPage = items.map((job) => {
      const id = runId * 1000 + state.jobs.indexOf(job)
      const assigned = job.runnerName !== null
      return {
        id,
        run_id: runId,
        run_url: `${base}/runs/${runId}`,
        run_attempt: attempt,
        node_id: `CR_local${id}`,
        head_sha: 'a'.repeat(40),
        url: `${base}/jobs/${id}`,
        html_url: `https://github.com/${repository}/actions/runs/${runId}/job/${id}`,
        status: job.status,
        conclusion: null,
        created_at: '2026-01-01T00:00:00Z',
        started_at: '2026-01-01T00:00:01Z',
        completed_at: null,
        name: job.name,
        steps: [],
        check_run_url: `${state.apiUrl}/repos/${repository}/check-runs/${id}`,
        labels: ['ubuntu-latest'],
        runner_id: assigned ? id : null,
        runner_name: job.runnerName,
        runner_group_id: assigned ? 2 : null,
        runner_group_name: assigned ? 'GitHub Actions' : null,
        workflow_name: 'Preview',
        head_branch: 'feature'
      }
    })
    return { status: 200, body: { total_count: all.length, jobs: jobsOfPage }, headers }
  }

  /** `all`'s page that `url` asks for (per_page, page), with GitHub's Link header. */
  function paged<T>(url: URL, all: T[]): { items: T[]; headers: Record<string, string> } {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30))
    const page = Number(url.searchParams.get('page') ?? 1)
    const last = Math.max(1, Math.ceil(all.length / perPage))
    const links: string[] = []
    const link = (n: number, rel: string) =>
      `<${state.apiUrl}${url.pathname}?per_page=${perPage}&page=${n}>; rel="${rel}"`
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
    if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'))
    return {
      items: all.slice((page - 1) * perPage, page * perPage),
      headers: links.length > 0 ? { link: links.join(', ') } : {}
    }
  }

  return state
}

/** A request's JSON body; undefined when it is none. */
function parsed(body: string | undefined): unknown {
  try {
    return JSON.parse(body || '{}')
  } catch {
    return undefined
  }
}

/** GET /user's account, as GitHub's `public-user` schema has it. */
function userAccount(user: GitHubUser) {
  return {
    ...userView(user),
    user_view_type: 'public',
    name: user.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: '2020-01-01T00:00:00Z',
    updated_at: '2020-01-01T00:00:00Z'
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
