/*
 * One optional step of the gate (src/steps/<step>/): when it applies, its run, and its section of
 * the report. src/gate/steps.ts lists them in order, and gate.ts runs the list: those `before-wait`
 * ahead of the wait, those `after-wait` once it succeeded. A step imports no other step.
 */
import type { ApiClient } from '../api/api-client.js'
import type { Pace } from '../api/pace.js'
import type { Clock } from '../domain/clock.js'
import type { Logger } from '../domain/logger.js'
import type { Branch } from '../domain/schemas.js'
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

/** A step over the inputs it reads (`Given`), with what it needs beside the context (`Needs`). */
export interface Step<Given, Needs = object> {
  section: ReportSection
  /** Whether the inputs ask for it. */
  applies(inputs: Given): boolean
  /** What the report says of the step from the start, whether it applies or not. */
  start?(inputs: Given, report: RunReport): void
  /** Its run, when it applies: ahead of the wait, or once the wait succeeded (section.phase). */
  run(inputs: Given, report: RunReport, context: StepContext & Needs): Promise<void>
  /** `branch_id` names no branch: true when that is the step's goal (gone before a delete). */
  branchGone?(inputs: Given, report: RunReport, logger: Logger): boolean
  /** Once the run ended, whatever ended it. */
  end?(inputs: Given, report: RunReport, logger: Logger): void
}
