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
import type { TeardownAction } from '../domain/teardown.js'
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

/**
 * The operations of the first read that ended in the 15 minutes before the gate started, in the
 * list's order (newest first, as the API lists them: the order, not `created_at`, says which is
 * newer, so an operation whose time cannot be read is never taken for the newest).
 */
export class RecentOperations {
  private readonly windowStart: number
  /** Every recent one, newest first. */
  private readonly listed: Operation[] = []
  /** The same by action on its branch; an operation without either stands alone. */
  private readonly byAction = new Map<string, Operation[]>()
  /** An operation older than the window was listed: what follows it without a time is older too. */
  private pastWindow = false

  constructor(startedAt: number) {
    this.windowStart = startedAt - RECENT_FAILURE_WINDOW_MS
  }

  /** The next operation of the list (one that concerns the gate). */
  add(operation: Operation): void {
    const created = apiTime(operation.created_at)
    if (created !== undefined && created < this.windowStart) this.pastWindow = true
    if (created === undefined ? this.pastWindow : created < this.windowStart) return
    const { branch_id: branch, action } = operation
    const key = branch && action ? JSON.stringify([branch, action]) : `#${operation.id}`
    this.listed.push(operation)
    const ofAction = this.byAction.get(key)
    if (ofAction) ofAction.push(operation)
    else this.byAction.set(key, [operation])
  }

  /**
   * For each action on each branch, the failures newer than its newest operation that did not fail
   * (a newer one that did not fail supersedes them; a newer `cancelled` does not). With
   * `branchGated`, an `error` fails the gate and a `cancelled` is a warning; on the whole project
   * every failure is a warning, since the project is idle, which is what that gate answers. In the
   * list's order, newest first.
   */
  failures(branchGated: boolean): RecentFailure[] {
    const failed = new Set<Operation>()
    for (const ofAction of this.byAction.values()) {
      for (const operation of ofAction) {
        if (classifyStatus(operation.status) !== 'failure') break
        failed.add(operation)
      }
    }
    return this.listed
      .filter((operation) => failed.has(operation))
      .map((operation) => ({ operation, failsGate: branchGated && operation.status === 'error' }))
  }
}

/**
 * One warning for each failure that does not fail the gate (the first few, then a count); before a
 * teardown (`teardown`), none does.
 */
export function warnRecentFailures(
  failures: RecentFailure[],
  startedAt: number,
  logger: Logger,
  teardown?: TeardownAction
): void {
  const warned = failures.filter((failure) => !failure.failsGate)
  for (const { operation } of warned.slice(0, MAX_RECENT_FAILURE_WARNINGS)) {
    const action = truncate(operation.action ?? 'operation', 80)
    const branch = truncate(operation.branch_id ?? 'its branch', 80)
    const error = operation.error ? `: "${truncate(operation.error, 300)}"` : ''
    const gated = teardown
      ? `before a ${teardown}, a failure is no reason to stop: a broken branch is one to ${teardown}`
      : operation.status === 'cancelled'
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
