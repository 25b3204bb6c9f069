/*
 * The report as a person reads it: the job summary and the comment (HTML), and the command's
 * standard output (plain text). What it holds is said here once; report-format.ts writes it down.
 * Each step's part comes from its section (section.ts), in the steps' order.
 */
import { formatDuration } from '../domain/duration.js'
import { branchStatePhrase, plural } from '../domain/phrase.js'
import { forLogLines, truncateBytes } from '../domain/untrusted-text.js'
import type { Outcome } from '../wait/wait-for-operations.js'
import { outcomeLine } from './headline.js'
import { inFlightPhrase, type OperationFacts, operationFacts } from './operation-facts.js'
import { operationsSection, recentFailuresSection } from './operations-section.js'
import { HTML_FORMAT, type ReportFormat, TEXT_FORMAT } from './report-format.js'
import type { RunReport } from './report.js'
import type { ReportSection, SummaryLimits } from './section.js'

const OUTCOME_LABELS: Record<Outcome, string> = {
  success: '✅ success',
  failure: '❌ failure',
  timeout: '⌛ timeout',
  pending: '⏳ pending',
  cancelled: '🚫 cancelled'
}

/** Rows per table of the job summary (the comment has fewer). */
const SUMMARY_LIMITS: SummaryLimits = { operationRows: 50, projectRows: 100 }
/** GitHub drops a step summary over 1 MiB; the action's stays within half of that, in UTF-8 bytes. */
export const MAX_SUMMARY_BYTES = 512 * 1024
const MAX_MESSAGE_CHARS = 2000

/**
 * `waited 7.1 s · 8 polls · 8 requests · 0 retries · project …`: the counts, below the outcome,
 * after what the front end says the run is for (`about`).
 */
function countsLine(format: ReportFormat, report: RunReport, about: string[]): string {
  const { code } = format
  const facts = [...about]
  if (report.wait) {
    if (report.elapsedMs !== undefined) facts.push(`waited ${formatDuration(report.elapsedMs)}`)
    facts.push(plural(report.wait.polls, 'poll'))
  }
  facts.push(plural(report.requests.requests, 'request'))
  facts.push(plural(report.requests.retries, 'retry', 'retries'))
  if (report.pace && report.pace.rateLimited > 0) {
    facts.push(`${report.pace.rateLimited} × HTTP 429`)
    facts.push(`slowest pace ${formatDuration(report.pace.slowestMs)}`)
  }
  if (report.gate) facts.push(`gate ${code(report.gate)}`)
  if (report.projectId) facts.push(`project ${code(report.projectId)}`)
  if (report.branch) {
    facts.push(`branch ${format.text(report.branch.name)} ${code(report.branch.id)}`)
    if (report.branch.current_state) {
      facts.push(`branch state ${format.phrase(branchStatePhrase(report.branch))}`)
    }
  }
  return format.paragraph(facts.join(' · '))
}

/**
 * The first lines, which answer "why": the outcome and what decided it (what failed; what was still
 * in flight, and for how long; how many finished), or the error; on a failure, what was still in
 * flight beside it; then what a step could not do.
 */
function outcomeLines(
  sections: readonly ReportSection[],
  format: ReportFormat,
  report: RunReport,
  facts: OperationFacts
): string[] {
  const under = sections.flatMap((section) => section.underOutcome?.(format, report) ?? [])
  if (report.outcome === 'error') {
    const error = format.text(report.error, MAX_MESSAGE_CHARS)
    return [format.paragraph(`${format.strong('❌ Error:')} ${error}`), ...under]
  }
  const { outcome, elapsedMs } = report
  // The whole run: a timeout during a step after the wait is not one "after" the wait alone.
  const after =
    (outcome === 'timeout' || outcome === 'cancelled') && report.wait && elapsedMs !== undefined
      ? ` after ${formatDuration(elapsedMs)}`
      : ''
  const label = `${format.strong(OUTCOME_LABELS[outcome])}${after}`
  const line = outcomeLine(sections, report, facts)
  const lines = [format.paragraph(`${label}${line ? `: ${format.phrase(line)}` : ''}`)]
  if (outcome === 'failure' && facts.inFlight.length > 0) {
    lines.push(format.paragraph(`⏳ ${format.phrase(inFlightPhrase(facts))}`))
  }
  return [...lines, ...under]
}

/**
 * The report's first line as plain text, API text made safe for a log: the outcome and why
 * (`❌ failure: start_compute on br-7 ended in error: "…"`), or the error.
 */
export function headlineText(sections: readonly ReportSection[], report: RunReport): string {
  return forLogLines(outcomeLines(sections, TEXT_FORMAT, report, operationFacts(report))[0])
}

/** The report in `format`: the outcome and why, the counts, the steps' parts and the operations. */
function renderReport(
  sections: readonly ReportSection[],
  report: RunReport,
  format: ReportFormat,
  { limits = SUMMARY_LIMITS, about = [] }: SummaryOptions
): string {
  const facts = operationFacts(report)
  const placed = (place: 'above-operations' | 'below-operations') =>
    sections.flatMap((section) =>
      section.summary?.place === place ? section.summary.render(format, report, limits) : []
    )
  const parts = [
    format.heading('Neon operations gate', 2),
    ...outcomeLines(sections, format, report, facts),
    countsLine(format, report, about)
  ]
  for (const note of [report.wait?.reason, report.historyNotJudged]) {
    if (note) parts.push(format.paragraph(format.text(note, MAX_MESSAGE_CHARS)))
  }
  parts.push(...placed('above-operations'))
  parts.push(...operationsSection(sections, format, report, facts, limits))
  parts.push(...recentFailuresSection(format, report, facts, limits))
  parts.push(...placed('below-operations'))
  return format.join(parts)
}

export interface SummaryOptions {
  limits?: SummaryLimits
  /**
   * What the run is for, as the front end words it, in HTML that is safe as it stands (the action:
   * the pull request and its head commit): first in the counts line.
   */
  about?: string[]
}

/**
 * The job summary (and, with smaller limits, the pull-request comment): what a person checks on the
 * console. HTML, in one block, with the timeline as a Mermaid block between blank lines.
 */
export function renderSummary(
  sections: readonly ReportSection[],
  report: RunReport,
  options: SummaryOptions = {}
): string {
  return renderReport(sections, report, HTML_FORMAT, options)
}

/**
 * The same report as plain text, for the command's standard output: the outcome first, no Markdown,
 * and no line a CI log could read as a command.
 */
export function renderTextReport(sections: readonly ReportSection[], report: RunReport): string {
  return forLogLines(renderReport(sections, report, TEXT_FORMAT, {}))
}

/**
 * The summary within `maxBytes` of UTF-8: the tables lose half their rows until it fits, and a
 * last cut catches anything left.
 */
export function renderSummaryWithin(
  sections: readonly ReportSection[],
  report: RunReport,
  maxBytes: number,
  { limits = SUMMARY_LIMITS, about }: SummaryOptions = {}
): string {
  for (let rows = limits; ;) {
    const text = renderSummary(sections, report, { limits: rows, about })
    const fewest = rows.operationRows === 0 && rows.projectRows === 0
    if (Buffer.byteLength(text) <= maxBytes || fewest) return truncateBytes(text, maxBytes)
    rows = {
      operationRows: Math.floor(rows.operationRows / 2),
      projectRows: Math.floor(rows.projectRows / 2)
    }
  }
}
