/*
 * One sticky comment on the pull request: found by a hidden marker that identifies this gate,
 * updated in place on every later run, never one a person wrote. Each leg's result is a record of
 * its own (a commit status, comment-records.ts); the comment is a view of the records of the
 * pull request's head (comment-view.ts), written as comment-protocol.ts says. A side effect: every
 * failure is one warning, bounded in time, and never changes the outcome. GitHub's side is
 * github-comments.ts.
 */
import { createHash, randomUUID } from 'node:crypto'
import { type Clock, systemClock } from '../domain/clock.js'
import { type GitHubContext, summaryFacts } from './github-context.js'
import type { Logger } from '../domain/logger.js'
import type { RunReport } from '../report/report.js'
import { headlineText, renderSummaryWithin } from '../gate/run-report.js'
import { truncate } from '../domain/untrusted-text.js'
import { identifyLeg } from './comment-leg.js'
import { recordContext } from './comment-records.js'
import { DETAILS_BUDGET_BYTES } from './comment-view.js'
import {
  type CommentMode,
  type CommentProgress,
  upsertComment,
  withinTimeLimit
} from './comment-writes.js'
import { type CommentApi, describeGitHubError, octokitCommentApi } from './github-comments.js'

/** The longest the comment may take, listing, creating or updating included. */
export const COMMENT_TIME_LIMIT_MS = 10_000
/** Operation rows in the comment; fewer when the body would be too long. */
const COMMENT_OPERATION_ROWS = 20
/** A result's line and a leg's name, as its record holds them. */
const MAX_LINE_CHARS = 200
const MAX_NAME_CHARS = 80

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
  /** This run's id among the legs that share the comment (never another leg's); a random one by default. */
  leg?: string
  /** The `pr_comment_leg` input: names this leg (`${{ toJSON(matrix) }}`); empty: the jobs API is asked. */
  legInput?: string
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
    const limit = options.timeLimitMs ?? COMMENT_TIME_LIMIT_MS
    const upserted = await withinTimeLimit(limit, options.clock ?? systemClock, (signal) =>
      upsert(options, { progress, pullRequest, signal })
    )
    if (upserted === 'not needed') {
      logger.info('pr_comment: failure, and the gate passed: no comment written')
    }
    if (upserted !== 'written') return undefined
    logger.info(`pr_comment: ${progress.written!.action} ${progress.written!.url}`)
    return progress.written!.url
  } catch (error) {
    const { written, doing, sending: unanswered, placeholder } = progress
    if (written && doing) {
      // The result is on the pull request; only what came after it failed.
      logger.warning(
        `pr_comment: ${written.action} ${written.url}, but ${doing} failed, so it may not show every leg's result yet (each leg's commit status keeps its own): ${describeGitHubError(error)}`
      )
      return written.url
    }
    if (unanswered && typeof (error as { status?: unknown } | undefined)?.status !== 'number') {
      // Sent, and cut short before GitHub answered: it may have landed all the same.
      logger.warning(
        `pr_comment: ${unanswered.doing} got no answer (${describeGitHubError(error)}), but it may have landed all the same: look at the pull request's comments`
      )
      return unanswered.url
    }
    if (placeholder && doing) {
      logger.warning(
        `pr_comment: created ${placeholder} as a placeholder, but ${doing} failed before it showed this leg's result (each leg's commit status keeps its own): ${describeGitHubError(error)}`
      )
      return undefined
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

/** The comment written within the time limit. */
async function upsert(
  options: PullRequestCommentOptions,
  run: { progress: CommentProgress; pullRequest: number; signal: AbortSignal }
): Promise<Awaited<ReturnType<typeof upsertComment>>> {
  const { context, logger, mode } = options
  const { signal } = run
  const api = await (options.api ?? defaultApi(options, run.pullRequest))(signal)
  const author = await commentAuthor(api, options.token, options.author)
  const leg = options.leg ?? randomUUID()
  const identity = await identifyLeg({
    api,
    context,
    input: options.legInput ?? '',
    logger,
    signal
  })
  const marker = gateMarker(context, options.gate)
  const gateHash = marker.slice(marker.indexOf(':') + 1, marker.indexOf(' -->'))
  const runId = Number(context.runId) || 0
  const attempt = Number(context.runAttempt) || 1
  const legId =
    identity.key ?? `u-${runId}-${attempt}-${leg.replace(/[^0-9a-z]/gi, '').slice(0, 12)}`
  return upsertComment(api, run.progress, {
    config: {
      marker,
      gateHash,
      author,
      mode: mode === 'failure' ? 'failure' : 'always',
      serverUrl: context.serverUrl,
      repository: context.repository,
      sha: context.pullRequest?.headSha ?? '',
      own: {
        id: leg,
        leg: recordContext(gateHash, legId),
        told: identity.key !== undefined,
        run: runId,
        attempt,
        outcome: options.report.outcome,
        ...(identity.name ? { name: truncate(options.redact(identity.name), MAX_NAME_CHARS) } : {}),
        line: truncate(options.redact(headlineText(options.report)), MAX_LINE_CHARS)
      },
      details: options.redact(details(options.report, context))
    },
    logger,
    describe: describeGitHubError,
    signal
  })
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
