/*
 * The gate's optional steps, in order (src/steps/<step>/): the project listing ahead of the wait
 * (or instead of it), the sweep instead of it,
 * then, once the wait succeeded, the check before a teardown and the database check. plan.ts asks
 * their hooks in this order, gate.ts runs those in the plan; their sections, in the same order,
 * make the report's steps (run-report.ts).
 */
import type { ReportSection } from '../report/section.js'
import { DATABASE_STEP } from '../steps/database/database-step.js'
import type { QueryDatabase } from '../steps/database/postgres.js'
import { PROJECTS_STEP } from '../steps/projects/projects-step.js'
import type { Step } from '../steps/step.js'
import type { ReadPullRequests } from '../domain/sweep-verdict.js'
import { SWEEP_STEP } from '../steps/sweep/sweep-step.js'
import { TEARDOWN_STEP } from '../steps/teardown/teardown-step.js'
import type { Inputs } from './inputs.js'

/**
 * What the steps need beside their context: one attempt at the database (or a simulated one), and
 * the sweep's reader of pull requests, where the front end has one (the action's runner).
 */
export interface StepNeeds {
  queryDatabase: QueryDatabase
  readPullRequests?: ReadPullRequests
}

export type GateStep = Step<Inputs, StepNeeds>

export const STEPS: readonly GateStep[] = [PROJECTS_STEP, SWEEP_STEP, TEARDOWN_STEP, DATABASE_STEP]

export const SECTIONS: readonly ReportSection[] = STEPS.map((step) => step.section)
