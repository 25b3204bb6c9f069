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

/**
 * How long before the gate started a failure on the whole project is still worth a warning: that
 * gate answers whether the project is idle, so what failed earlier is no news to it. The branch
 * gate has no such window: its verdict comes from the state, whenever it is asked.
 */
const PROJECT_WARNING_WINDOW_MS = 15 * 60 * 1000
/** Recent failures warned about one by one; the rest are counted (the summary lists them all). */
const MAX_RECENT_FAILURE_WARNINGS = 5

export interface RecentFailure {
  operation: Operation
  /** An `error` still the newest on its compute (or of its action) on the gated branch. */
  failsGate: boolean
  /** How long before the gate started it ended (API clock); undefined when no time is readable. */
  endedAgoMs?: number
  /** The runner's clock and the API's disagree: `endedAgoMs` is only a least. */
  atLeast?: true
}

/** An operation of the first read, and whether it was created within the project's window. */
interface Listed {
  operation: Operation
  recent: boolean
}

/**
 * The operations of the first read that concern the gate, whatever their age, in the list's order (newest first, as the API lists them: the order, not
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
   * The same by compute (any action on it), or by action on the branch for an action without a
   * compute; an operation without a branch, or with neither an action nor a compute, stands alone.
   */
  private readonly byTarget = new Map<string, Listed[]>()
  /** An operation older than the window was listed: what follows it without a time is older too. */
  private pastWindow = false

  /** `startedAt`: when the gate started, the earliest the clocks allow (`earliestWallNow`). */
  constructor(private readonly startedAt: number) {
    this.windowStart = startedAt - PROJECT_WARNING_WINDOW_MS
  }

  /** The next operation of the list (one that concerns the gate). */
  add(operation: Operation): void {
    if (this.listed.has(operation.id)) return
    const created = apiTime(operation.created_at)
    if ((created ?? Infinity) < this.windowStart) this.pastWindow = true
    const recent = created === undefined ? !this.pastWindow : created >= this.windowStart
    const listed = { operation, recent }
    this.listed.set(operation.id, listed)
    const key = targetOf(operation)
    const ofTarget = this.byTarget.get(key)
    if (ofTarget) ofTarget.push(listed)
    else this.byTarget.set(key, [listed])
  }

  /**
   * For each compute (and each action without one), the failures nothing newer has superseded.
   * Only a newer success (`finished`, `skipped`) of the same action there supersedes one, or, on a
   * compute, a newer successful `start_compute` (the compute runs): a newer `suspend_compute`,
   * `check_availability` or `cancelled` proves neither. One that could supersede it but is still in
   * flight decides once it ends (the gate waits on it). With `branchGated`, an `error` fails the gate
   * whatever its age, and a `cancelled` is a warning; on the whole project (or until it is idle)
   * only those created in the 15 minutes before the gate started are reported, as warnings. In the
   * list's order, newest first: two with the same `created_at` are as the list gives them. With
   * `clocksDisagree` (the runner's and the API's), each age is only a least.
   */
  failures(branchGated: boolean, clocksDisagree = false): RecentFailure[] {
    const found = new Map<Listed, RecentFailure>()
    for (const ofTarget of this.byTarget.values()) {
      const newer = new Newer()
      for (const listed of ofTarget) {
        const { operation, recent } = listed
        const reported =
          (branchGated || recent) &&
          classifyStatus(operation.status) === 'failure' &&
          !newer.supersedes(operation)
        if (reported) {
          const failsGate = branchGated && operation.status === 'error'
          const endedAgoMs = endedAgo(operation, this.startedAt)
          const least = clocksDisagree ? { atLeast: true as const } : {}
          found.set(listed, { operation, failsGate, endedAgoMs, ...least })
        }
        newer.add(operation)
      }
    }
    return [...this.listed.values()].flatMap((listed) => found.get(listed) ?? [])
  }
}

/** The action that supersedes a failure of any action on a compute, when it succeeds. */
const START = 'start_compute'

/**
 * What is newer on one target (a compute, or an action on a branch) than the operation at hand: the
 * actions that did not fail there, those that succeeded and those still in flight (they may yet
 * succeed). Either kind supersedes alike.
 */
class Newer {
  private readonly notFailed = new Set<string | null | undefined>()

  add({ action, status }: Operation): void {
    if (classifyStatus(status) !== 'failure') this.notFailed.add(action)
  }

  /** Whether a newer success supersedes `operation`, or one in flight may yet. */
  supersedes({ action, endpoint_id: compute }: Operation): boolean {
    return this.notFailed.has(action) || (!!compute && this.notFailed.has(START))
  }
}

/** What an operation acts on: its compute, else its action on its branch, else itself alone. */
function targetOf({ id, branch_id: branch, action, endpoint_id: compute }: Operation): string {
  // A replica's start is not the read-write compute's: the same target means the same compute.
  if (branch && compute) return JSON.stringify([branch, 'compute', compute])
  if (branch && action) return JSON.stringify([branch, 'action', action])
  return `#${id}`
}

/** How long before `startedAt` it ended: its last update, else its creation; 0 if after. */
function endedAgo(operation: Operation, startedAt: number): number | undefined {
  const ended = apiTime(operation.updated_at) ?? apiTime(operation.created_at)
  return ended === undefined ? undefined : Math.max(0, startedAt - ended)
}

/**
 * One warning for each failure that does not fail the gate (the first few, then a count); on a
 * project waited for until idle, none does, and `failuresWhy` says why.
 */
export function warnRecentFailures(
  failures: RecentFailure[],
  logger: Logger,
  failuresWhy?: string
): void {
  const warned = failures.filter((failure) => !failure.failsGate)
  for (const { operation, endedAgoMs, atLeast } of warned.slice(0, MAX_RECENT_FAILURE_WARNINGS)) {
    const action = truncate(operation.action ?? 'operation', 80)
    const branch = truncate(operation.branch_id ?? 'its branch', 80)
    const error = operation.error ? `: "${truncate(operation.error, 300)}"` : ''
    const gated =
      failuresWhy ??
      (operation.status === 'cancelled'
        ? 'a cancelled operation does not fail the gate'
        : 'the project gate does not fail on it; gate on its branch to fail on it')
    logger.warning(
      `Ended in failure before the gate started: ${action} ${operation.id} on ${branch}, ${truncate(operation.status, 40)} ${endedBeforePhrase(endedAgoMs, atLeast)}${error}; ${gated}`
    )
  }
  if (warned.length > MAX_RECENT_FAILURE_WARNINGS) {
    logger.warning(
      `… and ${plural(warned.length - MAX_RECENT_FAILURE_WARNINGS, 'more operation')} ended in failure before the gate started; the summary lists them`
    )
  }
}

/**
 * `25.0 s before the gate started`, `at least 25.0 s before …` where the clocks disagree, or `as the
 * gate started` (also when no time is readable).
 */
export function endedBeforePhrase(endedAgoMs: number | undefined, atLeast?: true): string {
  if (!endedAgoMs) return 'as the gate started'
  return `${atLeast ? 'at least ' : ''}${formatDuration(endedAgoMs)} before the gate started`
}
