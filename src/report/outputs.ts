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

/** As many items (from the first, each cut to size) as fit in a JSON output; notes the rest. */
function fitting(items: object[], name: string, notes: string[]): object[] {
  const kept: object[] = []
  let bytes = 2
  for (const item of items) {
    const cut = bounded(item)
    const itemBytes = Buffer.byteLength(JSON.stringify(cut)) + 1
    if (bytes + itemBytes > MAX_JSON_OUTPUT_BYTES) break
    kept.push(cut)
    bytes += itemBytes
  }
  if (kept.length < items.length) {
    notes.push(
      `The ${name} output holds the first ${kept.length} of ${items.length} (GitHub limits the size of outputs)`
    )
  }
  return kept
}

/** An output's value with its type: text, a number, or JSON (an object or an array). */
export type OutputValue = string | number | object

export interface TypedOutputs {
  /**
   * Every output the run sets. `undefined`: set but empty (a field the operation does not have);
   * an output the run does not set at all is not a key.
   */
  values: Record<string, OutputValue | undefined>
  /** What had to be left out, for the log. */
  notes: string[]
}

/** The outputs with their types: what the command's JSON holds, and the action's text comes from. */
export function typedOutputs(report: RunReport): TypedOutputs {
  const values: Record<string, OutputValue | undefined> = {}
  const notes: string[] = []
  if (report.outcome && report.outcome !== 'error') values.outcome = report.outcome
  if (report.listing) {
    values.projects = fitting(report.listing.projects, 'projects', notes)
    values.project_count = report.listing.projects.length
  }
  if (report.branch) {
    const state = report.branch.current_state
    values.branch_state = state ? truncate(state, MAX_FIELD_CHARS) : undefined
  }
  if (report.database) {
    values.database_state = report.database.state
    const ready = report.database.readyMs
    values.database_ready_ms = ready !== undefined ? Math.round(ready) : undefined
  }
  const { wait } = report
  if (wait && report.elapsedMs !== undefined) values.elapsed_ms = Math.round(report.elapsedMs)
  // Nothing read is no operation, not an empty list of them: those outputs stay unset.
  const seen = wait && seenOperations(report)
  if (wait && seen) {
    const found = primaryOperation(seen, report.failFast ?? false)
    const operation = found && bounded(found)
    Object.assign(values, {
      status: operation?.status,
      operation_id: operation?.id,
      action: operation?.action ?? undefined,
      branch_id: operation?.branch_id ?? undefined,
      endpoint_id: operation?.endpoint_id ?? undefined,
      failures_count: operation?.failures_count ?? undefined,
      error: operation?.error || undefined,
      created_at: operation?.created_at ?? undefined,
      updated_at: operation?.updated_at ?? undefined,
      duration_ms: operation && operationDuration(operation, wait.readAt.get(operation.id))?.ms,
      operation,
      operations: fitting(seen, 'operations', notes)
    })
  }
  return { values, notes }
}

export interface BuiltOutputs {
  /** Every output the run sets, as the strings `setOutput` writes. */
  outputs: Record<string, string>
  /** What had to be left out, for the log. */
  notes: string[]
}

/** An output as text: empty when unset, JSON for objects and arrays. */
export function outputText(value: OutputValue | undefined): string {
  if (value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

export function buildOutputs(report: RunReport): BuiltOutputs {
  const { values, notes } = typedOutputs(report)
  const outputs = Object.fromEntries(
    Object.entries(values).map(([name, value]) => [name, outputText(value)])
  )
  return { outputs, notes }
}
