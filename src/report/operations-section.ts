/*
 * The summary's part on the operations: the timeline and the table of what was read, and what had
 * ended in failure before the gate started.
 */
import { plural } from '../domain/phrase.js'
import type { Operation } from '../domain/schemas.js'
import { durationOf, type OperationFacts } from './operation-facts.js'
import { formatDate, type ReportFormat } from './report-format.js'
import { durationWords, nothingRead, type RunReport } from './report.js'
import { firstOf, type ReportSection, type SummaryLimits } from './section.js'
import { renderTimeline } from './timeline.js'

const MAX_ERROR_CHARS = 500

/** A table of the first `maxRows` rows, with a last row saying how many more there are. */
export function limitedTable<T>(
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

/** What was read of the operations: the timeline and the table, or why there is none. */
export function operationsSection(
  sections: readonly ReportSection[],
  format: ReportFormat,
  report: RunReport,
  facts: OperationFacts,
  limits: SummaryLimits
): string[] {
  const operations = facts.seen
  if (operations === undefined) {
    // A success with nothing read: the plan's goal held before the wait (a branch already gone).
    // A plan without a wait (a sweep) reads no operation: nothing of them to say.
    return report.projectId && report.waitPlan && report.outcome !== 'success'
      ? [format.paragraph(`${nothingRead(report)}: the state of the operations is unknown.`)]
      : []
  }
  if (operations.length === 0) return [format.paragraph('No operation in flight.')]
  const parts = [format.heading(`Operations (${operations.length})`, 3)]
  const after = firstOf(sections, (section) => section.timelineTask?.(report))
  const timeline = renderTimeline(operations, facts.readAt, after)
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
    const duration = durationOf(operation, facts)
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
      duration ? durationWords(duration) : '',
      formatDate(format, operation.created_at)
    ]
  }
  const shown = { maxRows: limits.operationRows, what: 'operations' }
  return limitedTable(format, headings, operations, shown, row)
}

/**
 * What the first read found over in failure that did not fail the gate (a warning each): on the
 * gated branch a `cancelled` one still the newest on its compute; on the whole project (or until it
 * was idle) what failed in the 15 minutes before the gate started.
 */
export function recentFailuresSection(
  format: ReportFormat,
  report: RunReport,
  facts: OperationFacts,
  limits: SummaryLimits
): string[] {
  const operations = (report.recentFailures ?? []).flatMap((failure) =>
    failure.failsGate ? [] : [failure.operation]
  )
  if (operations.length === 0) return []
  const idle = report.waitPlan?.idle
  const why = idle
    ? `in the 15 minutes before the gate started; ${idle.failuresWhy}`
    : report.branch
      ? 'still the newest on its compute (or of its action on the branch); a cancelled operation does not fail the gate'
      : 'in the 15 minutes before the gate started; the project gate does not fail on them; gate on one branch to fail on its own'
  return [
    format.heading(`⚠️ Ended in failure before the gate started (${operations.length})`, 3),
    format.paragraph(`The newest operation on its compute or of its action, ${why}.`),
    operationsTable(format, operations, facts, limits)
  ]
}
