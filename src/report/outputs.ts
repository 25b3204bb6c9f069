import type { Operation } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'
import { type RunReport, operationDuration, primaryOperation, seenOperations } from './report.js'
import type { OutputValue, ReportSection } from './section.js'

/**
 * GitHub allows 1 MB of outputs per job, counted as UTF-16 (two bytes a code unit), names
 * included: a job that maps more fails after the step passed. All of one step's outputs stay under
 * this, with room for `comment_url`, written after the rest. The JSON arrays are cut first.
 */
const MAX_OUTPUTS_UTF16_BYTES = 990_000
const MAX_FIELD_CHARS = 200
const MAX_ERROR_CHARS = 4000

/** What an output costs against GitHub's limit: its name and its text, as UTF-16. */
function utf16Bytes(name: string, text: string): number {
  return 2 * (name.length + text.length)
}

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

/** A JSON array output: its items cut to size, and what each costs in it (UTF-16, its comma too). */
interface JsonList {
  name: string
  items: object[]
  costs: number[]
  /** The whole list: the brackets, and every item. */
  need: number
}

/** `whole`: the items as they are; else each text field cut to size. */
function jsonList(name: string, items: object[], whole = false): JsonList {
  const cut = whole ? items : items.map(bounded)
  const costs = cut.map((item) => utf16Bytes('', JSON.stringify(item)) + 2)
  return {
    name,
    items: cut,
    costs,
    need: utf16Bytes(name, '[]') + costs.reduce((a, b) => a + b, 0)
  }
}

/** As many items (from the first) as fit in `budget`; notes the rest. */
function fitting(list: JsonList, budget: number, notes: string[]): object[] {
  let bytes = utf16Bytes(list.name, '[]')
  let count = 0
  while (count < list.items.length && bytes + list.costs[count] <= budget) {
    bytes += list.costs[count++]
  }
  if (count < list.items.length) {
    notes.push(
      `The ${list.name} output holds the first ${count} of ${list.items.length}: GitHub allows 1 MB of outputs per job, counted as UTF-16`
    )
  }
  return list.items.slice(0, count)
}

/**
 * The JSON arrays within what the other outputs leave: each gets what it needs when both fit;
 * else one that needs less than half keeps all of it and the other the rest; else half each.
 */
function fittingLists(lists: JsonList[], budget: number, notes: string[]): object[][] {
  const [first, second] = lists
  if (!second) return [fitting(first, budget, notes)]
  const half = budget / 2
  return [
    fitting(first, Math.max(half, budget - second.need), notes),
    fitting(second, Math.max(half, budget - first.need), notes)
  ]
}

export interface TypedOutputs {
  /**
   * Every output the run sets. `undefined`: set but empty (a field the operation does not have);
   * an output the run does not set at all is not a key.
   */
  values: Record<string, OutputValue | undefined>
  /** What had to be left out, for the log. */
  notes: string[]
}

/**
 * The outputs with their types: what the command's JSON holds, and the action's text comes from.
 * `maxBytes`: what all of them may take, as UTF-16 (the action's, for GitHub's limit); the
 * command's standard output has no such limit (Infinity). The steps' outputs come from their
 * sections: those before the wait ahead of `branch_state`, those after it behind.
 */
export function typedOutputs(
  sections: readonly ReportSection[],
  report: RunReport,
  maxBytes: number = MAX_OUTPUTS_UTF16_BYTES
): TypedOutputs {
  const values: Record<string, OutputValue | undefined> = {}
  const lists: JsonList[] = []
  const stepOutputs = (phase: ReportSection['phase']) => {
    for (const section of sections.filter((each) => each.phase === phase)) {
      const outputs = section.outputs?.(report)
      if (!outputs) continue
      Object.assign(values, outputs.values)
      const { list } = outputs
      if (list) lists.push(jsonList(list.name, list.items, list.whole))
    }
  }
  if (report.outcome && report.outcome !== 'error') values.outcome = report.outcome
  // The gate that ran, even when the API showed an input wrong (a branch that does not exist).
  if (report.gate) values.gate = report.gate
  stepOutputs('before-wait')
  if (report.branch) {
    const state = report.branch.current_state
    values.branch_state = state ? truncate(state, MAX_FIELD_CHARS) : undefined
  }
  stepOutputs('after-wait')
  // Every run that started, whatever ended it (`gone`, an error before the first poll).
  if (report.elapsedMs !== undefined) values.elapsed_ms = Math.round(report.elapsedMs)
  const operations = operationOutputs(report)
  if (operations) {
    Object.assign(values, operations.values)
    lists.unshift(jsonList('operations', operations.seen))
  }
  const rest = Object.entries(values).reduce(
    (sum, [name, value]) => sum + utf16Bytes(name, outputText(value)),
    0
  )
  const notes: string[] = []
  if (lists.length > 0) {
    const kept = fittingLists(lists, maxBytes - rest, notes)
    lists.forEach((list, index) => (values[list.name] = kept[index]))
  }
  return { values, notes }
}

/**
 * The outputs of the operation that describes the run (primaryOperation), and every operation
 * seen; none when nothing was read (no operation, not an empty list of them).
 */
function operationOutputs(
  report: RunReport
): { values: Record<string, OutputValue | undefined>; seen: Operation[] } | undefined {
  const { wait } = report
  const seen = wait && seenOperations(report)
  if (!wait || !seen) return undefined
  const found = primaryOperation(seen, report.failFast ?? false)
  const operation = found && bounded(found)
  const values = {
    status: operation?.status,
    operation_id: operation?.id,
    action: operation?.action ?? undefined,
    branch_id: operation?.branch_id ?? undefined,
    endpoint_id: operation?.endpoint_id ?? undefined,
    failures_count: operation?.failures_count ?? undefined,
    error: operation?.error || undefined,
    created_at: operation?.created_at ?? undefined,
    updated_at: operation?.updated_at ?? undefined,
    duration_ms:
      operation &&
      operationDuration(operation, wait.readAt.get(operation.id), wait.clocksDisagree)?.ms,
    operation,
    operations: undefined
  }
  return { values, seen }
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

export function buildOutputs(sections: readonly ReportSection[], report: RunReport): BuiltOutputs {
  const { values, notes } = typedOutputs(sections, report)
  const outputs = Object.fromEntries(
    Object.entries(values).map(([name, value]) => [name, outputText(value)])
  )
  return { outputs, notes }
}
