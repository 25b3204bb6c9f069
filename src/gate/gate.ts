/*
 * The whole job, from typed inputs to a report: the steps before the wait (list projects), resolve
 * the branch, wait, then the steps after it (steps.ts: the database, the teardown's check). The
 * core knows `before` where it shapes the wait: the whole project until idle, no `fail_fast`, no
 * database, no branch readiness, and a branch that is gone asked of the steps. It touches neither
 * the runner nor GitHub (run() in main.ts publishes what it returns), so a test can run it end to
 * end with fakes. Every error ends here as the report's outcome and message (run-error.ts).
 */
import { ApiClient } from '../api/api-client.js'
import { ApiClock } from '../api/api-clock.js'
import { Pace } from '../api/pace.js'
import { RECOVERY_INTERVALS, requestTimeLimitMs, type RetryPolicy } from '../api/retry-policy.js'
import type { HttpGet } from '../api/http-transport.js'
import type { Clock } from '../domain/clock.js'
import type { InputNaming } from '../domain/input-naming.js'
import type { Logger } from '../domain/logger.js'
import { finalityOf } from '../domain/operation-status.js'
import type { Branch } from '../domain/schemas.js'
import type { Redactor } from '../domain/untrusted-text.js'
import type { RunReport } from '../report/report.js'
import type { ReportSection } from '../report/section.js'
import type { Step, StepContext } from '../steps/step.js'
import { NoSuchBranchError, resolveBranch } from '../wait/branch-resolver.js'
import { type OperationSource, OperationIdsSource } from '../wait/operation-sources.js'
import { ProjectGateSource } from '../wait/project-gate-source.js'
import { waitForOperations } from '../wait/wait-for-operations.js'
import type { Inputs } from './inputs.js'
import { recordError } from './run-error.js'
import { gateKindOf } from './gate-kind.js'
import { type StepNeeds, STEPS } from './steps.js'

export interface GateDependencies extends StepNeeds {
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
  const pace = new Pace(inputs.intervalMs, clock, logger, dependencies.random)
  const report: RunReport = {
    requests: { requests: 0, retries: 0 },
    gate: gateKindOf(given),
    failFast: inputs.failFast,
    before: inputs.before,
    pace
  }
  // One deadline for the whole run: listing, every poll, retry and back-off, the steps after.
  const stepStartedAt = dependencies.stepStartedAt ?? clock.now()
  // What ended just before this moment is judged too (on the API's clock, once it has answered).
  const startedAt = clock.now()
  const deadline = stepStartedAt + inputs.timeoutMs
  const client = apiClient(inputs, { ...dependencies, clock }, pace, deadline)
  report.requests = client.stats
  const context = { ...dependencies, clock, client, pace, stepStartedAt, deadline }
  for (const step of STEPS) step.start?.(inputs, report)
  const steps = STEPS.filter((step) => step.applies(inputs))
  let source: OperationSource | undefined
  try {
    for (const step of stepsIn('before-wait', steps)) await step.run(inputs, report, context)
    if (inputs.projectId) {
      const gated = { projectId: inputs.projectId, startedAt }
      source = await gateProject(gated, inputs, report, context, steps)
    }
  } catch (error) {
    // Cut short: listing projects, resolving the branch, or an error no retry could help in a poll.
    recordError(report, error, dependencies)
  }
  for (const step of steps) step.end?.(inputs, report, logger)
  // The whole run, the steps after the wait included.
  report.elapsedMs = clock.now() - stepStartedAt
  if (source?.branch) report.branch = source.branch
  if (source?.recentFailures?.length) report.recentFailures = source.recentFailures
  report.historyNotJudged = source?.historyNotJudged
  return report
}

type GateSteps = readonly Step<Inputs, StepNeeds>[]
type GateContext = StepContext & GateDependencies

function stepsIn(phase: ReportSection['phase'], steps: GateSteps): GateSteps {
  return steps.filter((step) => step.section.phase === phase)
}

/**
 * The project gate: its branch resolved, the wait, then, when it succeeded, each step after it;
 * the source of operations, once read. Throws the error that cut it short.
 */
async function gateProject(
  gated: Gated,
  inputs: Inputs,
  report: RunReport,
  context: GateContext,
  steps: GateSteps
): Promise<OperationSource | undefined> {
  const { projectId } = gated
  report.projectId = projectId
  const branch = await gatedBranch(inputs, gated, report, context, steps)
  if (branch === 'gone') return undefined
  const source = createSource(context.client, inputs, { ...gated, branch }, context)
  await waitFor(source, inputs, report, context)
  for (const step of stepsIn('after-wait', steps)) {
    if (report.outcome !== 'success') break
    await step.run(inputs, report, { ...context, projectId, branch })
  }
  return source
}

/**
 * The wait for the operations; throws the error that cut it short, once what was read is in the
 * report.
 */
async function waitFor(
  source: OperationSource,
  inputs: Inputs,
  report: RunReport,
  { clock, logger, signal, pace, stepStartedAt, deadline }: GateContext
): Promise<void> {
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
}

/** What the gate is on: a project, and when it started (wall clock, epoch ms). */
interface Gated {
  projectId: string
  startedAt: number
}

/**
 * The branch `branch_id` names, resolved before the first poll (none without it, or with
 * `operation_id`); `gone` when it names no branch and a step's goal then holds (a delete's).
 */
async function gatedBranch(
  inputs: Inputs,
  { projectId }: Gated,
  report: RunReport,
  { client, logger }: GateContext,
  steps: GateSteps
): Promise<Branch | 'gone' | undefined> {
  if (!inputs.branchId || inputs.operationIds.length > 0) return undefined
  let branch: Branch
  try {
    branch = await resolveBranch(client.branches, projectId, inputs.branchId)
  } catch (error) {
    if (!(error instanceof NoSuchBranchError)) throw error
    if (steps.some((step) => step.branchGone?.(inputs, report, logger))) return 'gone'
    throw error
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
  dependencies: Omit<GateDependencies, 'clock'> & { clock: ApiClock },
  pace: Pace,
  deadline: number
): ApiClient {
  const { clock, logger, redactor, retryPolicy, signal, transport } = dependencies
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
