/*
 * The local GitHub API's endpoints (server.ts): each request logged and checked against the
 * contract; who the token is, the faults to inject, a run attempt's jobs, a pull request (a sweep's
 * read of its state), GET /user, and an issue's comments (list, create, update, delete), with
 * GitHub's refusals (401, 403 for a read-only token or one without `actions: read`, 404, 422).
 */
import type { Contract } from '../openapi-contract.ts'
import type { GitHubAnswer, GitHubApi, GitHubRequest, GitHubRequestRecord } from './server.ts'
import { commentView, jobView, paged, pullView, userAccount } from './views.ts'
import { statusesRoute } from './statuses.ts'
import { pullStateView } from './pull-views.ts'

/** The state, and what the handler keeps beside it: each method's count, the lists held back. */
export interface Handling {
  state: GitHubApi
  /** Counts a request of `method`; how many there were, this one included. */
  count: (method: string) => number
  /** Resolves once the lists may answer (`holdListsUntil`). */
  listsHeld: () => Promise<void>
}

export type Identity = GitHubApi['tokens'] extends Map<string, infer T> ? T : never

export const NOT_ACCESSIBLE: GitHubAnswer = {
  status: 403,
  body: { message: 'Resource not accessible by integration' }
}
const NOT_FOUND: GitHubAnswer = { status: 404, body: { message: 'Not Found' } }

/** What GitHub answers to `request` (`url` parsed), logged as `record`. */
async function respond(
  handling: Handling,
  request: GitHubRequest,
  url: URL,
  record: GitHubRequestRecord
): Promise<GitHubAnswer> {
  const { state } = handling
  const authorization = String(request.headers.authorization ?? '')
  const token = /^(?:token|Bearer) (.+)$/i.exec(authorization)?.[1]
  record.token = token
  const identity = token ? state.tokens.get(token) : undefined
  if (!identity) return { status: 401, body: { message: 'Bad credentials' } }
  const seen = handling.count(record.method)
  const fault = state.faults.find((f) => f.method === record.method && seen > f.after)
  if (fault?.times !== undefined && --fault.times === 0)
    state.faults.splice(state.faults.indexOf(fault), 1)
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
    if (!identity.actionsRead) return NOT_ACCESSIBLE
    return jobsPage(state, url, jobs[1], [Number(jobs[2]), Number(jobs[3])])
  }
  const pull = /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/.exec(url.pathname)
  if (pull && request.method === 'GET') {
    const found = state.pullStates.find(
      (each) => each.repository === pull[1] && each.number === Number(pull[2])
    )
    if (found?.malformed) return { status: 200, body: { number: found.number, state: 'merged?' } }
    if (found) return { status: 200, body: pullStateView(found, identity.user, state.apiUrl) }
    const head = state.pulls.get(`${pull[1]}#${pull[2]}`)
    if (!head) return NOT_FOUND
    return { status: 200, body: pullView(pull[1], Number(pull[2]), head, state.apiUrl) }
  }
  const statuses = statusesRoute(state, request, url, identity)
  if (statuses) return statuses
  if (url.pathname === '/user' && request.method === 'GET') {
    return identity.user.type === 'Bot'
      ? NOT_ACCESSIBLE
      : { status: 200, body: userAccount(identity.user) }
  }
  return commentsRoute(handling, request, url, identity)
}

/** Logs `request`, answers it (nothing when silent), and checks both against the contract. */
export async function handle(
  handling: Handling,
  request: GitHubRequest,
  contract: Contract | undefined
): Promise<GitHubAnswer | undefined> {
  const { state } = handling
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
  await state.beforeHandle?.(record)
  let answer: GitHubAnswer
  try {
    answer = await respond(handling, request, url, record)
  } catch {
    answer = { status: 400, body: { message: 'Problems parsing JSON' } }
  }
  record.status = answer.status
  await state.beforeAnswer?.(record)
  if (contract) {
    const written = request.method === 'POST' || request.method === 'PATCH'
    const { method, path, query } = record
    const body = written ? parsed(request.body) : undefined
    state.violations.push(
      ...contract.check(
        { method, path, query, headers: request.headers, body },
        { status: answer.status, body: answer.status === 204 ? null : answer.body }
      )
    )
  }
  return answer
}

/** A request's JSON body; undefined when it is none. */
function parsed(body: string | undefined): unknown {
  try {
    return JSON.parse(body || '{}')
  } catch {
    return undefined
  }
}

/** A write's body, or GitHub's refusal of it. */
function writtenBody(request: GitHubRequest, identity: Identity): string | GitHubAnswer {
  const payload = JSON.parse(request.body || '{}') as { body?: unknown }
  if (!identity.canWrite) return NOT_ACCESSIBLE
  if (typeof payload.body !== 'string') {
    return { status: 422, body: { message: 'body is required' } }
  }
  if (payload.body.length > 65_536) {
    return { status: 422, body: { message: 'Body is too long (maximum is 65536 characters)' } }
  }
  return payload.body
}

/** The issue-comment endpoints. */
async function commentsRoute(
  handling: Handling,
  request: GitHubRequest,
  url: URL,
  identity: Identity
): Promise<GitHubAnswer> {
  const { state } = handling
  const list = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname)
  const one = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname)
  const writes = request.method === 'POST' || request.method === 'PATCH'
  const body = writes ? writtenBody(request, identity) : ''
  if (typeof body !== 'string') return body
  if (list && request.method === 'GET') {
    await handling.listsHeld()
    const all = state.comments.filter(
      (comment) => comment.repository === list[1] && comment.issueNumber === Number(list[2])
    )
    const { items, headers } = paged(url, all, state.apiUrl)
    return { status: 200, body: items.map((c) => commentView(c, state.apiUrl)), headers }
  }
  if (list && request.method === 'POST') {
    const comment = state.addComment(list[1], Number(list[2]), body, identity.user)
    return { status: 201, body: commentView(comment, state.apiUrl) }
  }
  if (!one) return NOT_FOUND
  return oneComment(state, request.method, [one[1], Number(one[2])], { body, identity })
}

/** PATCH or DELETE of comment `id` of `repository`. */
function oneComment(
  state: GitHubApi,
  method: string,
  [repository, id]: [string, number],
  { body, identity }: { body: string; identity: Identity }
): GitHubAnswer {
  // As on GitHub, a token that can write to the repository may edit or delete anyone's comment.
  const found = state.comments.find(
    (candidate) => candidate.id === id && candidate.repository === repository
  )
  if (method === 'PATCH') {
    if (!found) return NOT_FOUND
    found.body = body
    found.updatedAt = new Date().toISOString()
    return { status: 200, body: commentView(found, state.apiUrl) }
  }
  if (method === 'DELETE') {
    if (!identity.canWrite) return NOT_ACCESSIBLE
    if (!found) return NOT_FOUND
    state.comments.splice(state.comments.indexOf(found), 1)
    return { status: 204 }
  }
  return NOT_FOUND
}

/** One page of a run attempt's jobs. */
function jobsPage(
  state: GitHubApi,
  url: URL,
  repository: string,
  [runId, attempt]: [number, number]
): GitHubAnswer {
  const all = state.jobs.filter((job) => job.runId === runId && job.attempt === attempt)
  const { items, headers } = paged(url, all, state.apiUrl)
  const jobs = items.map((job) =>
    jobView(job, { id: runId * 1000 + state.jobs.indexOf(job), repository, apiUrl: state.apiUrl })
  )
  return { status: 200, body: { total_count: all.length, jobs }, headers }
}
