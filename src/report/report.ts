import type { RequestStats } from '../api/api-core.js'
import { isFinalFailure, isUnfinished } from '../domain/operation-status.js'
import type { Pace } from '../api/pace.js'
import type { Branch, Operation } from '../domain/schemas.js'
import type { Outcome, WaitResult } from '../wait/wait-for-operations.js'
import { apiTime } from '../domain/api-time.js'
import { formatDuration } from '../domain/duration.js'
import { capitalized, phraseText } from '../domain/phrase.js'
import type { RecentFailure } from '../wait/recent-failures.js'
import type { WaitPlan } from '../domain/wait-plan.js'
import type { GateKind } from '../domain/gate-kind.js'

/** How a run ended: the wait's outcome, or `error` when it could not run (inputs, keys, files). */
export type RunOutcome = Outcome | 'error'

/**
 * Everything one run found out: the input of outputs.ts and summary.ts. The core's findings are
 * here; each step's folder adds its result to this interface (`declare module`), so that report/
 * names no step.
 */
export interface RunReport {
  /** How the run ended; `error` when an error failed the step. */
  outcome: RunOutcome
  /** What the run checked (the output `gate`), once its inputs were read. */
  gate?: GateKind
  /** `fail_fast`: whether `failed` counts as a final failure. */
  failFast?: boolean
  projectId?: string
  /** The branch the project gate is narrowed to, as resolved from `branch_id` and last read. */
  branch?: Branch
  /**
   * The wait as the plan decided it: what it covers (the whole project until idle: a failure only
   * warned about, no branch readiness), and a step's words for it. None when a step runs alone (a
   * sweep), which reads no operation.
   */
  waitPlan?: WaitPlan
  wait?: WaitResult
  requests: RequestStats
  /** The polling pace: how many 429s were met, the slowest pace. */
  pace?: Pick<Pace, 'rateLimited' | 'slowestMs'>
  /** The message of the error that failed the step, already redacted. */
  error?: string
  /** `input`: the error blames an input (a branch that does not exist, say), not the API. */
  errorCause?: 'input'
  /**
   * The project gate: what had ended in failure before it started, still the newest on its compute
   * (or of its action on its branch). Those that fail the gate are among the wait's operations too.
   */
  recentFailures?: RecentFailure[]
  /** The branch gate read back only so far (its page cap): the notice that says how far. */
  historyNotJudged?: string
  /** From the gate's start to its end, the database check included (milliseconds). */
  elapsedMs?: number
  /**
   * With the outcome `timeout`: the gate gave up before `timeout` ran out, because no retry fitted
   * in the time left; why, with the numbers. Nobody may then say that the timeout ran out.
   */
  noRetryFits?: string
}

/**
 * The operations as far as the run saw them, or undefined when nothing could be read (an error,
 * the timeout or a cancellation before the first answer): then nobody may say "nothing in flight".
 */
export function seenOperations(report: RunReport): Operation[] | undefined {
  const { wait } = report
  if (wait && (wait.observed || wait.operations.length > 0)) return wait.operations
  return undefined
}

/**
 * The operation the single-operation outputs describe: the first one (output order) that ended in a
 * final failure (under `failFast`, `failed` too), so that a failure is never described by an
 * operation still running beside it; else the first that did not finish; else the first one.
 */
export function primaryOperation(
  operations: Operation[],
  failFast: boolean
): Operation | undefined {
  return (
    operations.find((operation) => isFinalFailure(operation.status, failFast)) ??
    operations.find((operation) => operation.status !== 'finished') ??
    operations[0]
  )
}

/** How long an operation has taken; `atLeast`: no more is known (the clocks disagree). */
export interface OperationDuration {
  ms: number
  soFar: boolean
  atLeast?: true
}

/**
 * How long an operation has taken. Unfinished, with the time it was last read (wall clock): from
 * `created_at` to that read, "so far" (its `total_duration_ms` is 0 or absent then, not its running
 * time). Where the clocks disagreed, that read time is the earliest both allow (WaitResult's
 * `clocksDisagree`), and the duration only a least, never less than its own `updated_at` shows.
 * Finished: `total_duration_ms` when the API gives it, else updated_at − created_at.
 */
export function operationDuration(
  operation: Operation,
  readAt?: number,
  clocksDisagree?: true
): OperationDuration | undefined {
  const created = apiTime(operation.created_at)
  const updated = apiTime(operation.updated_at)
  if (isUnfinished(operation.status) && readAt !== undefined && created !== undefined) {
    const ms = Math.max(0, readAt - created)
    if (!clocksDisagree) return { ms, soFar: true }
    return { ms: Math.max(ms, (updated ?? created) - created), soFar: true, atLeast: true }
  }
  if (operation.total_duration_ms != null) return { ms: operation.total_duration_ms, soFar: false }
  if (created === undefined || updated === undefined) return undefined
  return { ms: Math.max(0, updated - created), soFar: false }
}

/** `7.1 s so far`, `at least 5.0 s so far`, `4.1 s`: a duration as worded everywhere. */
export function durationWords({ ms, soFar, atLeast }: OperationDuration): string {
  return `${atLeast ? 'at least ' : ''}${formatDuration(ms)}${soFar ? ' so far' : ''}`
}

/**
 * A timeout after which nothing was ever read from the API: `the API never answered` (every request
 * refused, dropped or unanswered), or `the API never gave a usable answer` (it answered, but with
 * errors or what could not be read). Undefined when something was read, or no request was made: a
 * timeout on work still in flight says what it waited for instead.
 */
export function apiSilence({ outcome, requests }: RunReport): string | undefined {
  if (outcome !== 'timeout' || requests.read !== 0 || requests.requests === 0) return undefined
  return requests.answered === 0 ? 'the API never answered' : 'the API never gave a usable answer'
}

/** Why nothing could be read; the reason itself is quoted beside it. */
export function nothingRead(report: RunReport): string {
  const silence = apiSilence(report)
  switch (report.outcome) {
    case 'timeout':
      return `${silence ? phraseText(capitalized([silence])) : 'Nothing could be read'} before ${report.noRetryFits ? 'the gate gave up' : 'the timeout ran out'}`
    case 'cancelled':
      return 'Nothing could be read before the job was cancelled'
    default:
      return 'Nothing could be read before the error'
  }
}
