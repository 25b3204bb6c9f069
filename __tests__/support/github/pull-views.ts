/*
 * A pull request as GitHub's REST description has it (`pull-request`, with its head's and base's
 * `repository`), every required field included: what a sweep reads of its state (issue 69).
 */
import type { GitHubUser, StoredPull } from './server.ts'
import { userView } from './views.ts'

/** The repository's `…_url` fields, each made up under its API address. */
const REPOSITORY_URLS = [
  ...['archive', 'assignees', 'blobs', 'branches', 'collaborators', 'comments', 'commits'],
  ...['compare', 'contents', 'contributors', 'deployments', 'downloads', 'events', 'forks'],
  ...['git_commits', 'git_refs', 'git_tags', 'hooks', 'issue_comment', 'issue_events', 'issues'],
  ...['keys', 'labels', 'languages', 'merges', 'milestones', 'notifications', 'pulls'],
  ...['releases', 'stargazers', 'statuses', 'subscribers', 'subscription', 'tags', 'teams'],
  'trees'
]

const SHA = { head: 'b'.repeat(40), base: 'a'.repeat(40), merge: 'c'.repeat(40) }

/** A repository as GitHub's `repository` schema has it, every required field. */
function repositoryView(repository: string, owner: GitHubUser, apiUrl: string) {
  const base = `${apiUrl}/repos/${repository}`
  const web = `https://github.com/${repository}`
  return {
    ...Object.fromEntries(REPOSITORY_URLS.map((name) => [`${name}_url`, `${base}/${name}`])),
    id: 4242,
    node_id: 'R_local4242',
    name: repository.split('/')[1],
    full_name: repository,
    owner: userView(owner),
    private: false,
    html_url: web,
    description: null,
    fork: false,
    url: base,
    clone_url: `${web}.git`,
    git_url: `git://github.com/${repository}.git`,
    ssh_url: `git@github.com:${repository}.git`,
    svn_url: web,
    mirror_url: null,
    homepage: null,
    language: 'TypeScript',
    ...{ forks: 0, forks_count: 0, stargazers_count: 0, watchers: 0, watchers_count: 0, size: 1 },
    default_branch: 'main',
    open_issues: 0,
    open_issues_count: 0,
    ...{ has_issues: true, has_projects: false, has_wiki: false, has_pages: false },
    ...{ has_downloads: false, archived: false, disabled: false, license: null },
    pushed_at: '2026-01-01T00:00:00Z',
    created_at: '2020-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z'
  }
}

/** The pull request's addresses, as its fields and its `_links` give them. */
function pullAddresses({ repository, number }: StoredPull, apiUrl: string) {
  const url = `${apiUrl}/repos/${repository}/pulls/${number}`
  const html = `https://github.com/${repository}/pull/${number}`
  const issue = `${apiUrl}/repos/${repository}/issues/${number}`
  const fields = {
    url,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${apiUrl}/repos/${repository}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: `${apiUrl}/repos/${repository}/statuses/${SHA.head}`
  }
  const link = (href: string) => ({ href })
  const _links = {
    self: link(url),
    html: link(html),
    issue: link(issue),
    comments: link(fields.comments_url),
    review_comments: link(fields.review_comments_url),
    review_comment: link(fields.review_comment_url),
    commits: link(fields.commits_url),
    statuses: link(fields.statuses_url)
  }
  return { ...fields, _links }
}

/** A pull request as GitHub's `pull-request` schema has it, every required field included. */
export function pullStateView(pull: StoredPull, author: GitHubUser, apiUrl: string) {
  const { repository, number, merged } = pull
  const side = (ref: string, sha: string) => ({
    label: `octo:${ref}`,
    ref,
    sha,
    user: userView(author),
    repo: repositoryView(repository, author, apiUrl)
  })
  const closed = pull.state === 'closed' ? '2026-11-01T00:00:00Z' : null
  return {
    ...pullAddresses(pull, apiUrl),
    id: 900_000 + number,
    node_id: `PR_local${number}`,
    number,
    state: pull.state,
    ...{ locked: false, title: `Preview ${number}`, user: userView(author), body: null },
    ...{ labels: [], milestone: null, assignee: null, auto_merge: null },
    created_at: '2026-10-01T00:00:00Z',
    updated_at: '2026-11-01T00:00:00Z',
    closed_at: closed,
    merged_at: merged ? closed : null,
    merge_commit_sha: merged ? SHA.merge : null,
    head: side(`preview-${number}`, SHA.head),
    base: side('main', SHA.base),
    author_association: 'MEMBER',
    merged,
    ...{ mergeable: null, mergeable_state: 'unknown', maintainer_can_modify: false },
    merged_by: merged ? userView(author) : null,
    ...{ comments: 0, review_comments: 0, commits: 1, additions: 1, deletions: 0 },
    changed_files: 1
  }
}
