/*
 * One sticky comment on the pull request: found by a hidden marker that identifies this gate,
 * updated in place on every later run, never one a person wrote. A side effect: every failure is one
 * warning, bounded in time, and never changes the outcome. GitHub's side is github-comments.ts.
 */
import { createHash } from 'node:crypto'
import { type Clock, systemClock } from '../domain/clock.js'
import type { GitHubContext } from './github-context.js'
import type { Logger } from '../domain/logger.js'
import type { RunReport } from '../report/report.js'
import { renderSummaryWithin } from '../report/summary.js'
import { type CommentApi, type IssueComment, octokitCommentApi } from './github-comments.js'

export type CommentMode = 'off' | 'always' | 'failure'

/** The longest the comment may take, listing, creating or updating included. */
export const COMMENT_TIME_LIMIT_MS = 5000
/** GitHub refuses a comment body over 65,536 characters; counted in UTF-8 bytes, this is under. */
const MAX_COMMENT_BYTES = 60_000
/** Operation rows in the comment; fewer when the body would be too long. */
const COMMENT_OPERATION_ROWS = 20

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

/** The GITHUB_TOKEN writes as this account. */
const ACTIONS_BOT_LOGIN = 'github-actions[bot]'

/** GitHub prefixes installation tokens, the GITHUB_TOKEN among them, with `ghs_`. */
const INSTALLATION_TOKEN = /^ghs_/

/**
 * The login the action's comments are by. The marker alone proves nothing (anyone who can read the
 * pull request can copy it from the raw body), so ownership comes from the author: the
 * `pr_comment_author` input when given (another GitHub App's bot); for an installation token,
 * github-actions[bot], the GITHUB_TOKEN's identity; for a personal token, its own login, asked of
 * GitHub once (`GET /user`).
 */
async function commentAuthor(api: CommentApi, token: string, configured?: string): Promise<string> {
  if (configured) return configured
  if (INSTALLATION_TOKEN.test(token)) return ACTIONS_BOT_LOGIN
  return (await api.authenticatedLogin()) ?? ACTIONS_BOT_LOGIN
}

/** A comment the action wrote: it starts with the marker, and its author is the token's identity. */
function isOwnComment(comment: IssueComment, marker: string, author: string): boolean {
  return (comment.body ?? '').startsWith(marker) && comment.user?.login === author
}

/** Every comment of the action's with this marker, oldest first. */
async function ownComments(api: CommentApi, marker: string, author: string) {
  const own: IssueComment[] = []
  for await (const page of api.listComments()) {
    own.push(...page.filter((comment) => isOwnComment(comment, marker, author)))
  }
  return own.sort((a, b) => a.id - b.id)
}

/** The summary in Markdown that GitHub renders, under the marker, within GitHub's size limit. */
function commentBody(report: RunReport, context: GitHubContext, marker: string): string {
  const runUrl =
    context.runId && context.repository
      ? `${context.serverUrl}/${context.repository}/actions/runs/${context.runId}`
      : undefined
  const footer = runUrl ? `<p><sub><a href="${runUrl}">Workflow run</a></sub></p>\n` : ''
  return renderSummaryWithin(
    report,
    MAX_COMMENT_BYTES,
    { operationRows: COMMENT_OPERATION_ROWS, projectRows: 0 },
    (html) => `${marker}\n${html}${footer}`
  )
}

/**
 * How far the comment got: the comment that holds this run's result once one was written, and the
 * step under way after that, so that a later failure still reports the comment and says what failed.
 */
interface CommentProgress {
  written?: { action: 'created' | 'updated'; url: string }
  step?: string
}

/**
 * Updates this gate's comment, or creates one: `always`, or `failure` when the run failed. With
 * `failure` an existing comment is updated whatever the outcome, so a red comment turns green.
 * Returns false when there was nothing to write.
 *
 * Two runs of the same gate at once (matrix legs) may each find none and create one. So after
 * creating, the comments are listed once more, and every run converges on the same one: the oldest
 * is kept (updated with this run's body if it is not the one just created), the others deleted.
 */
async function upsertComment(
  api: CommentApi,
  progress: CommentProgress,
  {
    marker,
    author,
    body,
    mode,
    failed,
    logger
  }: {
    marker: string
    author: string
    body: string
    mode: CommentMode
    failed: boolean
    logger: Logger
  }
): Promise<boolean> {
  let own = await ownComments(api, marker, author)
  let created: IssueComment | undefined
  if (own.length === 0) {
    if (mode === 'failure' && !failed) return false
    created = await api.createComment(body)
    progress.written = { action: 'created', url: created.html_url }
    const writer = created.user?.login
    if (writer && writer !== author) {
      logger.warning(
        `pr_comment: the comment was written as ${writer}, not ${author}; set pr_comment_author: ${writer} so that later runs update it instead of adding one`
      )
      return true
    }
    progress.step = 'listing the comments again to find duplicates from other runs of this gate'
    own = await ownComments(api, marker, author)
    if (!own.some((comment) => comment.id === created!.id)) own.push(created)
    own.sort((a, b) => a.id - b.id)
  }
  const [kept, ...duplicates] = own
  if (kept.id !== created?.id) {
    progress.step = `updating the comment ${kept.html_url}`
    progress.written = { action: 'updated', url: (await api.updateComment(kept.id, body)).html_url }
  }
  for (const duplicate of duplicates) {
    progress.step = `deleting the duplicate comment ${duplicate.html_url}`
    await api.deleteComment(duplicate.id)
  }
  return true
}

export interface PullRequestCommentOptions {
  mode: CommentMode
  token: string
  /** The login the token writes as, when it is neither a personal token nor the GITHUB_TOKEN. */
  author?: string
  context: GitHubContext
  report: RunReport
  gate: GateIdentity
  logger: Logger
  /** Takes the secrets out of the body before it leaves. */
  redact: (text: string) => string
  /** Builds the API; Octokit by default. */
  api?: (signal: AbortSignal) => Promise<CommentApi>
  timeLimitMs?: number
  /** What the time limit is measured by; the system clock by default. */
  clock?: Clock
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
  if (!options.token) {
    // A side effect, never the gate's result: a secret a run does not get must not fail the gate.
    logger.warning(
      "pr_comment: github_token is empty, so no comment is written (a run that gets no secrets, such as Dependabot's, passes an empty secret; leave github_token out to use the job's token)"
    )
    return undefined
  }
  const failed = !(report.outcome === 'success' || report.outcome === 'pending')
  const marker = gateMarker(context, options.gate)
  const body = options.redact(commentBody(report, context, marker))
  const controller = new AbortController()
  const timeLimitMs = options.timeLimitMs ?? COMMENT_TIME_LIMIT_MS
  const timer = new AbortController()
  const timeLimit = (options.clock ?? systemClock).sleep(timeLimitMs, timer.signal).then(() => {
    const error = new Error(`the GitHub API did not answer within ${timeLimitMs / 1000} s`)
    controller.abort(error)
    throw error
  })
  timeLimit.catch(() => undefined)
  const progress: CommentProgress = {}
  try {
    const work = (async () => {
      const api = await (options.api ?? defaultApi(options, pullRequest.number))(controller.signal)
      const author = await commentAuthor(api, options.token, options.author)
      return upsertComment(api, progress, {
        marker,
        author,
        body,
        mode: options.mode,
        failed,
        logger
      })
    })()
    work.catch(() => undefined)
    if (!(await Promise.race([work, timeLimit]))) {
      logger.info('pr_comment: failure, and the gate passed: no comment written')
      return undefined
    }
    logger.info(`pr_comment: ${progress.written!.action} ${progress.written!.url}`)
    return progress.written!.url
  } catch (error) {
    const { written, step } = progress
    if (written) {
      // The result is on the pull request; only the tidying after it failed.
      logger.warning(
        `pr_comment: ${written.action} ${written.url}, but ${step} failed, so a duplicate comment may be left behind: ${describeGitHubError(error)}`
      )
      return written.url
    }
    logger.warning(`Could not write the pull-request comment: ${describeGitHubError(error)}`)
    return undefined
  } finally {
    timer.abort()
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
