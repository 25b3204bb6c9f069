/*
 * The whole job, from typed inputs to a report: list projects, resolve the branch, wait. It touches
 * neither the runner nor GitHub (run() in main.ts publishes what it returns), so a test can run it
 * end to end with fakes. Every error ends here as the report's outcome and message.
 */
import { ApiClient } from '../api/api-client.js'
import { ApiClock } from '../api/api-clock.js'
import { Pace } from '../api/pace.js'
import { RECOVERY_INTERVALS, requestTimeLimitMs, type RetryPolicy } from '../api/retry-policy.js'
import type { HttpGet } from '../api/http-transport.js'
import type { QueryDatabase } from '../api/postgres.js'
import type { Clock } from '../domain/clock.js'
import { DeadlineExceededError, InputError, WordedError } from '../domain/errors.js'
import type { InputNaming } from '../domain/input-naming.js'
import type { Logger } from '../domain/logger.js'
import { formatDuration } from '../domain/duration.js'
import { finalityOf } from '../domain/operation-status.js'
import { plural } from '../domain/phrase.js'
import type { Branch } from '../domain/schemas.js'
import type { Redactor } from '../domain/untrusted-text.js'
import type { RunReport } from '../report/report.js'
import { checkBeforeTeardown, teardownBusy, teardownDecided } from './before-teardown.js'
import { NoSuchBranchError, resolveBranch } from '../wait/branch-resolver.js'
import { goneBeforeDelete } from '../wait/teardown-check.js'
import { type OperationSource, OperationIdsSource } from '../wait/operation-sources.js'
import { ProjectGateSource } from '../wait/project-gate-source.js'
import { probeDatabase } from '../wait/database-probe.js'
import { waitForOperations } from '../wait/wait-for-operations.js'
import type { Inputs } from './inputs.js'
import { gateKindOf } from './gate-kind.js'

export interface GateDependencies {
  clock: Clock
  /** When the run started on `clock`, if before gate() (the command reads its secrets first). */
  stepStartedAt?: number
  retryPolicy: RetryPolicy
  logger: Logger
  redactor: Redactor
  /** Aborted when the runner cancels the job. */
  signal: AbortSignal
  /** Jitter of the polling pace, in [0, 1). */
  random?: () => number
  /** Sends one GET of the API: `httpGet`, or a simulated network (npm run simulate). */
  transport: HttpGet
  /** One attempt at the database: `queryDatabase`, or a simulated one. */
  queryDatabase: QueryDatabase
  /** How the front end names inputs, in the errors that blame one. */
  naming: InputNaming
}

/** Runs the gate the inputs ask for; never throws. */
export async function gate(given: Inputs, dependencies: GateDependencies): Promise<RunReport> {
  const { logger } = dependencies
  // The runner's clock, its wall time the API's (its answers' Date header): what is compared with
  // the API's timestamps is measured on the API's clock; deadlines stay on the monotonic one.
  const clock = new ApiClock(dependencies.clock, logger)
  // Before a teardown the gate waits for the project to be idle: a `failed` operation is still in
  // flight, and a branch about to go is not queried (the front ends warn that these are ignored).
  const inputs = given.before ? { ...given, failFast: false, database: undefined } : given
  const report: RunReport = {
    requests: { requests: 0, retries: 0 },
    gate: gateKindOf(given),
    failFast: inputs.failFast,
    before: inputs.before
  }
  // One deadline for the whole run: listing, every poll, retry and back-off, the database.
  const stepStartedAt = dependencies.stepStartedAt ?? clock.now()
  // What ended just before this moment is judged too (on the API's clock, once it has answered).
  const startedAt = clock.now()
  const run: RunTimes = { stepStartedAt, deadline: stepStartedAt + inputs.timeoutMs }
  const pace = new Pace(inputs.intervalMs, clock, logger, dependencies.random)
  report.pace = pace
  const client = apiClient(inputs, { ...dependencies, clock }, pace, run.deadline)
  report.requests = client.stats
  report.databaseRequested = inputs.database !== undefined && inputs.projectId !== undefined
  let source: OperationSource | undefined
  try {
    if (inputs.listProjects) await listProjects(client, inputs, report, logger)
    if (inputs.projectId) {
      report.projectId = inputs.projectId
      const gated = { projectId: inputs.projectId, startedAt }
      const branch = await gatedBranch(client, inputs, gated, report, dependencies)
      if (branch !== 'gone') {
        source = createSource(client, inputs, { ...gated, branch }, { logger, clock })
        await waitThenQuery(source, inputs, report, { ...dependencies, clock, pace, run })
        if (inputs.before && branch && report.outcome === 'success') {
          await checkBeforeTeardown(client, inputs, { ...gated, branch }, report, logger)
        }
      }
    }
  } catch (error) {
    // Cut short: listing projects, resolving the branch, or an error no retry could help in a poll.
    recordError(report, error, dependencies)
  }
  teardownBusy(report, inputs, logger)
  // The whole run, the database check included.
  report.elapsedMs = clock.now() - stepStartedAt
  if (source?.branch) report.branch = source.branch
  if (source?.recentFailures?.length) report.recentFailures = source.recentFailures
  return report
}

/** When the run started, and when it must end (monotonic clock time). */
interface RunTimes {
  stepStartedAt: number
  deadline: number
}

/**
 * The wait for the operations, then, when they succeeded and `database_url` asks for it, the
 * database check; throws the error that cut the wait short, once what was read is in the report.
 */
async function waitThenQuery(
  source: OperationSource,
  inputs: Inputs,
  report: RunReport,
  dependencies: GateDependencies & { pace: Pace; run: RunTimes }
): Promise<void> {
  const { clock, logger, signal, pace, run, queryDatabase } = dependencies
  const { stepStartedAt, deadline } = run
  const wait = await waitForOperations(
    {
      wait: inputs.wait,
      startedAt: stepStartedAt,
      deadline,
      failFast: inputs.failFast,
      untilIdle: inputs.before !== undefined,
      databaseCheckNext: inputs.database !== undefined
    },
    { source, pace, clock, logger, signal }
  )
  if (wait.outcome === 'error') {
    // What was read before the error stays, for the outputs as for the summary.
    if (wait.observed || wait.operations.length > 0) report.wait = wait
    throw wait.error
  }
  report.wait = wait
  report.outcome = wait.outcome
  if (wait.noRetryFits) report.noRetryFits = wait.noRetryFits
  if (!inputs.database || report.outcome !== 'success') return
  const probeOptions = { wait: inputs.wait, deadline, intervalMs: inputs.intervalMs, stepStartedAt }
  report.database = await probeDatabase(inputs.database, probeOptions, {
    pace,
    clock,
    logger,
    signal,
    query: queryDatabase
  })
  report.outcome = report.database.outcome
  logger.info(`[+${formatDuration(clock.now() - stepStartedAt)}] outcome: ${report.outcome}`)
}

/** The run cut short by `error`: its outcome, and its message as the front end names inputs. */
function recordError(
  report: RunReport,
  error: unknown,
  { signal, naming, redactor }: Pick<GateDependencies, 'signal' | 'naming' | 'redactor'>
): void {
  report.outcome = signal.aborted
    ? 'cancelled'
    : error instanceof DeadlineExceededError
      ? 'timeout'
      : 'error'
  const message =
    error instanceof WordedError
      ? error.worded(naming)
      : error instanceof Error
        ? error.message
        : String(error)
  const noRetryFits =
    report.outcome === 'timeout' ? (error as DeadlineExceededError).noRetryFits : undefined
  if (noRetryFits) report.noRetryFits = noRetryFits
  // Gave up because no retry fitted: the message says so with the numbers (`no retry fits …`).
  const text =
    report.outcome !== 'timeout'
      ? message
      : noRetryFits
        ? message.charAt(0).toUpperCase() + message.slice(1)
        : `timeout ran out: ${message}`
  report.error = redactor.redact(text)
  if (error instanceof InputError) report.errorCause = 'input'
}

async function listProjects(
  client: ApiClient,
  inputs: Inputs,
  report: RunReport,
  logger: Logger
): Promise<void> {
  report.listing = await client.projects.listProjects(inputs.orgId)
  logger.info(`Found ${plural(report.listing.projects.length, 'project')}`)
  if (report.listing.unavailableProjectIds.length > 0) {
    logger.warning(
      `Some projects are unavailable right now: ${report.listing.unavailableProjectIds.join(', ')}`
    )
  }
  report.outcome = 'success'
}

/** What the gate is on: a project, and when it started (wall clock, epoch ms). */
interface Gated {
  projectId: string
  startedAt: number
}

/**
 * The branch `branch_id` names, resolved before the first poll (none without it, or with
 * `operation_id`); `gone` when it names no branch before a delete, whose goal then holds.
 */
async function gatedBranch(
  client: ApiClient,
  inputs: Inputs,
  { projectId }: Gated,
  report: RunReport,
  { logger }: Pick<GateDependencies, 'logger'>
): Promise<Branch | 'gone' | undefined> {
  if (!inputs.branchId || inputs.operationIds.length > 0) return undefined
  let branch: Branch
  try {
    branch = await resolveBranch(client.branches, projectId, inputs.branchId)
  } catch (error) {
    if (!(inputs.before === 'delete' && error instanceof NoSuchBranchError)) throw error
    teardownDecided(report, goneBeforeDelete({ name: inputs.branchId }), logger)
    return 'gone'
  }
  if (!inputs.before) {
    logger.info(`Gating branch ${branch.name} (${branch.id})`)
    return branch
  }
  logger.info(
    `Before a ${inputs.before} of branch ${branch.name} (${branch.id}): waiting until the project is idle`
  )
  // What the outputs and the summary show of it until the check reads it again.
  report.branch = branch
  return branch
}

/**
 * The operations named by `operation_id`, or the project gate: on one branch with `branch_id`, or
 * on the whole project before a teardown of that branch.
 */
function createSource(
  client: ApiClient,
  inputs: Inputs,
  { projectId, startedAt, branch }: Gated & { branch?: Branch },
  { logger, clock }: Pick<GateDependencies, 'logger' | 'clock'>
): OperationSource {
  const { isDone } = finalityOf(inputs.failFast)
  if (inputs.operationIds.length > 0) {
    return new OperationIdsSource(client.operations, projectId, inputs.operationIds, isDone)
  }
  return new ProjectGateSource({
    reader: client.operations,
    projectId,
    branch: branch && !inputs.before ? { branch, reader: client.branches } : undefined,
    isDone,
    teardown: inputs.before,
    startedAt,
    clock,
    logger
  })
}

function apiClient(
  inputs: Inputs,
  {
    clock,
    logger,
    redactor,
    retryPolicy,
    signal,
    transport
  }: Omit<GateDependencies, 'clock'> & { clock: ApiClock },
  pace: Pace,
  deadline: number
): ApiClient {
  return new ApiClient({
    onDate: (date, sentAt) => clock.observe(date, sentAt),
    baseUrl: inputs.apiHost,
    apiKey: inputs.apiKey,
    requestTimeoutMs: requestTimeLimitMs(inputs.intervalMs),
    retryPolicy,
    pace,
    clock,
    logger,
    redactor,
    deadline,
    readOnceWithinMs: inputs.wait ? undefined : RECOVERY_INTERVALS * inputs.intervalMs,
    signal,
    transport
  })
}
