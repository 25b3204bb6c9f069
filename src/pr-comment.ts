/*
 * One sticky comment on the pull request: found by a hidden marker that identifies this gate,
 * updated in place on every later run, never one a person wrote. A side effect: every failure is one
 * warning, bounded in time, and never changes the outcome. Octokit is loaded only here, only when a
 * comment is to be written (ncc turns the dynamic import into a chunk of its own).
 */
import { createHash } from 'node:crypto'
import type { GitHubContext } from './github-context.js'
import type { Logger } from './logger.js'
import type { RunReport } from './report.js'
import { renderSummary } from './summary.js'

export type CommentMode = 'off' | 'always' | 'failure'

/** The longest the comment may take, listing, creating or updating included. */
export const COMMENT_TIME_LIMIT_MS = 5000
/** GitHub refuses a comment body over 65,536 characters. */
export const MAX_COMMENT_CHARS = 60_000
/** Operation rows in the comment; fewer when the body would be too long. */
const COMMENT_OPERATION_ROWS = 20

export interface IssueComment {
  id: number
  body?: string | null
  html_url: string
  user?: { login: string; type?: string } | null
}

/** The issue-comments endpoints of one pull request. */
export interface CommentApi {
  /** The login the token writes as; undefined when GitHub will not say (403 for an app's token). */
  authenticatedLogin(): Promise<string | undefined>
  /** Every comment, a page at a time. */
  listComments(): AsyncIterable<IssueComment[]>
  createComment(body: string): Promise<IssueComment>
  updateComment(id: number, body: string): Promise<IssueComment>
}

export interface GateIdentity {
  projectId?: string
  branchId?: string
  operationIds: string[]
}

/**
 * The hidden first line of the comment: a hash of what makes this gate this gate (repository,
 * workflow, job, project, branch or operations), so re-runs and later pushes find it, and another
 * gate of the same pull request keeps its own comment.
 */
export function gateMarker(context: GitHubContext, gate: GateIdentity): string {
  const identity = [
    context.repository,
    context.workflow,
    context.job,
    gate.projectId ?? '',
    gate.branchId ?? '',
    [...gate.operationIds].sort().join(',')
  ].join('\n')
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 16)
  return `<!-- neon-operations-gate:${hash} -->`
}

/**
 * Who the action's comments are by: the token's own login, or, for an installation token (the
 * GITHUB_TOKEN, a GitHub App's), which cannot ask who it is, any bot (it writes as one, as
 * github-actions[bot] for the GITHUB_TOKEN).
 */
type CommentAuthor = { login: string } | 'a bot'

/** GitHub prefixes installation tokens, the GITHUB_TOKEN among them, with `ghs_`. */
const INSTALLATION_TOKEN = /^ghs_/

/** The author to look for: a personal token (`ghp_`, `github_pat_`, `ghu_`, …) asks GitHub once. */
async function commentAuthor(api: CommentApi, token: string): Promise<CommentAuthor> {
  if (INSTALLATION_TOKEN.test(token)) return 'a bot'
  const login = await api.authenticatedLogin()
  return login ? { login } : 'a bot'
}

/**
 * A comment the action wrote: it starts with the marker (a person's quote starts with `>`) and its
 * author is the token's identity, never a person who pasted the marker.
 */
function isOwnComment(comment: IssueComment, marker: string, author: CommentAuthor): boolean {
  if (!(comment.body ?? '').startsWith(marker)) return false
  return author === 'a bot' ? comment.user?.type === 'Bot' : comment.user?.login === author.login
}

/** The summary in Markdown that GitHub renders, under the marker, within GitHub's size limit. */
function commentBody(report: RunReport, context: GitHubContext, marker: string): string {
  const runUrl =
    context.runId && context.repository
      ? `${context.serverUrl}/${context.repository}/actions/runs/${context.runId}`
      : undefined
  const footer = runUrl ? `<p><sub><a href="${runUrl}">Workflow run</a></sub></p>\n` : ''
  for (let rows = COMMENT_OPERATION_ROWS; ; rows = Math.floor(rows / 2)) {
    const body = `${marker}\n${renderSummary(report, { operationRows: rows, projectRows: 0 })}${footer}`
    if (body.length <= MAX_COMMENT_CHARS || rows === 0) return body.slice(0, MAX_COMMENT_CHARS)
  }
}

/**
 * Updates this gate's comment, or creates one: `always`, or `failure` when the run failed. With
 * `failure` an existing comment is updated whatever the outcome, so a red comment turns green.
 */
async function upsertComment(
  api: CommentApi,
  {
    marker,
    author,
    body,
    mode,
    failed
  }: { marker: string; author: CommentAuthor; body: string; mode: CommentMode; failed: boolean }
): Promise<{ action: 'created' | 'updated' | 'none'; url?: string }> {
  for await (const page of api.listComments()) {
    const own = page.find((comment) => isOwnComment(comment, marker, author))
    if (own) {
      const updated = await api.updateComment(own.id, body)
      return { action: 'updated', url: updated.html_url }
    }
  }
  if (mode === 'failure' && !failed) return { action: 'none' }
  const created = await api.createComment(body)
  return { action: 'created', url: created.html_url }
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
  const target = { owner, repo, issue_number: options.issueNumber }
  return {
    async authenticatedLogin() {
      try {
        return (await octokit.rest.users.getAuthenticated()).data.login
      } catch (error) {
        if ((error as { status?: unknown }).status === 403) return undefined
        throw error
      }
    },
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
        .data as IssueComment
  }
}

export interface PullRequestCommentOptions {
  mode: CommentMode
  token: string
  context: GitHubContext
  report: RunReport
  gate: GateIdentity
  logger: Logger
  /** Takes the secrets out of the body before it leaves. */
  redact: (text: string) => string
  /** Builds the API; Octokit by default. */
  api?: (signal: AbortSignal) => Promise<CommentApi>
  timeLimitMs?: number
}

/**
 * Writes the comment when `pr_comment` asks for it; returns its URL. Never throws: outside a pull
 * request it is skipped with one line, and any GitHub error or silence is one warning.
 */
export async function writePullRequestComment(
  options: PullRequestCommentOptions
): Promise<string | undefined> {
  const { context, logger, report } = options
  const pullRequest = context.pullRequest
  if (options.mode === 'off') return undefined
  if (!pullRequest) {
    logger.info(
      `pr_comment: ${context.eventName || 'this'} run is not for a pull request; no comment written`
    )
    return undefined
  }
  const failed = !(report.outcome === 'success' || report.outcome === 'pending')
  const marker = gateMarker(context, options.gate)
  const body = options.redact(commentBody(report, context, marker))
  const controller = new AbortController()
  const timeLimitMs = options.timeLimitMs ?? COMMENT_TIME_LIMIT_MS
  let timer: NodeJS.Timeout | undefined
  const timeLimit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`the GitHub API did not answer within ${timeLimitMs / 1000} s`)
      controller.abort(error)
      reject(error)
    }, timeLimitMs)
  })
  try {
    const work = (async () => {
      const api = await (options.api ?? defaultApi(options, pullRequest.number))(controller.signal)
      const author = await commentAuthor(api, options.token)
      return upsertComment(api, { marker, author, body, mode: options.mode, failed })
    })()
    work.catch(() => undefined)
    const result = await Promise.race([work, timeLimit])
    if (result.action === 'none') {
      logger.info('pr_comment: failure, and the gate passed: no comment written')
      return undefined
    }
    logger.info(`pr_comment: ${result.action} ${result.url}`)
    return result.url
  } catch (error) {
    logger.warning(`Could not write the pull-request comment: ${describeGitHubError(error)}`)
    return undefined
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
}

function defaultApi(options: PullRequestCommentOptions, issueNumber: number) {
  return (signal: AbortSignal) =>
    octokitCommentApi({
      token: options.token,
      apiUrl: options.context.apiUrl,
      repository: options.context.repository,
      issueNumber,
      signal
    })
}

function describeGitHubError(error: unknown): string {
  const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : String(error)
  if (status === 403) {
    return `${text} (HTTP 403). The token cannot write to the pull request: a fork's pull request gets a read-only GITHUB_TOKEN, and the job needs "permissions: pull-requests: write"`
  }
  if (status === 401) return `${text} (HTTP 401): github_token is missing or invalid`
  if (status === 404)
    return `${text} (HTTP 404): the pull request or repository was not found with this token`
  return typeof status === 'number' ? `${text} (HTTP ${status})` : text
}
