import * as core from '@actions/core'
import { ApiClient } from './api-client.js'
import { type Clock, systemClock } from './clock.js'
import { annotationsFor } from './annotations.js'
import { resolveBranch } from './branch-resolver.js'
import { CancelledError, DeadlineExceededError, InputError } from './errors.js'
import {
  describeRun,
  type GitHubContext,
  headSha,
  readGitHubContext,
  withheldSecretReason
} from './github-context.js'
import {
  branchNotReady,
  failedList,
  inFlightList,
  inFlightPhrase,
  operationFacts
} from './headline.js'
import { phraseText, plural } from './phrase.js'
import { getInputs, ignoredInputWarnings, type Inputs } from './input-helper.js'
import type { Logger } from './logger.js'
import { isFinal } from './operation-status.js'
import { type OperationSource, OperationIdsSource, ProjectGateSource } from './operation-sources.js'
import { buildOutputs } from './outputs.js'
import type { Branch } from './schemas.js'
import type { RunReport } from './report.js'
import { Pace } from './pace.js'
import { type CommentApi, writePullRequestComment } from './pr-comment.js'
import { requestTimeLimitMs, RetryPolicy } from './retry-policy.js'
import { runnerFileProblem } from './runner-files.js'
import { MAX_SUMMARY_BYTES, renderSummaryWithin } from './summary.js'
import { forLog, Redactor } from './untrusted-text.js'
import { ACTION_VERSION } from './version.js'
import { type Outcome, waitForOperations } from './wait-for-operations.js'

export interface RunDependencies {
  clock?: Clock
  retryPolicy?: RetryPolicy
  /** Jitter of the polling pace, in [0, 1). */
  random?: () => number
  /** The run's GitHub context; read from the environment by default. */
  context?: GitHubContext
  /** The pull-request comments API; Octokit by default. */
  commentApi?: (signal: AbortSignal) => Promise<CommentApi>
}

/** The action: inputs → requests → outputs and summary. Every error ends here, once. */
export async function run(dependencies: RunDependencies = {}): Promise<Outcome | 'error'> {
  const rawKey = core.getInput('api_key')
  if (rawKey) core.setSecret(rawKey)
  const rawToken = core.getInput('github_token')
  if (rawToken) core.setSecret(rawToken)
  const redactor = new Redactor([rawKey, rawToken])
  const redact = (text: string): string => redactor.redact(text)
  // Every line goes through here: secrets out first, then API text made harmless for the runner.
  const toLog = (text: string): string => forLog(redact(text))
  const logger: Logger = {
    info: (message) => core.info(toLog(message)),
    warning: (message) => core.warning(toLog(message)),
    debug: (message) => core.debug(toLog(message))
  }
  const clock = dependencies.clock ?? systemClock
  const controller = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info(`Received ${signal}: stopping`)
    controller.abort(new CancelledError(signal))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const context = dependencies.context ?? readGitHubContext()
  const described = describeRun(context)
  logger.info(`Neon operations gate ${ACTION_VERSION}${described ? ` for ${described}` : ''}`)
  const report: RunReport = {
    requests: { requests: 0, retries: 0 },
    run: {
      pullRequest: context.pullRequest && {
        number: context.pullRequest.number,
        url: context.pullRequest.htmlUrl
      },
      sha: headSha(context) || undefined
    }
  }
  let source: OperationSource | undefined
  let inputs: Inputs | undefined
  let result: Outcome | 'error' = 'error'
  try {
    const withheld = rawKey ? undefined : withheldSecretReason(context)
    if (withheld) throw new InputError(withheld)
    inputs = getInputs((name) => core.getInput(name))
    report.failFast = inputs.failFast
    for (const warning of ignoredInputWarnings(inputs)) logger.warning(warning)
    // One deadline for the whole run: listing, every poll, retry and back-off.
    const deadline = clock.now() + inputs.timeoutMs
    const pace = new Pace(inputs.intervalMs, logger, dependencies.random)
    report.pace = pace
    const client = new ApiClient({
      baseUrl: inputs.apiHost,
      apiKey: inputs.apiKey,
      requestTimeoutMs: requestTimeLimitMs(inputs.intervalMs),
      retryPolicy: dependencies.retryPolicy ?? new RetryPolicy(),
      pace,
      clock,
      logger,
      redactor,
      deadline,
      signal: controller.signal
    })
    report.requests = client.stats

    if (inputs.listProjects) {
      report.listing = await client.projects.listProjects(inputs.orgId)
      logger.info(`Found ${plural(report.listing.projects.length, 'project')}`)
      if (report.listing.unavailableProjectIds.length > 0) {
        logger.warning(
          `Some projects are unavailable right now: ${report.listing.unavailableProjectIds.join(', ')}`
        )
      }
      result = 'success'
    }

    if (inputs.projectId) {
      report.projectId = inputs.projectId
      let branch: Branch | undefined
      if (inputs.branchId && inputs.operationIds.length === 0) {
        branch = await resolveBranch(client.branches, inputs.projectId, inputs.branchId)
        report.branch = branch
        logger.info(`Gating branch ${branch.name} (${branch.id})`)
      }
      source = createSource(inputs, inputs.projectId, branch, client, clock, logger)
      report.wait = await waitForOperations(
        { wait: inputs.wait, deadline, failFast: inputs.failFast },
        { source, pace, clock, logger, signal: controller.signal }
      )
      result = report.wait.outcome
    }
  } catch (error) {
    // Cut short outside the wait loop (listing projects, or an error inside a poll).
    result = controller.signal.aborted
      ? 'cancelled'
      : error instanceof DeadlineExceededError
        ? 'timeout'
        : 'error'
    const message = error instanceof Error ? error.message : String(error)
    report.error = redact(result === 'timeout' ? `timeout ran out: ${message}` : message)
    if (source && source.completedPolls > 0) report.lastSeen = source.operations
  } finally {
    if (source?.branch) report.branch = source.branch
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }

  report.outcome = result
  if (report.error) core.setFailed(toLog(report.error))
  else if (result === 'failure' || result === 'timeout' || result === 'cancelled') {
    core.setFailed(toLog(failureMessage(result, report)))
  }
  for (const annotation of annotationsFor(report)) {
    core.error(toLog(annotation.message), { title: toLog(annotation.title) })
  }
  // Each sink is written on its own: one that fails is reported and the others are still written.
  const { outputs, notes } = buildOutputs(report)
  for (const note of notes) logger.warning(note)
  writeOutputs(outputs, redact, toLog)
  await writeSummary(redact(renderSummaryWithin(report, MAX_SUMMARY_BYTES)), logger)
  if (inputs && inputs.prComment !== 'off') {
    const url = await writePullRequestComment({
      mode: inputs.prComment,
      token: inputs.githubToken,
      author: inputs.prCommentAuthor,
      context,
      report,
      gate: {
        projectId: inputs.projectId,
        branchId: inputs.operationIds.length === 0 ? inputs.branchId : undefined,
        operationIds: inputs.operationIds
      },
      logger,
      redact,
      api: dependencies.commentApi
    })
    writeOutputs({ comment_url: url ?? '' }, redact, toLog)
  }
  return result
}

/** Outputs are the step's result: a runner file that cannot take them fails the step. */
function writeOutputs(
  outputs: Record<string, string>,
  redact: (text: string) => string,
  toLog: (text: string) => string
): void {
  try {
    const file = process.env.GITHUB_OUTPUT
    const problem = file && runnerFileProblem(file)
    if (problem) throw new Error(problem)
    for (const [name, value] of Object.entries(outputs)) core.setOutput(name, redact(value))
  } catch (error) {
    core.setFailed(
      toLog(`Could not write the step's outputs (GITHUB_OUTPUT): ${(error as Error).message}`)
    )
  }
}

function createSource(
  inputs: Inputs,
  projectId: string,
  branch: Branch | undefined,
  client: ApiClient,
  clock: Clock,
  logger: Logger
): OperationSource {
  const isDone = (operation: { status: string }): boolean =>
    isFinal(operation.status, inputs.failFast)
  if (inputs.operationIds.length > 0) {
    return new OperationIdsSource(client.operations, projectId, inputs.operationIds, isDone)
  }
  return new ProjectGateSource({
    reader: client.operations,
    projectId,
    branch: branch && { branch, reader: client.branches },
    isDone,
    clock,
    logger
  })
}

/**
 * The step's error line: the operations that failed, by id, and apart from them those still in
 * flight (with how long so far); on a timeout or a cancellation, what was still in flight.
 */
function failureMessage(outcome: Outcome, report: RunReport): string {
  const facts = operationFacts(report)
  const reason = report.wait?.reason ? ` (${report.wait.reason})` : ''
  const cut = outcome === 'timeout' ? 'timeout ran out' : 'The wait was cancelled'
  if (!facts.seen) {
    return `${cut} before anything could be read${reason}: the state of the operations is unknown`
  }
  const inFlight = facts.inFlight.length > 0
  if (outcome === 'failure') {
    const count = facts.failed.length
    const what = count === 1 ? 'An operation' : `${count} operations`
    const beside = inFlight ? `; ${phraseText(inFlightPhrase(facts, true))}` : ''
    return `${what} ended in failure: ${phraseText(failedList(facts, true))}${beside}`
  }
  const branch = !inFlight && branchNotReady(report)
  if (branch) return `${cut} while ${phraseText(branch)}`
  const still = inFlight ? `: ${phraseText(inFlightList(facts, true))}` : ''
  return outcome === 'timeout'
    ? `${cut} while operations were still in flight${still}${reason}`
    : `${cut}${still}`
}

async function writeSummary(html: string, logger: Logger): Promise<void> {
  const file = process.env.GITHUB_STEP_SUMMARY
  if (!file) {
    logger.debug('GITHUB_STEP_SUMMARY is not set; no job summary written')
    return
  }
  try {
    const problem = runnerFileProblem(file)
    if (problem) throw new Error(problem)
    await core.summary.addRaw(html).write()
  } catch (error) {
    core.summary.emptyBuffer()
    logger.warning(
      `Could not write the job summary (GITHUB_STEP_SUMMARY): ${(error as Error).message}`
    )
  }
}
