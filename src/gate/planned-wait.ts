/*
 * The wait the plan covers: its source of operations (those `operation_id` names, one branch, the
 * whole project, or the whole project until idle), and the wait itself, its result in the report.
 */
import { finalityOf } from '../domain/operation-status.js'
import type { Branch } from '../domain/schemas.js'
import type { RunReport } from '../report/report.js'
import { type OperationSource, OperationIdsSource } from '../wait/operation-sources.js'
import { ProjectGateSource } from '../wait/project-gate-source.js'
import { waitForOperations } from '../wait/wait-for-operations.js'
import type { StepContext } from '../steps/step.js'
import type { GatePlan } from './plan.js'

/** What the wait stands on: the run's client, clock, log, pace and deadline. */
type WaitContext = Omit<StepContext, 'projectId' | 'branch'>

/**
 * The wait for the operations; throws the error that cut it short, once what was read is in the
 * report.
 */
export async function waitFor(
  source: OperationSource,
  { inputs, wait: planned }: GatePlan,
  report: RunReport,
  { clock, logger, signal, pace, stepStartedAt, deadline }: WaitContext
): Promise<void> {
  const wait = await waitForOperations(
    {
      wait: inputs.wait,
      startedAt: stepStartedAt,
      deadline,
      failFast: planned.failFast,
      untilIdle: planned.covers === 'idle project',
      next: planned.next
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

/**
 * What the plan's wait covers: the operations named by `operation_id`, or the project gate, on one
 * branch, or on the whole project (until idle, for a step's sake).
 */
export function plannedSource(
  { inputs, wait }: GatePlan,
  gated: { projectId: string; startedAt: number; branch?: Branch },
  { client, logger, clock }: WaitContext
): OperationSource {
  const finality = finalityOf(wait.failFast)
  if (wait.covers === 'operations') {
    return new OperationIdsSource(
      client.operations,
      gated.projectId,
      inputs.operationIds,
      finality.isDone
    )
  }
  return new ProjectGateSource({
    ...gated,
    reader: client.operations,
    project: {
      listProjectComputes: (projectId) => client.computes.listProjectComputes(projectId),
      listBranches: (projectId, reading) => client.branches.listBranches(projectId, reading)
    },
    branch:
      gated.branch && wait.covers === 'branch'
        ? { branch: gated.branch, reader: client.branches }
        : undefined,
    asideBranch: wait.covers === 'idle project' ? gated.branch?.id : undefined,
    finality,
    failuresWhy: wait.idle?.failuresWhy,
    clock,
    logger
  })
}
