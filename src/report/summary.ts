/*
 * The report as a person reads it: the job summary and the comment (HTML), and the command's
 * standard output (plain text). What it holds is said here once; report-format.ts writes it down.
 */
import { formatDuration } from '../domain/duration.js'
import { inFlightPhrase, type OperationFacts, operationFacts, outcomeLine } from './headline.js'
import { branchStatePhrase, plural } from '../domain/phrase.js'
import { nothingRead, operationDuration, type RunReport } from './report.js'
import { renderTimeline } from './timeline.js'
import { databaseNotTried } from './database-words.js'
import { forLogLines, truncateBytes } from '../domain/untrusted-text.js'
import type { Outcome } from '../wait/wait-for-operations.js'
import type { Operation } from '../domain/schemas.js'
import type { ProjectListing } from '../api/resources/projects.js'
import { formatDate, HTML_FORMAT, type ReportFormat, TEXT_FORMAT } from './report-format.js'
import { teardownSection } from './teardown-words.js'

const OUTCOME_LABELS: Record<Outcome, string> = {
  success: '✅ success',
  failure: '❌ failure',
  timeout: '⌛ timeout',
  pending: '⏳ pending',
  cancelled: '🚫 cancelled'
}

/**
 * Bounds that keep the summary far below GitHub's 1 MiB whatever the API sends: rows per table, and
 * characters of API text per cell (HTML escaping grows text at most 6-fold).
 */
interface SummaryLimits {
  operationRows: number
  /** 0: no projects table. */
  projectRows: number
}
const SUMMARY_LIMITS: SummaryLimits = { operationRows: 50, projectRows: 100 }
/** GitHub drops a step summary over 1 MiB; the action's stays within half of that, in UTF-8 bytes. */
export const MAX_SUMMARY_BYTES = 512 * 1024
const MAX_ERROR_CHARS = 500
const MAX_MESSAGE_CHARS = 2000
const MAX_UNAVAILABLE_IDS = 20

/** A table of the first `maxRows` rows, with a last row saying how many more there are. */
function table<T>(
  format: ReportFormat,
  headers: string[],
  items: T[],
  { maxRows, what }: { maxRows: number; what: string },
  cells: (item: T) => string[]
): string {
  const more = items.length - maxRows
  const left = more > 0 ? `… and ${more} more ${what} not shown` : undefined
  return format.table(headers, items.slice(0, maxRows).map(cells), left)
}

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
 * flight beside it.
 */
function outcomeLines(format: ReportFormat, report: RunReport, facts: OperationFacts): string[] {
  const notTried = databaseNotTried(report)
  const database = notTried ? [format.paragraph(`The database was not tried: ${notTried}.`)] : []
  if (report.outcome === 'error' || !report.outcome) {
    const error = format.text(report.error, MAX_MESSAGE_CHARS)
    return [format.paragraph(`${format.strong('❌ Error:')} ${error}`), ...database]
  }
  const { outcome, elapsedMs } = report
  // The whole run: a timeout during the database check is not one "after" the wait alone.
  const after =
    (outcome === 'timeout' || outcome === 'cancelled') && report.wait && elapsedMs !== undefined
      ? ` after ${formatDuration(elapsedMs)}`
      : ''
  const label = `${format.strong(OUTCOME_LABELS[outcome])}${after}`
  const line = outcomeLine(report, facts)
  const lines = [format.paragraph(`${label}${line ? `: ${format.phrase(line)}` : ''}`)]
  if (outcome === 'failure' && facts.inFlight.length > 0) {
    lines.push(format.paragraph(`⏳ ${format.phrase(inFlightPhrase(facts))}`))
  }
  return [...lines, ...database]
}

/**
 * The report's first line as plain text, API text made safe for a log: the outcome and why
 * (`❌ failure: start_compute on br-7 ended in error: "…"`), or the error.
 */
export function headlineText(report: RunReport): string {
  return forLogLines(outcomeLines(TEXT_FORMAT, report, operationFacts(report))[0])
}

/** The report in `format`: the outcome and why, the counts, the operations, the projects. */
function renderReport(
  report: RunReport,
  format: ReportFormat,
  { limits = SUMMARY_LIMITS, about = [] }: SummaryOptions
): string {
  const facts = operationFacts(report)
  const parts = [
    format.heading('Neon operations gate', 2),
    ...outcomeLines(format, report, facts),
    countsLine(format, report, about)
  ]
  if (report.wait?.reason) {
    parts.push(format.paragraph(format.text(report.wait.reason, MAX_MESSAGE_CHARS)))
  }
  parts.push(...teardownSection(format, report))
  parts.push(...operationsSection(format, report, facts, limits))
  parts.push(...recentFailuresSection(format, report, facts, limits))
  if (report.listing && limits.projectRows > 0)
    parts.push(...projectsSection(format, report.listing, limits))
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
export function renderSummary(report: RunReport, options: SummaryOptions = {}): string {
  return renderReport(report, HTML_FORMAT, options)
}

/**
 * The same report as plain text, for the command's standard output: the outcome first, no Markdown,
 * and no line a CI log could read as a command.
 */
export function renderTextReport(report: RunReport): string {
  return forLogLines(renderReport(report, TEXT_FORMAT, {}))
}

/** What was read of the operations: the timeline and the table, or why there is none. */
function operationsSection(
  format: ReportFormat,
  report: RunReport,
  facts: OperationFacts,
  limits: SummaryLimits
): string[] {
  const operations = facts.seen
  if (operations === undefined) {
    // A branch gone before the first poll ends a delete at once: no error, nothing left to read.
    return report.projectId && report.teardown?.preflight !== 'gone'
      ? [format.paragraph(`${nothingRead(report)}: the state of the operations is unknown.`)]
      : []
  }
  if (operations.length === 0) return [format.paragraph('No operation in flight.')]
  const parts = [format.heading(`Operations (${operations.length})`, 3)]
  const timeline = renderTimeline(operations, facts.readAt, report.database)
  const chart = timeline && format.chart(timeline)
  if (chart) parts.push(chart)
  parts.push(operationsTable(format, operations, facts, limits))
  return parts
}

/** The table of operations: what a person checks on the console. */
function operationsTable(
  format: ReportFormat,
  operations: Operation[],
  facts: OperationFacts,
  limits: SummaryLimits
): string {
  const headings = ['Operation', 'Action', 'Branch', 'Compute', 'Status', 'Duration', 'Date']
  const row = (operation: Operation) => {
    const duration = operationDuration(operation, facts.readAt.get(operation.id))
    const failures = operation.failures_count
      ? ` (${plural(operation.failures_count, 'failure')})`
      : ''
    const status = format.status(operation.status, failures)
    const { code } = format
    return [
      code(operation.id),
      format.text(operation.action),
      code(operation.branch_id),
      code(operation.endpoint_id),
      operation.error
        ? format.below(status, format.text(operation.error, MAX_ERROR_CHARS))
        : status,
      duration ? `${formatDuration(duration.ms)}${duration.soFar ? ' so far' : ''}` : '',
      formatDate(format, operation.created_at)
    ]
  }
  return table(
    format,
    headings,
    operations,
    { maxRows: limits.operationRows, what: 'operations' },
    row
  )
}

/**
 * What the first read found over in failure that did not fail the gate (a warning each): on the
 * gated branch a `cancelled` one still the newest on its compute; on the whole project (or before a
 * teardown) what failed in the 15 minutes before the gate started.
 */
function recentFailuresSection(
  format: ReportFormat,
  report: RunReport,
  facts: OperationFacts,
  limits: SummaryLimits
): string[] {
  const operations = (report.recentFailures ?? []).flatMap((failure) =>
    failure.failsGate ? [] : [failure.operation]
  )
  if (operations.length === 0) return []
  const why = report.before
    ? `in the 15 minutes before the gate started; before a ${report.before}, a failure is no reason to stop: a broken branch is one to ${report.before}`
    : report.branch
      ? 'still the newest on its compute (or of its action on the branch); a cancelled operation does not fail the gate'
      : 'in the 15 minutes before the gate started; the project gate does not fail on them; gate on one branch to fail on its own'
  return [
    format.heading(`⚠️ Ended in failure before the gate started (${operations.length})`, 3),
    format.paragraph(`The newest operation on its compute or of its action, ${why}.`),
    operationsTable(format, operations, facts, limits)
  ]
}

function projectsSection(
  format: ReportFormat,
  listing: ProjectListing,
  limits: SummaryLimits
): string[] {
  const { projects, unavailableProjectIds } = listing
  const parts = [
    format.heading(`Projects (${projects.length})`, 3),
    table(
      format,
      ['Name', 'Id', 'Region', 'Engine version', 'Created'],
      projects,
      { maxRows: limits.projectRows, what: 'projects' },
      (project) => [
        format.text(project.name),
        format.code(project.id),
        format.text(project.region_id),
        project.pg_version != null ? String(project.pg_version) : '',
        formatDate(format, project.created_at)
      ]
    )
  ]
  if (unavailableProjectIds.length > 0) {
    const shown = unavailableProjectIds.slice(0, MAX_UNAVAILABLE_IDS).map(format.code)
    const more = unavailableProjectIds.length - shown.length
    parts.push(
      format.paragraph(
        `Unavailable projects: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
      )
    )
  }
  return parts
}

/**
 * The summary within `maxBytes` of UTF-8: the tables lose half their rows until it fits, and a
 * last cut catches anything left.
 */
export function renderSummaryWithin(
  report: RunReport,
  maxBytes: number,
  { limits = SUMMARY_LIMITS, about }: SummaryOptions = {}
): string {
  for (let rows = limits; ;) {
    const text = renderSummary(report, { limits: rows, about })
    const fewest = rows.operationRows === 0 && rows.projectRows === 0
    if (Buffer.byteLength(text) <= maxBytes || fewest) return truncateBytes(text, maxBytes)
    rows = {
      operationRows: Math.floor(rows.operationRows / 2),
      projectRows: Math.floor(rows.projectRows / 2)
    }
  }
}
