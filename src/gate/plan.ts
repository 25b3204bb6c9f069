/*
 * The gate's plan, decided once from the parsed inputs: which gate, which steps run, what the wait
 * covers (the operations named, one branch, the whole project, or the whole project until idle),
 * whether `failed` is final, and whether the database is queried. The gate's own choice comes
 * first; then each step's hook shapes it, in the steps' order (steps.ts). gate.ts runs it; the
 * wait and the report read its wait (domain/wait-plan.ts), never the inputs that shaped it.
 */
import type { PlanDraft } from '../steps/step.js'
import type { Inputs } from './inputs.js'
import { type GateStep, STEPS } from './steps.js'

export interface GatePlan extends PlanDraft<Inputs> {
  /** The steps that run, in order. */
  steps: readonly GateStep[]
}

/**
 * The gate the inputs ask for, before a step's hook changes it. parseInputs has refused every
 * combination in which an input would be left out to the gate's loss: what is given here is checked.
 */
function gateKindOf(inputs: Inputs): 'projects' | 'operations' | 'branch' | 'project' {
  if (!inputs.projectId) return 'projects'
  if (inputs.operationIds.length > 0) return 'operations'
  return inputs.branchId ? 'branch' : 'project'
}

/** The plan of a run on `inputs`. */
export function planOf(inputs: Inputs): GatePlan {
  const gate = gateKindOf(inputs)
  const covers = gate === 'projects' ? 'project' : gate
  let plan: GatePlan = { inputs, gate, wait: { covers, failFast: inputs.failFast }, steps: [] }
  for (const step of STEPS) {
    const shaped = step.plan(plan)
    if (shaped) plan = { ...shaped, steps: [...shaped.steps, step] }
  }
  return plan
}

/**
 * Whether each read gives up within 3 intervals instead of retrying until `timeout`: with `wait:
 * false`, and in a plan that waits for nothing (a sweep), where an API that cannot answer (a
 * proxy's page) is an error to say at once.
 */
export function readsOnce(plan: GatePlan): boolean {
  return !plan.inputs.wait || plan.stepsAlone === true
}

/** Whether the run ends with a query of the database: with a gate, when the plan keeps it. */
export function queriesDatabase(plan: GatePlan): boolean {
  return plan.inputs.database !== undefined && plan.gate !== 'projects'
}
