/*
 * One sticky comment on the pull request: found by a hidden marker that identifies this gate,
 * updated in place on every later run, never one a person wrote. The legs of one workflow run and
 * attempt (a matrix) add their results to it, the worst shown first (comment-results.ts holds
 * what it says, comment-writes.ts how it is written when legs write at once). A side effect: every
 * failure is one warning, bounded in time, and never changes the outcome. GitHub's side is
 * github-comments.ts.
 */
import { createHash, randomUUID } from 'node:crypto'
import { type Clock, systemClock } from '../domain/clock.js'
import { type GitHubContext, summaryFacts } from './github-context.js'
import type { Logger } from '../domain/logger.js'
import type { RunReport } from '../report/report.js'
import { headlineText, renderSummaryWithin } from '../gate/run-report.js'
import { identifyLeg } from './comment-leg.js'
import { DETAILS_BUDGET_BYTES, legResult, type OwnResult } from './comment-results.js'
import type { CommentProgress } from './comment-calls.js'
import { type CommentMode, upsertComment, type Upserted } from './comment-writes.js'
import { type CommentApi, octokitCommentApi } from './github-comments.js'

/** The longest the comment may take, listing, creating or updating included. */
export const COMMENT_TIME_LIMIT_MS = 5000
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

/** The summary in Markdown that GitHub renders: this run's details, within their share of the body. */
function details(report: RunReport, context: GitHubContext): string {
  return renderSummaryWithin(report, DETAILS_BUDGET_BYTES, {
    limits: { operationRows: COMMENT_OPERATION_ROWS, projectRows: 0 },
    about: summaryFacts(context)
  })
}

/** The link to the workflow run, under the results. */
function footer(context: GitHubContext): string {
  const runUrl =
    context.runId && context.repository
      ? `${context.serverUrl}/${context.repository}/actions/runs/${context.runId}`
      : undefined
  return runUrl ? `<p><sub><a href="${runUrl}">Workflow run</a></sub></p>\n` : ''
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
  /** What the time limit is measured by, and when the result was reported; the system clock by default. */
  clock?: Clock
  /** This run's id among the legs that share the comment (never another leg's); a random one by default. */
  leg?: string
  /** The `pr_comment_leg` input: names this leg (`${{ toJSON(matrix) }}`); empty: the jobs API is asked. */
  legInput?: string
  /** The pauses' jitter; Math.random by default. */
  random?: () => number
}

/**
 * Writes the comment when `pr_comment` asks for it; returns its URL. Never throws: outside a pull
 * request it is skipped with one line, and any GitHub error or silence is one warning.
 */
export async function writePullRequestComment(
  options: PullRequestCommentOptions
): Promise<string | undefined> {
  const pullRequest = commentedPullRequest(options)
  if (pullRequest === undefined) return undefined
  const { logger } = options
  const progress: CommentProgress = {}
  try {
    const upserted = await withinTimeLimit(options, (signal) =>
      upsert(options, { progress, pullRequest, signal })
    )
    if (upserted === 'not needed') {
      logger.info('pr_comment: failure, and the gate passed: no comment written')
    }
    if (upserted !== 'written') return undefined
    logger.info(`pr_comment: ${progress.written!.action} ${progress.written!.url}`)
    return progress.written!.url
  } catch (error) {
    const { written, step, sending: unanswered } = progress
    if (written && step) {
      // The result is on the pull request; only what came after it failed.
      logger.warning(
        `pr_comment: ${written.action} ${written.url}, but ${step.doing} failed, ${step.risk}: ${describeGitHubError(error)}`
      )
      return written.url
    }
    if (unanswered && typeof (error as { status?: unknown } | undefined)?.status !== 'number') {
      // Sent, and cut short before GitHub answered: it may have landed all the same.
      logger.warning(
        `pr_comment: ${unanswered.doing} got no answer (${describeGitHubError(error)}), but it may have landed all the same: ${unanswered.look}`
      )
      return unanswered.url
    }
    logger.warning(`Could not write the pull-request comment: ${describeGitHubError(error)}`)
    return undefined
  }
}

/** The number of the pull request to comment on; undefined, with a line, when there is none. */
function commentedPullRequest({ mode, context, token, logger }: PullRequestCommentOptions) {
  if (mode === 'off') return undefined
  if (!context.pullRequest) {
    logger.info(
      `pr_comment: ${context.eventName || 'this'} run is not for a pull request; no comment written`
    )
    return undefined
  }
  if (!token) {
    // A side effect, never the gate's result: a secret a run does not get must not fail the gate.
    logger.warning(
      "pr_comment: github_token is empty, so no comment is written (a run that gets no secrets, such as Dependabot's, passes an empty secret; leave github_token out to use the job's token)"
    )
    return undefined
  }
  return context.pullRequest.number
}

/** The comment written within the time limit (`deadline` on `clock`). */
async function upsert(
  options: PullRequestCommentOptions,
  run: { progress: CommentProgress; pullRequest: number; signal: AbortSignal }
): Promise<Upserted> {
  const { context, logger } = options
  const { signal } = run
  const clock = options.clock ?? systemClock
  const deadline = clock.now() + (options.timeLimitMs ?? COMMENT_TIME_LIMIT_MS)
  const api = await (options.api ?? defaultApi(options, run.pullRequest))(signal)
  const author = await commentAuthor(api, options.token, options.author)
  const leg = options.leg ?? randomUUID()
  return upsertComment(api, run.progress, {
    marker: gateMarker(context, options.gate),
    author,
    own: ownResult(options, leg),
    footer: footer(context),
    mode: options.mode,
    failed: !(options.report.outcome === 'success' || options.report.outcome === 'pending'),
    logger,
    identify: () => identifyLeg({ api, context, input: options.legInput ?? '', logger, signal }),
    clock,
    random: options.random ?? Math.random,
    deadline,
    signal
  })
}

/** This run's result as the comment holds it: its headline and details, secrets out. */
function ownResult(
  { context, report, redact, clock }: PullRequestCommentOptions,
  leg: string
): OwnResult {
  const line = redact(headlineText(report))
  const at = (clock ?? systemClock).wallNow()
  const attempt = context.runAttempt
  return {
    run: context.runId,
    attempt,
    result: legResult(leg, report.outcome ?? 'error', line, at, { attempt }),
    details: redact(details(report, context))
  }
}

/** `work`, aborted with an error when the time limit comes first. */
async function withinTimeLimit(
  options: Pick<PullRequestCommentOptions, 'timeLimitMs' | 'clock'>,
  work: (signal: AbortSignal) => Promise<Upserted>
): Promise<Upserted> {
  const controller = new AbortController()
  const timeLimitMs = options.timeLimitMs ?? COMMENT_TIME_LIMIT_MS
  const timer = new AbortController()
  const timeLimit = (options.clock ?? systemClock).sleep(timeLimitMs, timer.signal).then(() => {
    const error = new Error(`the GitHub API did not answer within ${timeLimitMs / 1000} s`)
    controller.abort(error)
    throw error
  })
  timeLimit.catch(() => undefined)
  const working = work(controller.signal)
  working.catch(() => undefined)
  try {
    return await Promise.race([working, timeLimit])
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
