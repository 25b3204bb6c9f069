/*
 * A local GitHub REST API on 127.0.0.1: the endpoints the pull-request comment uses (issue comments:
 * list with per_page/page and a Link header, create, update, delete; GET /user, which a bot's token may not
 * call, as on GitHub), with tokens that can write, tokens that are read-only (a fork's GITHUB_TOKEN:
 * 403 "Resource not accessible by integration"), and a log of every request. Not bundled into dist/.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface GitHubUser {
  login: string
  type: 'User' | 'Bot'
}

export interface IssueComment {
  id: number
  body: string
  user: GitHubUser
  html_url: string
  issueNumber: number
  repository: string
}

export interface GitHubRequestRecord {
  method: string
  path: string
  query: Record<string, string>
  status: number
  token?: string
}

export const ACTIONS_BOT: GitHubUser = { login: 'github-actions[bot]', type: 'Bot' }

export interface GitHubServer {
  /** The GITHUB_API_URL to give the action. */
  apiUrl: string
  comments: IssueComment[]
  requests: GitHubRequestRecord[]
  /** Who each token writes as; a token absent here is unknown (401). */
  tokens: Map<string, { user: GitHubUser; canWrite: boolean }>
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
   * `status` (a GitHub API that fails half-way: listing again after creating, deleting a duplicate).
   */
  faults: { method: string; after: number; status: number }[]
  close(): Promise<void>
}

export async function startGitHubServer(): Promise<GitHubServer> {
  let nextId = 1000
  let listsAsked = 0
  const methodsSeen = new Map<string, number>()
  let releaseLists: () => void = () => undefined
  const listsReleased = new Promise<void>((resolve) => (releaseLists = resolve))
  const state: GitHubServer = {
    apiUrl: '',
    comments: [],
    requests: [],
    tokens: new Map(),
    silent: false,
    holdListsUntil: 0,
    faults: [],
    addComment(repository, issueNumber, body, user) {
      const id = nextId++
      const comment = {
        id,
        body,
        user,
        issueNumber,
        repository,
        html_url: `https://github.com/${repository}/pull/${issueNumber}#issuecomment-${id}`
      }
      state.comments.push(comment)
      return comment
    },
    close: async () => undefined
  }

  const json = (response: ServerResponse, status: number, body: unknown, headers = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(JSON.stringify(body))
  }
  const view = ({ id, body, user, html_url }: IssueComment) => ({ id, body, user, html_url })

  async function handle(
    request: IncomingMessage,
    response: ServerResponse,
    record: GitHubRequestRecord
  ): Promise<void> {
    const token = /^(?:token|Bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1]
    record.token = token
    const identity = token ? state.tokens.get(token) : undefined
    const reply = (status: number, body: unknown, headers = {}) => {
      record.status = status
      json(response, status, body, headers)
    }
    if (!identity) return reply(401, { message: 'Bad credentials' })
    const seen = (methodsSeen.get(record.method) ?? 0) + 1
    methodsSeen.set(record.method, seen)
    const fault = state.faults.find((f) => f.method === record.method && seen > f.after)
    if (fault) return reply(fault.status, { message: `injected HTTP ${fault.status}` })
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const list = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname)
    const one = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname)
    let payload: { body?: unknown } = {}
    if (request.method === 'POST' || request.method === 'PATCH') {
      let text = ''
      for await (const chunk of request) text += chunk
      payload = JSON.parse(text || '{}') as { body?: unknown }
      if (!identity.canWrite) {
        return reply(403, { message: 'Resource not accessible by integration' })
      }
      if (typeof payload.body !== 'string') return reply(422, { message: 'body is required' })
      if (payload.body.length > 65_536) {
        return reply(422, { message: 'Body is too long (maximum is 65536 characters)' })
      }
    }
    if (url.pathname === '/user' && request.method === 'GET') {
      if (identity.user.type === 'Bot') {
        return reply(403, { message: 'Resource not accessible by integration' })
      }
      return reply(200, identity.user)
    }
    if (list && request.method === 'GET') {
      // Every held list resumes in the same turn, so all of them see the comments of that moment.
      if (++listsAsked >= state.holdListsUntil) releaseLists()
      else
        await Promise.race([listsReleased, new Promise((resolve) => setTimeout(resolve, 10_000))])
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30))
      const page = Number(url.searchParams.get('page') ?? 1)
      const all = state.comments.filter(
        (comment) => comment.repository === list[1] && comment.issueNumber === Number(list[2])
      )
      const last = Math.max(1, Math.ceil(all.length / perPage))
      const links: string[] = []
      const link = (n: number, rel: string) =>
        `<${state.apiUrl}${url.pathname}?per_page=${perPage}&page=${n}>; rel="${rel}"`
      if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
      if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'))
      return reply(
        200,
        all.slice((page - 1) * perPage, page * perPage).map(view),
        links.length > 0 ? { link: links.join(', ') } : {}
      )
    }
    if (list && request.method === 'POST') {
      const comment = state.addComment(
        list[1],
        Number(list[2]),
        payload.body as string,
        identity.user
      )
      return reply(201, view(comment))
    }
    // As on GitHub, a token that can write to the repository may edit or delete anyone's comment.
    const found = one
      ? state.comments.find(
          (candidate) => candidate.id === Number(one[2]) && candidate.repository === one[1]
        )
      : undefined
    if (one && request.method === 'PATCH') {
      if (!found) return reply(404, { message: 'Not Found' })
      found.body = payload.body as string
      return reply(200, view(found))
    }
    if (one && request.method === 'DELETE') {
      if (!identity.canWrite) {
        return reply(403, { message: 'Resource not accessible by integration' })
      }
      if (!found) return reply(404, { message: 'Not Found' })
      state.comments.splice(state.comments.indexOf(found), 1)
      record.status = 204
      response.writeHead(204).end()
      return
    }
    return reply(404, { message: 'Not Found' })
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const record: GitHubRequestRecord = {
      method: request.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0
    }
    state.requests.push(record)
    if (state.silent) return
    handle(request, response, record).catch(() => {
      record.status = 400
      json(response, 400, { message: 'Problems parsing JSON' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return state
}
