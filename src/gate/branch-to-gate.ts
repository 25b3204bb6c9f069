/*
 * The branch `branch_id` names, resolved once before the first poll (wait/branch-resolver.ts), and
 * said in the log: the branch gated, or the branch a project idle is waited for. A branch that does
 * not exist is an input error, unless the plan takes it as its goal (gone before a delete).
 */
import type { BranchesReader } from '../api/resources/branches.js'
import type { Logger } from '../domain/logger.js'
import type { Branch } from '../domain/schemas.js'
import type { RunReport } from '../report/report.js'
import { NoSuchBranchError, resolveBranch } from '../wait/branch-resolver.js'
import type { GatePlan } from './plan.js'

/**
 * The branch of the plan's gate (none without `branch_id`, or with `operation_id`); `gone` when it
 * names no branch and the plan's goal then holds, said in the report.
 */
export async function branchToGate(
  plan: GatePlan,
  projectId: string,
  { reader, report, logger }: { reader: BranchesReader; report: RunReport; logger: Logger }
): Promise<Branch | 'gone' | undefined> {
  const { inputs, wait } = plan
  if (!inputs.branchId || wait.covers === 'operations') return undefined
  let branch: Branch
  try {
    branch = await resolveBranch(reader, projectId, inputs.branchId)
  } catch (error) {
    if (!(error instanceof NoSuchBranchError)) throw error
    if (plan.branchGone?.(report, logger)) return 'gone'
    throw error
  }
  if (!wait.idle) {
    logger.info(`Gating branch ${branch.name} (${branch.id})`)
    return branch
  }
  const waitingFor = wait.idle.for.charAt(0).toUpperCase() + wait.idle.for.slice(1)
  logger.info(
    `${waitingFor} of branch ${branch.name} (${branch.id}): waiting until the project is idle`
  )
  // What the outputs and the summary show of it until the step after the wait reads it again.
  report.branch = branch
  return branch
}
