/*
 * The issue comments of one pull request, its head commit, and that commit's statuses (the legs'
 * records), through @actions/github's Octokit with its proxy support.
 * Octokit is loaded only here, only when a comment is to be written (ncc turns the dynamic import
 * into a chunk of its own).
 */

import type { CommitStatus, StatusWrite } from './comment-records.js'
import { type Octokit, type OctokitOptions, octokitFor } from './octokit.js'

export interface IssueComment {
  id: number
  body?: string | null
  html_url: string
  user?: { login: string; type?: string } | null
}

/** A job of a workflow run attempt, as GitHub's jobs API lists it (the fields read here). */
export interface WorkflowJob {
  name: string
  status: string
  runner_name?: string | null
}

/** The issue-comments endpoints of one pull request, and the jobs of one workflow run attempt. */
export interface CommentApi {
  /**
   * The jobs of attempt `attempt` of workflow run `runId`, a page at a time
   * (`GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs`, which needs
   * `actions: read`).
   */
  listJobs(runId: number, attempt: number): AsyncIterable<WorkflowJob[]>
  /** The login the token writes as; undefined when GitHub will not say (403 for an app's token). */
  authenticatedLogin(): Promise<string | undefined>
  /** Every comment, a page at a time. */
  listComments(): AsyncIterable<IssueComment[]>
  createComment(body: string): Promise<IssueComment>
  updateComment(id: number, body: string): Promise<IssueComment>
  /** Deletes a comment; one already gone is no error. */
  deleteComment(id: number): Promise<void>
  /** The pull request's head commit (`GET …/pulls/{n}`, `pull-requests: read`). */
  pullHead(): Promise<string>
  /** Creates a commit status on `sha` (`statuses: write`); its id. */
  createStatus(sha: string, status: StatusWrite): Promise<{ id: number }>
  /** Every status of commit `sha`, a page at a time (`GET …/commits/{sha}/statuses`). */
  listStatuses(sha: string): AsyncIterable<CommitStatus[]>
}

/** The jobs of one workflow run attempt, a page at a time. */
async function* jobsOf(
  octokit: Octokit,
  options: { owner: string; repo: string; runId: number; attempt: number }
): AsyncIterable<WorkflowJob[]> {
  const pages = octokit.paginate.iterator(octokit.rest.actions.listJobsForWorkflowRunAttempt, {
    owner: options.owner,
    repo: options.repo,
    run_id: options.runId,
    attempt_number: options.attempt,
    per_page: 100
  })
  for await (const page of pages) yield page.data as WorkflowJob[]
}

/** The issue-comments API through @actions/github's Octokit, with its proxy support. */
export async function octokitCommentApi(
  options: OctokitOptions & { repository: string; issueNumber: number }
): Promise<CommentApi> {
  const octokit = await octokitFor(options)
  const [owner, repo] = options.repository.split('/')
  return {
    async authenticatedLogin() {
      try {
        return (await octokit.rest.users.getAuthenticated()).data.login
      } catch (error) {
        if ((error as { status?: unknown }).status === 403) return undefined
        throw error
      }
    },
    listJobs: (runId, attempt) => jobsOf(octokit, { owner, repo, runId, attempt }),
    ...commentsOf(octokit, { owner, repo, issue_number: options.issueNumber }),
    ...statusesOf(octokit, { owner, repo, pull_number: options.issueNumber })
  }
}

/** The pull request's head, and its commits' statuses. */
function statusesOf(
  octokit: Octokit,
  target: { owner: string; repo: string; pull_number: number }
): Pick<CommentApi, 'pullHead' | 'createStatus' | 'listStatuses'> {
  const { owner, repo } = target
  return {
    pullHead: async () => (await octokit.rest.pulls.get(target)).data.head.sha,
    createStatus: async (sha, status) =>
      (await octokit.rest.repos.createCommitStatus({ owner, repo, sha, ...status })).data,
    async *listStatuses(sha) {
      const pages = octokit.paginate.iterator(octokit.rest.repos.listCommitStatusesForRef, {
        owner,
        repo,
        ref: sha,
        per_page: 100
      })
      for await (const page of pages) yield page.data as CommitStatus[]
    }
  }
}

/** The comment endpoints of one issue (a pull request). */
function commentsOf(
  octokit: Octokit,
  target: { owner: string; repo: string; issue_number: number }
): Pick<CommentApi, 'listComments' | 'createComment' | 'updateComment' | 'deleteComment'> {
  const { owner, repo } = target
  return {
    async *listComments() {
      const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
        ...target,
        per_page: 100
      })
      for await (const page of pages) yield page.data as IssueComment[]
    },
    createComment: async (body) =>
      (await octokit.rest.issues.createComment({ ...target, body })).data as IssueComment,
    updateComment: async (id, body) =>
      (await octokit.rest.issues.updateComment({ owner, repo, comment_id: id, body }))
        .data as IssueComment,
    async deleteComment(id) {
      try {
        await octokit.rest.issues.deleteComment({ owner, repo, comment_id: id })
      } catch (error) {
        // Another run converging on the same comment may have deleted it first.
        if ((error as { status?: unknown }).status !== 404) throw error
      }
    }
  }
}

/**
 * A GitHub error in its own words, with the HTTP status where GitHub answered: Octokit gives a
 * request that got no answer (a refused connection) the status 500, which GitHub never sent.
 */
export function gitHubErrorText(error: unknown): string {
  const { status, response } = (error ?? {}) as Record<string, unknown>
  const text = ownWords(error)
  return typeof status === 'number' && response !== undefined ? `${text} (HTTP ${status})` : text
}

/** A GitHub error's message, or what was thrown when it has none. */
function ownWords(error: unknown): string {
  const { message } = (error ?? {}) as { message?: unknown }
  return typeof message === 'string' ? message : String(error)
}

/** A GitHub error, for a warning: what the status means for the comment. */
export function describeGitHubError(error: unknown): string {
  const { status } = (error ?? {}) as { status?: unknown }
  const text = ownWords(error)
  if (status === 403) {
    return `${text} (HTTP 403). The token cannot write to the pull request: a fork's pull request gets a read-only GITHUB_TOKEN, and the job needs "permissions: pull-requests: write"`
  }
  if (status === 401) return `${text} (HTTP 401): github_token is missing or invalid`
  if (status === 404)
    return `${text} (HTTP 404): the pull request or repository was not found with this token`
  return gitHubErrorText(error)
}
