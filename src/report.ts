import type { ProjectListing, RequestStats } from './api-client.js'
import type { Pace } from './pace.js'
import type { Operation } from './schemas.js'
import type { Outcome, WaitResult } from './wait-for-operations.js'

/** Everything one run found out: the input of outputs.ts and summary.ts. */
export interface RunReport {
  /** How the run ended; `error` when an error failed the step. */
  outcome?: Outcome | 'error'
  /** What the run is for, from the GitHub context: the pull request or the commit. */
  run?: { pullRequest?: { number: number; url?: string }; sha?: string }
  projectId?: string
  /** The branch the project gate is narrowed to, as resolved from `branch_id`. */
  branch?: { id: string; name: string }
  listing?: ProjectListing
  wait?: WaitResult
  requests: RequestStats
  /** The polling pace: how many 429s were met, the slowest pace. */
  pace?: Pick<Pace, 'rateLimited' | 'slowestMs'>
  /** The message of the error that failed the step, already redacted. */
  error?: string
  /** Operations as last seen when an error cut the wait short; absent if nothing was read. */
  lastSeen?: Operation[]
}

/**
 * The operations as far as the run saw them, or undefined when nothing could be read (an error,
 * the timeout or a cancellation before the first answer): then nobody may say "nothing in flight".
 */
export function seenOperations(report: RunReport): Operation[] | undefined {
  const { wait } = report
  if (wait && (wait.observed || wait.operations.length > 0)) return wait.operations
  return report.lastSeen
}

/**
 * The operation the single-operation outputs describe: the first one (output order) that did not
 * finish, else the first one.
 */
export function primaryOperation(operations: Operation[]): Operation | undefined {
  return operations.find((operation) => operation.status !== 'finished') ?? operations[0]
}

/** `total_duration_ms` when the API gives it, else updated_at − created_at. */
export function operationDurationMs(operation: Operation): number | undefined {
  if (operation.total_duration_ms != null) return operation.total_duration_ms
  const created = Date.parse(operation.created_at ?? '')
  const updated = Date.parse(operation.updated_at ?? '')
  return Number.isNaN(created) || Number.isNaN(updated) ? undefined : Math.max(0, updated - created)
}

/** Why nothing could be read; the reason itself is quoted beside it. */
export function nothingRead(outcome: RunReport['outcome']): string {
  switch (outcome) {
    case 'timeout':
      return 'Nothing could be read before the timeout ran out'
    case 'cancelled':
      return 'Nothing could be read before the job was cancelled'
    default:
      return 'Nothing could be read before the error'
  }
}
