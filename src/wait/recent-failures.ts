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
  /**
   * Created before the 15-minute window (within the first read's look-back): an `error` that is
   * still the newest of its action on its compute on the gated branch. A warning with its age: a
   * re-run long after a failure must not pass in silence.
   */
  earlier?: true
}

/** An operation of the first read, and whether it was created within the 15-minute window. */
interface Listed {
  operation: Operation
  recent: boolean
}

/**
 * The operations of the first read that concern the gate, within its look-back (the source adds no
 * older one), in the list's order (newest first, as the API lists them: the order, not
 * `created_at`, says which is newer, so an operation whose time cannot be read is never taken for
 * the newest).
 */
export class RecentOperations {
  private readonly windowStart: number
  /**
   * Every one by id, newest first: an operation repeated across a page boundary counts once, where
   * it was first listed.
   */
  private readonly listed = new Map<string, Listed>()
  /**
   * The same by action on its compute (or on the branch itself, for an action without one); an
   * operation without a branch or an action stands alone.
   */
  private readonly byAction = new Map<string, Listed[]>()
  /** An operation older than the window was listed: what follows it without a time is older too. */
  private pastWindow = false

  constructor(startedAt: number) {
    this.windowStart = startedAt - RECENT_FAILURE_WINDOW_MS
  }

  /** The next operation of the list (one that concerns the gate, within the look-back). */
  add(operation: Operation): void {
    if (this.listed.has(operation.id)) return
    const created = apiTime(operation.created_at)
    if ((created ?? Infinity) < this.windowStart) this.pastWindow = true
    const recent = created === undefined ? !this.pastWindow : created >= this.windowStart
    const { branch_id: branch, action, endpoint_id: compute } = operation
    // A replica's start is not the read-write compute's: the same action means on the same compute.
    const key =
      branch && action ? JSON.stringify([branch, action, compute || null]) : `#${operation.id}`
    const listed = { operation, recent }
    this.listed.set(operation.id, listed)
    const ofAction = this.byAction.get(key)
    if (ofAction) ofAction.push(listed)
    else this.byAction.set(key, [listed])
  }

  /**
   * For each action on each compute, the recent failures newer than its newest operation that did
   * not fail (a newer one that did not fail supersedes them; a newer `cancelled` does not). With
   * `branchGated`, an `error` fails the gate and a `cancelled` is a warning, and an `error` older
   * than the window that is still the newest of its action is a warning (`earlier`); on the whole
   * project every recent failure is a warning, since the project is idle, which is what that gate
   * answers. In the list's order, newest first.
   */
  failures(branchGated: boolean): RecentFailure[] {
    const found = new Map<Listed, RecentFailure>()
    for (const ofAction of this.byAction.values()) {
      const [newest] = ofAction
      if (!newest.recent) {
        const { operation } = newest
        if (branchGated && operation.status === 'error') {
          found.set(newest, { operation, failsGate: false, earlier: true })
        }
        continue
      }
      for (const listed of ofAction) {
        const { operation, recent } = listed
        if (!recent || classifyStatus(operation.status) !== 'failure') break
        found.set(listed, { operation, failsGate: branchGated && operation.status === 'error' })
      }
    }
    return [...this.listed.values()].flatMap((listed) => found.get(listed) ?? [])
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
  for (const { operation, earlier } of warned.slice(0, MAX_RECENT_FAILURE_WARNINGS)) {
    if (earlier) {
      logger.warning(earlierErrorWarning(operation, startedAt))
      continue
    }
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

/** An error older than the window that nothing of its action has followed: named, with its age. */
function earlierErrorWarning(operation: Operation, startedAt: number): string {
  const action = truncate(operation.action ?? 'operation', 80)
  const branch = truncate(operation.branch_id ?? 'its branch', 80)
  const compute = operation.endpoint_id ? ` (compute ${truncate(operation.endpoint_id, 80)})` : ''
  const created = apiTime(operation.created_at)
  const age = created === undefined ? 'more than 15 minutes' : formatDuration(startedAt - created)
  const error = operation.error ? `: "${truncate(operation.error, 300)}"` : ''
  return `An error older than the 15-minute window, still the newest of its action: ${action} ${operation.id} on ${branch}${compute}, created ${age} before the gate started${error}; nothing of its action has run there since, so it may not be fixed; the gate does not fail on it`
}
