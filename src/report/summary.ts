import { formatDuration } from '../domain/duration.js'
import { statusLabel } from '../domain/operation-status.js'
import { inFlightPhrase, type OperationFacts, operationFacts, outcomeLine } from './headline.js'
import { branchStatePhrase, phraseHtml, plural } from '../domain/phrase.js'
import { nothingRead, operationDuration, type RunReport } from './report.js'
import { renderTimeline } from './timeline.js'
import { databaseNotTried } from './database-words.js'
import { forHtml, truncateBytes } from '../domain/untrusted-text.js'
import type { Outcome } from '../wait/wait-for-operations.js'
import type { Operation } from '../domain/schemas.js'
import type { ProjectListing } from '../api/resources/projects.js'
import { apiTime } from '../domain/api-time.js'

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
export interface SummaryLimits {
  operationRows: number
  /** 0: no projects table. */
  projectRows: number
}
const SUMMARY_LIMITS: SummaryLimits = { operationRows: 50, projectRows: 100 }
/** GitHub drops a step summary over 1 MiB; the action's stays within half of that, in UTF-8 bytes. */
export const MAX_SUMMARY_BYTES = 512 * 1024
const MAX_ID_CHARS = 80
const MAX_TEXT_CHARS = 120
const MAX_ERROR_CHARS = 500
const MAX_MESSAGE_CHARS = 2000
const MAX_UNAVAILABLE_IDS = 20

/** A table of the first `maxRows` rows, with a last row saying how many more there are. */
function table<T>(
  headers: string[],
  items: T[],
  maxRows: number,
  what: string,
  cells: (item: T) => string[]
): string {
  const head = headers.map((header) => `<th>${header}</th>`).join('')
  const body = items.slice(0, maxRows).map(
    (item) =>
      `<tr>${cells(item)
        .map((cell) => `<td>${cell}</td>`)
        .join('')}</tr>`
  )
  if (items.length > maxRows) {
    body.push(
      `<tr><td colspan="${headers.length}">… and ${items.length - maxRows} more ${what} not shown</td></tr>`
    )
  }
  return `<table>\n<tr>${head}</tr>\n${body.join('\n')}\n</table>`
}

function code(text: string | null | undefined): string {
  return text ? `<code>${forHtml(text, MAX_ID_CHARS)}</code>` : ''
}

function text(value: string | null | undefined): string {
  return forHtml(value ?? '', MAX_TEXT_CHARS)
}

function date(iso: string | null | undefined): string {
  if (!iso) return ''
  const time = apiTime(iso)
  if (time === undefined) return text(iso)
  return new Date(time)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
}

function runFacts(run: RunReport['run']): string[] {
  const facts: string[] = []
  const pullRequest = run?.pullRequest
  if (pullRequest) {
    const label = `#${pullRequest.number}`
    const url =
      pullRequest.url && /^https?:\/\//.test(pullRequest.url) ? pullRequest.url : undefined
    facts.push(`pull request ${url ? `<a href="${forHtml(url, 300)}">${label}</a>` : label}`)
  }
  if (run?.sha) facts.push(`${pullRequest ? 'head' : 'commit'} ${code(run.sha.slice(0, 7))}`)
  return facts
}

/** `waited 7.1 s · 8 polls · 8 requests · 0 retries · project …`: the counts, below the outcome. */
function countsLine(report: RunReport): string {
  const facts = runFacts(report.run)
  if (report.wait) {
    facts.push(`waited ${formatDuration(report.wait.elapsedMs)}`)
    facts.push(plural(report.wait.polls, 'poll'))
  }
  facts.push(plural(report.requests.requests, 'request'))
  facts.push(plural(report.requests.retries, 'retry', 'retries'))
  if (report.pace && report.pace.rateLimited > 0) {
    facts.push(`${report.pace.rateLimited} × HTTP 429`)
    facts.push(`slowest pace ${formatDuration(report.pace.slowestMs)}`)
  }
  if (report.projectId) facts.push(`project ${code(report.projectId)}`)
  if (report.branch) {
    facts.push(`branch ${text(report.branch.name)} ${code(report.branch.id)}`)
    if (report.branch.current_state) {
      facts.push(`branch state ${phraseHtml(branchStatePhrase(report.branch))}`)
    }
  }
  return `<p>${facts.join(' · ')}</p>`
}

/**
 * The first lines, which answer "why": the outcome and what decided it (what failed; what was still
 * in flight, and for how long; how many finished), or the error; on a failure, what was still in
 * flight beside it.
 */
function outcomeLines(report: RunReport, facts: OperationFacts): string[] {
  const notTried = databaseNotTried(report)
  const database = notTried ? [`<p>The database was not tried: ${notTried}.</p>`] : []
  if (report.outcome === 'error' || !report.outcome) {
    return [
      `<p><b>❌ Error:</b> ${forHtml(report.error ?? '', MAX_MESSAGE_CHARS)}</p>`,
      ...database
    ]
  }
  const { outcome, wait } = report
  const after = (outcome === 'timeout' || outcome === 'cancelled') && wait
  const label = `<b>${OUTCOME_LABELS[outcome]}</b>${after ? ` after ${formatDuration(wait.elapsedMs)}` : ''}`
  const line = outcomeLine(report, facts)
  const lines = [`<p>${label}${line ? `: ${phraseHtml(line)}` : ''}</p>`]
  if (outcome === 'failure' && facts.inFlight.length > 0) {
    lines.push(`<p>⏳ ${phraseHtml(inFlightPhrase(facts))}</p>`)
  }
  return [...lines, ...database]
}

/**
 * The job summary (and, with smaller limits, the pull-request comment): what a person checks on the
 * console. HTML, in one block, with the timeline as a Mermaid block between blank lines.
 */
export function renderSummary(report: RunReport, limits: SummaryLimits = SUMMARY_LIMITS): string {
  const facts = operationFacts(report)
  const parts = [
    '<h2>Neon operations gate</h2>',
    ...outcomeLines(report, facts),
    countsLine(report)
  ]
  if (report.wait?.reason) parts.push(`<p>${forHtml(report.wait.reason, MAX_MESSAGE_CHARS)}</p>`)
  parts.push(...operationsSection(report, facts, limits))
  parts.push(...recentFailuresSection(report, facts, limits))
  if (report.listing && limits.projectRows > 0)
    parts.push(...projectsSection(report.listing, limits))
  return parts.join('\n') + '\n'
}

/** What was read of the operations: the timeline and the table, or why there is none. */
function operationsSection(
  report: RunReport,
  facts: OperationFacts,
  limits: SummaryLimits
): string[] {
  const operations = facts.seen
  if (operations === undefined) {
    return report.projectId
      ? [`<p>${nothingRead(report.outcome)}: the state of the operations is unknown.</p>`]
      : []
  }
  if (operations.length === 0) return ['<p>No operation in flight.</p>']
  const parts = [`<h3>Operations (${operations.length})</h3>`]
  const timeline = renderTimeline(operations, facts.readAt, report.database)
  if (timeline) parts.push(`\n\`\`\`mermaid\n${timeline}\n\`\`\`\n`)
  parts.push(operationsTable(operations, facts, limits))
  return parts
}

/** The table of operations: what a person checks on the console. */
function operationsTable(
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
    const error = operation.error ? `<br>${forHtml(operation.error, MAX_ERROR_CHARS)}` : ''
    return [
      code(operation.id),
      text(operation.action),
      code(operation.branch_id),
      code(operation.endpoint_id),
      text(statusLabel(operation.status) + failures) + error,
      duration ? `${formatDuration(duration.ms)}${duration.soFar ? ' so far' : ''}` : '',
      date(operation.created_at)
    ]
  }
  return table(headings, operations, limits.operationRows, 'operations', row)
}

/**
 * What the first read found already over in failure that did not fail the gate (a warning each):
 * the newest of its action on its branch, in the 15 minutes before the gate started.
 */
function recentFailuresSection(
  report: RunReport,
  facts: OperationFacts,
  limits: SummaryLimits
): string[] {
  const warned = (report.recentFailures ?? [])
    .filter((failure) => !failure.failsGate)
    .map((failure) => failure.operation)
  if (warned.length === 0) return []
  const why = report.branch
    ? 'a cancelled operation does not fail the gate'
    : 'the project gate does not fail on them; gate on one branch (branch_id) to fail on its own'
  return [
    `<h3>⚠️ Ended in failure before the gate started (${warned.length})</h3>`,
    `<p>The newest operation of its action on its branch, in the 15 minutes before the gate started; ${why}.</p>`,
    operationsTable(warned, facts, limits)
  ]
}

function projectsSection(listing: ProjectListing, limits: SummaryLimits): string[] {
  const { projects, unavailableProjectIds } = listing
  const parts = [
    `<h3>Projects (${projects.length})</h3>`,
    table(
      ['Name', 'Id', 'Region', 'Engine version', 'Created'],
      projects,
      limits.projectRows,
      'projects',
      (project) => [
        text(project.name),
        code(project.id),
        text(project.region_id),
        project.pg_version != null ? String(project.pg_version) : '',
        date(project.created_at)
      ]
    )
  ]
  if (unavailableProjectIds.length > 0) {
    const shown = unavailableProjectIds.slice(0, MAX_UNAVAILABLE_IDS).map(code)
    const more = unavailableProjectIds.length - shown.length
    parts.push(
      `<p>Unavailable projects: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}</p>`
    )
  }
  return parts
}

/**
 * The summary, `frame`d (the comment adds its marker and footer), within `maxBytes` of UTF-8: the
 * tables lose half their rows until it fits, and a last cut catches anything left.
 */
export function renderSummaryWithin(
  report: RunReport,
  maxBytes: number,
  limits: SummaryLimits = SUMMARY_LIMITS,
  frame: (html: string) => string = (html) => html
): string {
  for (let rows = limits; ;) {
    const text = frame(renderSummary(report, rows))
    const fewest = rows.operationRows === 0 && rows.projectRows === 0
    if (Buffer.byteLength(text) <= maxBytes || fewest) return truncateBytes(text, maxBytes)
    rows = {
      operationRows: Math.floor(rows.operationRows / 2),
      projectRows: Math.floor(rows.projectRows / 2)
    }
  }
}
