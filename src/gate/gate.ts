/*
 * The whole job, from a plan (plan.ts) to a report: the plan's steps before the wait (list
 * projects), the branch (branch-to-gate.ts), the wait the plan covers, then its steps after it (the
 * database, the teardown's check), and the plan's ending. It touches neither the runner nor GitHub
 * (run() in main.ts publishes what it returns), so a test can run it end to end with fakes. Every
 * error ends here as the report's outcome and message (run-error.ts).
 */
import { ApiClock } from '../api/api-clock.js'
import { Pace } from '../api/pace.js'
import type { RetryPolicy } from '../api/retry-policy.js'
import type { HttpGet } from '../api/http-transport.js'
import type { Clock } from '../domain/clock.js'
import type { InputNaming } from '../domain/input-naming.js'
import type { Logger } from '../domain/logger.js'
import type { Redactor } from '../domain/untrusted-text.js'
import type { RunReport } from '../report/report.js'
import type { ReportSection } from '../report/section.js'
import type { StepContext } from '../steps/step.js'
import type { OperationSource } from '../wait/operation-sources.js'
import { apiClientOf } from './api-client-of.js'
import { branchToGate } from './branch-to-gate.js'
import { type GatePlan, readsOnce } from './plan.js'
import { plannedSource, waitFor } from './planned-wait.js'
import { recordError } from './run-error.js'
import type { StepNeeds } from './steps.js'

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

type GateContext = StepContext & GateDependencies

/** Runs the plan; never throws. */
export async function gate(plan: GatePlan, dependencies: GateDependencies): Promise<RunReport> {
  const { inputs } = plan
  // The runner's clock, its wall time the API's (its answers' Date header): what is compared with
  // the API's timestamps is measured on the API's clock; deadlines stay on the monotonic one.
  const clock = new ApiClock(dependencies.clock, dependencies.logger)
  const pace = new Pace(inputs.intervalMs, clock, dependencies.logger, dependencies.random)
  // One deadline for the whole run: listing, every poll, retry and back-off, the steps after.
  const stepStartedAt = dependencies.stepStartedAt ?? clock.now()
  // What ended just before this moment is judged too (on the API's clock, once it has answered).
  const startedAt = clock.now()
  const deadline = stepStartedAt + inputs.timeoutMs
  const client = apiClientOf(inputs, readsOnce(plan), { ...dependencies, clock, pace, deadline })
  const report: RunReport = {
    // Every path below sets the outcome (the wait, a step run alone, the teardown's end, an error);
    // one that did not would fail closed.
    outcome: 'error',
    requests: client.stats,
    gate: plan.gate,
    failFast: plan.wait.failFast,
    waitPlan: plan.stepsAlone ? undefined : plan.wait,
    pace
  }
  const context = { ...dependencies, clock, client, pace, stepStartedAt, deadline }
  for (const step of plan.steps) step.start?.(inputs, report)
  let source: OperationSource | undefined
  try {
    for (const step of stepsIn('before-wait', plan)) await step.run(inputs, report, context)
    if (inputs.projectId && !plan.stepsAlone) {
      source = await gateProject(plan, inputs.projectId, startedAt, report, context)
    }
  } catch (error) {
    // Cut short: listing projects, resolving the branch, or an error no retry could help in a poll.
    recordError(report, error, dependencies)
  }
  plan.ending?.(report, dependencies.logger)
  // The whole run, the steps after the wait included.
  report.elapsedMs = clock.now() - stepStartedAt
  if (source?.branch) report.branch = source.branch
  if (source?.recentFailures?.length) report.recentFailures = source.recentFailures
  report.historyNotJudged = source?.historyNotJudged
  return report
}

function stepsIn(phase: ReportSection['phase'], plan: GatePlan): GatePlan['steps'] {
  return plan.steps.filter((step) => step.section.phase === phase)
}

/**
 * The project gate: its branch resolved, the wait, then, when it succeeded, each step after it;
 * the source of operations, once read. Throws the error that cut it short.
 */
async function gateProject(
  plan: GatePlan,
  projectId: string,
  startedAt: number,
  report: RunReport,
  context: GateContext
): Promise<OperationSource | undefined> {
  report.projectId = projectId
  const { client, logger } = context
  const branch = await branchToGate(plan, projectId, { reader: client.branches, report, logger })
  if (branch === 'gone') return undefined
  const source = plannedSource(plan, { projectId, startedAt, branch }, context)
  await waitFor(source, plan, report, context)
  for (const step of stepsIn('after-wait', plan)) {
    if (report.outcome !== 'success') break
    await step.run(plan.inputs, report, { ...context, projectId, branch })
  }
  return source
}
