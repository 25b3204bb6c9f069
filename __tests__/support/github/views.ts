/*
 * The local GitHub API's answers as GitHub's REST description has them (server.ts): users,
 * issue comments and a run attempt's jobs, every required field included (pull requests:
 * pull-views.ts), and the pages of a list with GitHub's Link header.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { GitHubJob, GitHubUser, StoredComment, StoredStatus } from './server.ts'

/** GitHub's own example of a pull request (from its REST description), every required field. */
const PULL_REQUEST_EXAMPLE = JSON.parse(
  readFileSync(join(import.meta.dirname, 'pull-request-example.json'), 'utf8')
) as { head: Record<string, unknown>; [key: string]: unknown }

/** A user as GitHub's `simple-user` schema has it; the id is made from the login. */
export function userView(user: GitHubUser) {
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

/** GET /user's account, as GitHub's `public-user` schema has it. */
export function userAccount(user: GitHubUser) {
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

/** An issue comment as GitHub's REST description has it, every required field included. */
export function commentView(comment: StoredComment, apiUrl: string) {
  return {
    id: comment.id,
    node_id: `IC_local${comment.id}`,
    url: `${apiUrl}/repos/${comment.repository}/issues/comments/${comment.id}`,
    html_url: comment.html_url,
    issue_url: `${apiUrl}/repos/${comment.repository}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: userView(comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: comment.user.type === 'Bot' ? 'NONE' : 'MEMBER'
  }
}

/** A job of run `runId`'s attempt, as GitHub's `job` schema has it, every required field. */
export function jobView(job: GitHubJob, where: { id: number; repository: string; apiUrl: string }) {
  const { id, repository, apiUrl } = where
  const base = `${apiUrl}/repos/${repository}/actions`
  const assigned = job.runnerName !== null
  return {
    id,
    run_id: job.runId,
    run_url: `${base}/runs/${job.runId}`,
    run_attempt: job.attempt,
    node_id: `CR_local${id}`,
    head_sha: 'a'.repeat(40),
    url: `${base}/jobs/${id}`,
    html_url: `https://github.com/${repository}/actions/runs/${job.runId}/job/${id}`,
    status: job.status,
    conclusion: null,
    created_at: '2026-01-01T00:00:00Z',
    started_at: '2026-01-01T00:00:01Z',
    completed_at: null,
    name: job.name,
    steps: [],
    check_run_url: `${apiUrl}/repos/${repository}/check-runs/${id}`,
    labels: ['ubuntu-latest'],
    runner_id: assigned ? id : null,
    runner_name: job.runnerName,
    runner_group_id: assigned ? 2 : null,
    runner_group_name: assigned ? 'GitHub Actions' : null,
    workflow_name: 'Preview',
    head_branch: 'feature'
  }
}

/** `all`'s page that `url` asks for (per_page, page), with GitHub's Link header. */
export function paged<T>(
  url: URL,
  all: T[],
  apiUrl: string
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30))
  const page = Number(url.searchParams.get('page') ?? 1)
  const last = Math.max(1, Math.ceil(all.length / perPage))
  const links: string[] = []
  const link = (n: number, rel: string) =>
    `<${apiUrl}${url.pathname}?per_page=${perPage}&page=${n}>; rel="${rel}"`
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'))
  return {
    items: all.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(', ') } : {}
  }
}

/** Pull request `number` of `repository` with head commit `head`, as GitHub's `pull-request` schema has it. */
export function pullView(repository: string, number: number, head: string, apiUrl: string) {
  const base = `${apiUrl}/repos/${repository}`
  return {
    ...PULL_REQUEST_EXAMPLE,
    url: `${base}/pulls/${number}`,
    number,
    html_url: `https://github.com/${repository}/pull/${number}`,
    statuses_url: `${base}/statuses/${head}`,
    // The example's team lacks the `type` the schema requires; no team is asked to review here.
    requested_teams: [],
    head: { ...PULL_REQUEST_EXAMPLE.head, sha: head }
  }
}

/** A commit status as GitHub's `status` schema has it. */
export function statusView(status: StoredStatus, apiUrl: string) {
  return {
    url: `${apiUrl}/repos/${status.repository}/statuses/${status.sha}`,
    avatar_url: null,
    id: status.id,
    node_id: `SC_local${status.id}`,
    state: status.state,
    description: status.description,
    target_url: status.target_url,
    context: status.context,
    created_at: status.createdAt,
    updated_at: status.createdAt,
    creator: userView(status.creator)
  }
}
