/*
 * What ended in failure just before the project gate started. A step that creates a branch returns
 * as soon as the API accepts it, and the branch's operations can fail within seconds, before the
 * gate's first read: a gate that only waits for what is still in flight would pass over them.
 */
import { apiTime } from '../domain/api-time.js'
import { formatDuration } from '../domain/duration.js'
import type { Logger } from '../domain/logger.js'
import { classifyStatus } from '../domain/operation-status.js'
import { plural } from '../domain/phrase.js'
import type { Operation } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

/** How long before the gate started an operation still counts as the newest of its action. */
const RECENT_FAILURE_WINDOW_MS = 15 * 60 * 1000
/** Recent failures warned about one by one; the rest are counted (the summary lists them all). */
const MAX_RECENT_FAILURE_WARNINGS = 5

export interface RecentFailure {
  operation: Operation
  /** An `error` on the gated branch fails the gate; anything else is a warning. */
  failsGate: boolean
}

/** Whether `operation` was created in the window before `startedAt` (or after it). */
export function isRecent(operation: Operation, startedAt: number): boolean {
  const created = apiTime(operation.created_at)
  return created === undefined || created >= startedAt - RECENT_FAILURE_WINDOW_MS
}

/**
 * Of the recent operations the first read saw (`isRecent`), the newest of each action on each
 * branch, when it ended in failure: a newer operation of the same action that did not fail
 * supersedes an older failure. With `branchGated`, an `error` fails the gate and a `cancelled` is a
 * warning; on the whole project every failure is a warning, since the project is idle, which is
 * what that gate answers. Newest first.
 */
export function recentFailures(recent: Operation[], branchGated: boolean): RecentFailure[] {
  const newest = new Map<string, Operation>()
  for (const operation of recent) {
    const key = JSON.stringify([operation.branch_id ?? '', operation.action ?? ''])
    const known = newest.get(key)
    if (!known || createdTime(operation) > createdTime(known)) newest.set(key, operation)
  }
  return [...newest.values()]
    .filter((operation) => classifyStatus(operation.status) === 'failure')
    .sort((a, b) => createdTime(b) - createdTime(a))
    .map((operation) => ({
      operation,
      failsGate: branchGated && operation.status === 'error'
    }))
}

/** One warning for each failure that does not fail the gate (the first few, then a count). */
export function warnRecentFailures(
  failures: RecentFailure[],
  startedAt: number,
  logger: Logger
): void {
  const warned = failures.filter((failure) => !failure.failsGate)
  for (const { operation } of warned.slice(0, MAX_RECENT_FAILURE_WARNINGS)) {
    const action = truncate(operation.action ?? 'operation', 80)
    const branch = truncate(operation.branch_id ?? 'its branch', 80)
    const error = operation.error ? `: "${truncate(operation.error, 300)}"` : ''
    const gated =
      operation.status === 'cancelled'
        ? 'a cancelled operation does not fail the gate'
        : 'the project gate does not fail on it; gate on its branch (branch_id) to fail on it'
    logger.warning(
      `Ended in failure before the gate started: ${action} ${operation.id} on ${branch}, ${truncate(operation.status, 40)} ${endedBefore(operation, startedAt)}${error}; ${gated}`
    )
  }
  if (warned.length > MAX_RECENT_FAILURE_WARNINGS) {
    logger.warning(
      `… and ${plural(warned.length - MAX_RECENT_FAILURE_WARNINGS, 'more operation')} ended in failure before the gate started; the summary lists them`
    )
  }
}

/** `25.0 s before the gate started`, from the operation's last update (else its creation). */
function endedBefore(operation: Operation, startedAt: number): string {
  const ended = apiTime(operation.updated_at) ?? apiTime(operation.created_at)
  if (ended === undefined || ended >= startedAt) return 'as the gate started'
  return `${formatDuration(startedAt - ended)} before the gate started`
}

/** Newest first; a time that cannot be read counts as the newest. */
function createdTime(operation: Operation): number {
  return apiTime(operation.created_at) ?? Infinity
}
