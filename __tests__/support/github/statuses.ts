/*
 * The local GitHub API's commit statuses (routes.ts): create one (a token that can write, unless
 * it lacks `statuses: write`) and list a commit's, newest first, paged, as GitHub does.
 */
import type { GitHubAnswer, GitHubApi, GitHubRequest } from './server.ts'
import { type Identity, NOT_ACCESSIBLE } from './routes.ts'
import { paged, statusView } from './views.ts'

/**
 * POST …/statuses/{sha} (a token that can write, unless `statusesWrite: false`) and GET
 * …/commits/{ref}/statuses (newest first, paged); undefined for any other request.
 */
export function statusesRoute(
  state: GitHubApi,
  request: GitHubRequest,
  url: URL,
  identity: Identity
): GitHubAnswer | undefined {
  const create = /^\/repos\/([^/]+\/[^/]+)\/statuses\/([0-9a-f]{40})$/.exec(url.pathname)
  if (create && request.method === 'POST') {
    if (!identity.canWrite || identity.statusesWrite === false) return NOT_ACCESSIBLE
    const payload = JSON.parse(request.body || '{}') as Record<string, unknown>
    const states = ['error', 'failure', 'pending', 'success']
    if (!states.includes(String(payload.state)) || typeof payload.context !== 'string') {
      return { status: 422, body: { message: 'Validation Failed' } }
    }
    const description = typeof payload.description === 'string' ? payload.description : null
    if ((description ?? '').length > 140) {
      return {
        status: 422,
        body: { message: 'description is too long (maximum is 140 characters)' }
      }
    }
    const stored = {
      id: state.statuses.length + 1,
      repository: create[1],
      sha: create[2],
      state: payload.state as 'success',
      context: payload.context,
      description,
      target_url: typeof payload.target_url === 'string' ? payload.target_url : null,
      creator: identity.user,
      createdAt: new Date().toISOString()
    }
    state.statuses.push(stored)
    return { status: 201, body: statusView(stored, state.apiUrl) }
  }
  const list = /^\/repos\/([^/]+\/[^/]+)\/commits\/([^/]+)\/statuses$/.exec(url.pathname)
  if (!list || request.method !== 'GET') return undefined
  const all = state.statuses
    .filter((status) => status.repository === list[1] && status.sha === list[2])
    .reverse()
  const { items, headers } = paged(url, all, state.apiUrl)
  return { status: 200, body: items.map((status) => statusView(status, state.apiUrl)), headers }
}
