import { type RunReport, operationDuration, primaryOperation, seenOperations } from './report.js'
import { truncate } from '../domain/untrusted-text.js'

/**
 * GitHub limits one output to 1 MB and all of a job's outputs together; these bounds keep every
 * output well under that whatever the API sends. Counted in UTF-8 bytes, as GitHub counts.
 */
const MAX_JSON_OUTPUT_BYTES = 512 * 1024
const MAX_FIELD_CHARS = 200
const MAX_ERROR_CHARS = 4000

/** Every string field of an API object cut to size (the error text longer than the rest). */
function bounded<T extends object>(record: T): T {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [
      key,
      typeof value === 'string'
        ? truncate(value, key === 'error' ? MAX_ERROR_CHARS : MAX_FIELD_CHARS)
        : value
    ])
  ) as T
}

/** A JSON array of as many items (from the first) as fit; says how many were left out. */
function jsonArray(items: object[], name: string, notes: string[]): string {
  const parts: string[] = []
  let bytes = 2
  for (const item of items) {
    const json = JSON.stringify(bounded(item))
    const itemBytes = Buffer.byteLength(json) + 1
    if (bytes + itemBytes > MAX_JSON_OUTPUT_BYTES) break
    parts.push(json)
    bytes += itemBytes
  }
  if (parts.length < items.length) {
    notes.push(
      `The ${name} output holds the first ${parts.length} of ${items.length} (GitHub limits the size of outputs)`
    )
  }
  return `[${parts.join(',')}]`
}

export interface BuiltOutputs {
  /** Every output the run sets, as the strings `setOutput` writes. */
  outputs: Record<string, string>
  /** What had to be left out, for the log. */
  notes: string[]
}

export function buildOutputs(report: RunReport): BuiltOutputs {
  const outputs: Record<string, string> = {}
  const notes: string[] = []
  if (report.outcome && report.outcome !== 'error') outputs.outcome = report.outcome
  if (report.listing) {
    outputs.projects = jsonArray(report.listing.projects, 'projects', notes)
    outputs.project_count = String(report.listing.projects.length)
  }
  if (report.branch) {
    outputs.branch_state = truncate(report.branch.current_state ?? '', MAX_FIELD_CHARS)
  }
  if (report.database) {
    outputs.database_state = report.database.state
    const ready = report.database.readyMs
    outputs.database_ready_ms = ready !== undefined ? String(Math.round(ready)) : ''
  }
  const { wait } = report
  if (wait) outputs.elapsed_ms = String(Math.round(wait.elapsedMs))
  // Nothing read is no operation, not an empty list of them: those outputs stay unset.
  const seen = wait && seenOperations(report)
  if (wait && seen) {
    const found = primaryOperation(seen)
    const operation = found && bounded(found)
    const duration = operation && operationDuration(operation, wait.readAt.get(operation.id))?.ms
    Object.assign(outputs, {
      status: operation?.status ?? '',
      operation_id: operation?.id ?? '',
      action: operation?.action ?? '',
      branch_id: operation?.branch_id ?? '',
      endpoint_id: operation?.endpoint_id ?? '',
      failures_count: operation?.failures_count != null ? String(operation.failures_count) : '',
      error: operation?.error ?? '',
      created_at: operation?.created_at ?? '',
      updated_at: operation?.updated_at ?? '',
      duration_ms: duration !== undefined ? String(duration) : '',
      operation: operation ? JSON.stringify(operation) : '',
      operations: jsonArray(seen, 'operations', notes)
    })
  }
  return { outputs, notes }
}
