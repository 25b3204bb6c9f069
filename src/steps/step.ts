/*
 * One optional step of the gate (src/steps/<step>/): its hook into the gate's plan, its run, and
 * its section of the report. src/gate/steps.ts lists them in order; src/gate/plan.ts asks each
 * hook in that order, and gate.ts runs the plan: the steps `before-wait` ahead of the wait, those
 * `after-wait` once it succeeded. A step imports no other step.
 */
import type { ApiClient } from '../api/api-client.js'
import type { Pace } from '../api/pace.js'
import type { Clock } from '../domain/clock.js'
import type { GateKind } from '../domain/gate-kind.js'
import type { Logger } from '../domain/logger.js'
import type { Branch } from '../domain/schemas.js'
import type { WaitPlan } from '../domain/wait-plan.js'
import type { RunReport } from '../report/report.js'
import type { ReportSection } from '../report/section.js'

/** What a step's run stands on: the gate's client and pace, its clock, and what it gates. */
export interface StepContext {
  client: ApiClient
  clock: Clock
  logger: Logger
  /** Aborted when the job is cancelled. */
  signal: AbortSignal
  pace: Pace
  /** When the run started, and when it must end (monotonic clock time). */
  stepStartedAt: number
  deadline: number
  /** After the wait: the project gated, and the branch resolved from `branch_id`, if any. */
  projectId?: string
  branch?: Branch
}

/**
 * The gate's plan as a step's hook sees it (src/gate/plan.ts): the inputs the run reads, the gate,
 * the wait, and what ends a run that the gate alone would not end.
 */
export interface PlanDraft<Given> {
  inputs: Given
  gate: GateKind
  wait: WaitPlan
  /**
   * The plan's steps are the whole run (a sweep): no branch is resolved, nothing waited for, and
   * each read reads once, as with `wait: false`.
   */
  stepsAlone?: true
  /** `branch_id` names no branch: whether that is the goal, said in the report (then no wait). */
  branchGone?: (report: RunReport, logger: Logger) => boolean
  /** Once the run ended, whatever ended it. */
  ending?: (report: RunReport, logger: Logger) => void
}

/**
 * What the command's --help says of a step (src/command/help.ts), beside what its inputs' entries
 * in the catalog say. `{name}` stands for an input of the catalog: its flag with its value in a
 * usage line (`--before delete|reset`), its flag alone in a reason (`--before`). A step is a gate of
 * its own (a usage line), or brings reasons for a run to end as it could not without it.
 */
interface StepHelp {
  /** Its gate's usage line, after `neon-gate`. */
  usage?: string
  /** Why a run with the step ends in `failure` (exit 1), or in an `error` (exit 3), a reason each. */
  ends: readonly [outcome: 'failure' | 'error', reason: string][]
}

/** A step over the inputs it reads (`Given`), with what it needs beside the context (`Needs`). */
export interface Step<Given, Needs = object> {
  section: ReportSection
  help: StepHelp
  /**
   * Its hook into the plan: the plan with the step in it, shaped as it needs, or undefined when the
   * inputs do not ask for it.
   */
  plan<Draft extends PlanDraft<Given>>(draft: Draft): Draft | undefined
  /** What the report says of the step from the start, whether it runs or not. */
  start?(inputs: Given, report: RunReport): void
  /** Its run, when it is in the plan: ahead of the wait, or once the wait succeeded (section.phase). */
  run(inputs: Given, report: RunReport, context: StepContext & Needs): Promise<void>
}
