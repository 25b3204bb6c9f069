import * as core from '@actions/core'
import { ApiClient } from './api-client.js'
import { type Clock, systemClock } from './clock.js'
import { CancelledError } from './errors.js'
import { getInputs, ignoredInputWarnings, type Inputs } from './input-helper.js'
import type { Logger } from './logger.js'
import { isFinal } from './operation-status.js'
import { type OperationSource, OperationIdsSource, ProjectGateSource } from './operation-sources.js'
import { buildOutputs } from './outputs.js'
import type { RunReport } from './report.js'
import { RetryPolicy } from './retry-policy.js'
import { redactSecret } from './secret.js'
import { renderSummary } from './summary.js'
import { type Outcome, waitForOperations } from './wait-for-operations.js'

/** Time limit of a single HTTP request; the overall `timeout` bounds it further. */
export const REQUEST_TIMEOUT_MS = 30_000

export interface RunDependencies {
  clock?: Clock
  retryPolicy?: RetryPolicy
}

/** The action: inputs → requests → outputs and summary. Every error ends here, once. */
export async function run(dependencies: RunDependencies = {}): Promise<Outcome | 'error'> {
  const rawKey = core.getInput('api_key').trim()
  if (rawKey) core.setSecret(rawKey)
  const redact = (text: string): string => redactSecret(text, rawKey)
  const logger: Logger = {
    info: (message) => core.info(redact(message)),
    warning: (message) => core.warning(redact(message)),
    debug: (message) => core.debug(redact(message))
  }
  const clock = dependencies.clock ?? systemClock
  const controller = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info(`Received ${signal}: stopping`)
    controller.abort(new CancelledError(signal))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const report: RunReport = { requests: { requests: 0, retries: 0 } }
  let source: OperationSource | undefined
  let result: Outcome | 'error' = 'error'
  try {
    const inputs = getInputs((name) => core.getInput(name))
    for (const warning of ignoredInputWarnings(inputs)) logger.warning(warning)
    // One deadline for the whole run: listing, every poll, retry and back-off.
    const deadline = clock.now() + inputs.timeoutMs
    const client = new ApiClient({
      baseUrl: inputs.apiHost,
      apiKey: inputs.apiKey,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      retryPolicy: dependencies.retryPolicy ?? new RetryPolicy(),
      clock,
      logger,
      deadline,
      signal: controller.signal
    })
    report.requests = client.stats

    if (inputs.listProjects) {
      report.listing = await client.listProjects(inputs.orgId)
      logger.info(`Found ${report.listing.projects.length} project(s)`)
      if (report.listing.unavailableProjectIds.length > 0) {
        logger.warning(
          `Some projects are unavailable right now: ${report.listing.unavailableProjectIds.join(', ')}`
        )
      }
      result = 'success'
    }

    if (inputs.projectId) {
      report.projectId = inputs.projectId
      if (inputs.operationIds.length === 0) report.branchId = inputs.branchId
      source = createSource(inputs, inputs.projectId, client, clock, logger)
      report.wait = await waitForOperations(
        {
          wait: inputs.wait,
          intervalMs: inputs.intervalMs,
          deadline,
          failFast: inputs.failFast
        },
        { source, clock, logger, signal: controller.signal }
      )
      result = report.wait.outcome
    }
    if (result === 'failure' || result === 'timeout' || result === 'cancelled') {
      core.setFailed(failureMessage(result, report))
    }
  } catch (error) {
    result = controller.signal.aborted ? 'cancelled' : 'error'
    report.error = redact(error instanceof Error ? error.message : String(error))
    report.lastSeen = source?.operations
    core.setFailed(report.error)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }

  for (const [name, value] of Object.entries(buildOutputs(report))) {
    core.setOutput(name, redact(value))
  }
  await writeSummary(redact(renderSummary(report)), logger)
  return result
}

function createSource(
  inputs: Inputs,
  projectId: string,
  client: ApiClient,
  clock: Clock,
  logger: Logger
): OperationSource {
  const isDone = (operation: { status: string }): boolean =>
    isFinal(operation.status, inputs.failFast)
  if (inputs.operationIds.length > 0) {
    return new OperationIdsSource(client, projectId, inputs.operationIds, isDone)
  }
  return new ProjectGateSource({
    reader: client,
    projectId,
    branchId: inputs.branchId,
    isDone,
    clock,
    logger
  })
}

function failureMessage(outcome: Outcome, report: RunReport): string {
  const stuck = report.wait?.operations
    .filter((operation) => operation.status !== 'finished' && operation.status !== 'skipped')
    .map((operation) => `${operation.id} (${operation.action ?? 'operation'}: ${operation.status})`)
    .join(', ')
  const detail = stuck ? `: ${stuck}` : ''
  switch (outcome) {
    case 'failure':
      return `An operation ended in failure${detail}`
    case 'timeout':
      return `timeout ran out while operations were still in flight${detail}${report.wait?.reason ? ` (${report.wait.reason})` : ''}`
    default:
      return `The wait was cancelled${detail}`
  }
}

async function writeSummary(html: string, logger: Logger): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    logger.debug('GITHUB_STEP_SUMMARY is not set; no job summary written')
    return
  }
  try {
    await core.summary.addRaw(html).write()
  } catch (error) {
    logger.warning(`Could not write the job summary: ${(error as Error).message}`)
  }
}
