/*
 * What a step adds to the report, as report/ sees it: a section with optional parts, which the
 * summary, the first line, the error line, the outputs, the timeline and the annotations loop over
 * in the steps' order. report/ knows no step: each step's folder (src/steps/) brings its section,
 * and src/gate/steps.ts lists them.
 */
import type { Phrase } from '../domain/phrase.js'
import type { OperationFacts } from './operation-facts.js'
import type { ReportFormat } from './report-format.js'
import type { RunReport } from './report.js'
import type { TimelineTask } from './timeline.js'

/** An output's value with its type: text, a number, a boolean, or JSON (an object or an array). */
export type OutputValue = string | number | boolean | object

/**
 * Bounds that keep the summary far below GitHub's 1 MiB whatever the API sends: rows per table
 * (0: no projects table).
 */
export interface SummaryLimits {
  operationRows: number
  projectRows: number
}

/** An annotation on the checks list and the run's summary page. */
export interface Annotation {
  title: string
  message: string
}

/** A JSON array output, cut with the operations' to fit GitHub's limit. */
interface OutputList {
  name: string
  items: object[]
  /**
   * Each item kept whole: no text of it is cut to size (a name a recipe reads must be the name);
   * the list is still cut by whole items to fit.
   */
  whole?: true
}

export interface ReportSection {
  /**
   * `before-wait`: the step ran before the wait (its outputs come before `branch_state`);
   * `after-wait`: once the wait succeeded (its outputs come after it).
   */
  phase: 'before-wait' | 'after-wait'
  /** The first line after the outcome's label, when this step decided the outcome. */
  outcomeLine?(report: RunReport, facts: OperationFacts): Phrase | undefined
  /** With no operation read and no wait: what the step found (`3 projects`). */
  unwaitedLine?(report: RunReport): Phrase | undefined
  /** What a success adds to the operations that finished (`the database … answered`). */
  successLine?(report: RunReport): Phrase | undefined
  /** The step's error line, when it failed the gate. */
  errorLine?(report: RunReport): string | undefined
  /** Paragraphs under the first line, whatever the outcome (what the step could not do). */
  underOutcome?(format: ReportFormat, report: RunReport): string[]
  /** Its part of the summary, above the operations (what decided) or below them (what was listed). */
  summary?: {
    place: 'above-operations' | 'below-operations'
    render(format: ReportFormat, report: RunReport, limits: SummaryLimits): string[]
  }
  /** Its outputs, in order, and its JSON array. */
  outputs?(
    report: RunReport
  ): { values: Record<string, OutputValue | undefined>; list?: OutputList } | undefined
  /** Its task after the operations in the timeline. */
  timelineTask?(report: RunReport): TimelineTask | undefined
  /** Its annotation, when it decided the failure; `alone`: the operations get none beside it. */
  annotation?(
    report: RunReport,
    errorLine: string
  ): { annotation: Annotation; alone: boolean } | undefined
}

/** The first part a section gives, in the steps' order. */
export function firstOf<T>(
  sections: readonly ReportSection[],
  part: (section: ReportSection) => T | undefined
): T | undefined {
  for (const section of sections) {
    const found = part(section)
    if (found !== undefined) return found
  }
  return undefined
}
