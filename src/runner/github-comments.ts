/*
 * The issue comments of one pull request, through @actions/github's Octokit with its proxy support.
 * Octokit is loaded only here, only when a comment is to be written (ncc turns the dynamic import
 * into a chunk of its own).
 */

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
}

type Octokit = ReturnType<(typeof import('@actions/github'))['getOctokit']>

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
export async function octokitCommentApi(options: {
  token: string
  apiUrl: string
  repository: string
  issueNumber: number
  signal: AbortSignal
  /** Another fetch (tests); @actions/github's, which honours proxies, by default. */
  fetch?: typeof globalThis.fetch
}): Promise<CommentApi> {
  const [{ getOctokit }, { defaults }] = await Promise.all([
    import('@actions/github'),
    import('@actions/github/lib/utils')
  ])
  const octokit = getOctokit(options.token, {
    baseUrl: options.apiUrl,
    request: {
      ...defaults.request,
      signal: options.signal,
      ...(options.fetch ? { fetch: options.fetch } : {})
    }
  })
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
    ...commentsOf(octokit, { owner, repo, issue_number: options.issueNumber })
  }
}

/** The comment endpoints of one issue (a pull request). */
function commentsOf(
  octokit: Octokit,
  target: { owner: string; repo: string; issue_number: number }
): Omit<CommentApi, 'authenticatedLogin' | 'listJobs'> {
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
