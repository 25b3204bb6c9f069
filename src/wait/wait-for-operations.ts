import { canBeQueried } from '../domain/branch-state.js'
import { type Clock, earliestWallNow } from '../domain/clock.js'
import { formatDuration } from '../domain/duration.js'
import { DeadlineExceededError } from '../domain/errors.js'
import type { Logger } from '../domain/logger.js'
import type { OperationSource } from './operation-sources.js'
import { classifyStatus, finalityOf } from '../domain/operation-status.js'
import type { Pace } from '../api/pace.js'
import type { Operation } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

/** Status changes logged per poll; more are counted in one line (the summary has them all). */
const MAX_CHANGES_LOGGED = 20
/** Distinct unknown statuses warned about. */
const MAX_UNKNOWN_WARNINGS = 5

/** `cancelled` is not one of the contract's outcomes: it is reported when the runner cancels the job. */
export type Outcome = 'success' | 'failure' | 'timeout' | 'pending' | 'cancelled'

export interface WaitOptions {
  /** false: read once and report. */
  wait: boolean
  /**
   * Monotonic clock time (clock.now()) at which the gate started: the log's times and `elapsedMs`
   * count from it, so that they say the same as the rest of the run.
   */
  startedAt: number
  /** Monotonic clock time (clock.now()) at which the wait gives up. */
  deadline: number
  failFast: boolean
  /**
   * The wait is for the project to be idle (the plan's `idle project`), so an operation that ended
   * in failure does not end it: every operation final is a `success`, failed ones included.
   */
  untilIdle?: boolean
  /**
   * What a step after a success does (the plan's `next`): the wait then ends saying so, never
   * `outcome: success` (the step may still fail).
   */
  next?: string
}

export interface WaitDependencies {
  source: OperationSource
  /** Time between polls (`interval`, slower after 429s). */
  pace: Pace
  clock: Clock
  logger: Logger
  signal?: AbortSignal
}

export interface WaitResult {
  /** `error`: an error no retry could help cut the wait short; `error` holds it. */
  outcome: Outcome | 'error'
  /** What cut the wait short, with the outcome `error`: the caller reports it. */
  error?: unknown
  /** Every operation waited on, in output order, as last seen. */
  operations: Operation[]
  polls: number
  /**
   * Whether a poll read everything it meant to. False when a timeout or a cancellation cut the first
   * poll short: then `operations` holds only what was read before (often nothing), and the state of
   * the rest is unknown, not "nothing in flight".
   */
  observed: boolean
  /**
   * When (wall clock, epoch ms) each operation's last-seen state was read, by operation id: the
   * earliest time both clocks allow (`earliestWallNow`).
   */
  readAt: ReadonlyMap<string, number>
  /**
   * Set where the runner's clock and the API's disagreed (`Clock.disagreementMs`): each `readAt`
   * is then only the earliest the read can have been, and an age measured to it a least.
   */
  clocksDisagree?: true
  /** From the gate's start (`startedAt`) to the end of the wait. */
  elapsedMs: number
  /** Why a timeout or cancellation cut the wait short, when it happened inside a request. */
  reason?: string
  /**
   * The wait gave up before `timeout` ran out, because no retry fitted in the time left: why, with
   * the numbers (the start of `reason`).
   */
  noRetryFits?: string
}

/**
 * The log of a wait: each status change once, with the time since the start (at most
 * MAX_CHANGES_LOGGED a poll, then a count), and each unknown status warned about once.
 */
class StatusLog {
  private readonly lastStatus = new Map<string, string>()
  private readonly warnedStatuses = new Set<string>()

  constructor(
    private readonly logger: Logger,
    private readonly elapsed: () => string
  ) {}

  record(operations: Operation[]): void {
    let changes = 0
    for (const operation of operations) {
      const previous = this.lastStatus.get(operation.id)
      if (previous !== operation.status) {
        this.lastStatus.set(operation.id, operation.status)
        if (++changes <= MAX_CHANGES_LOGGED) {
          this.logger.info(
            `[${this.elapsed()}] ${describe(operation)}: ${previous ? `${previous} → ` : ''}${truncate(operation.status, 40)}`
          )
        }
      }
      this.warnIfUnknown(operation.status)
    }
    if (changes > MAX_CHANGES_LOGGED) {
      this.logger.info(
        `[${this.elapsed()}] … and ${changes - MAX_CHANGES_LOGGED} more status changes`
      )
    }
  }

  private warnIfUnknown(status: string): void {
    if (classifyStatus(status) !== 'unknown' || this.warnedStatuses.has(status)) return
    this.warnedStatuses.add(status)
    if (this.warnedStatuses.size <= MAX_UNKNOWN_WARNINGS) {
      this.logger.warning(
        `Unknown operation status "${truncate(status, 40)}"; treating it as in flight`
      )
    }
  }
}

/** When each operation's last-seen state was read: a read gives it a new object. */
class ReadTimes {
  readonly readAt = new Map<string, number>()
  private readonly states = new WeakSet<Operation>()

  constructor(private readonly clock: Clock) {}

  stamp(operations: Operation[]): void {
    for (const operation of operations) {
      if (this.states.has(operation)) continue
      this.states.add(operation)
      this.readAt.set(operation.id, earliestWallNow(this.clock))
    }
  }

  /** The read times, and whether the clocks disagreed (then each is only the earliest). */
  times(): Pick<WaitResult, 'readAt' | 'clocksDisagree'> {
    const clocks = this.clock.disagreementMs?.() ? { clocksDisagree: true as const } : {}
    return { readAt: this.readAt, ...clocks }
  }
}

/**
 * Polls `source` until every operation is final, one is a final failure, or the deadline passes.
 * The first read is immediate; after each poll the loop waits as long as the pace says (never past
 * the deadline). An error no retry could help (a key revoked, an operation gone) ends the wait with
 * the outcome `error` and what was read until then, never throws.
 */
export async function waitForOperations(
  options: WaitOptions,
  { source, pace, clock, logger, signal }: WaitDependencies
): Promise<WaitResult> {
  const elapsed = (): string => `+${formatDuration(clock.now() - options.startedAt)}`
  const reads = new ReadTimes(clock)
  const statusLog = new StatusLog(logger, elapsed)
  const finality = finalityOf(options.failFast)
  let polls = 0
  /** What was read until now, stamped. */
  const seen = () => {
    reads.stamp(source.operations)
    const observed = source.completedPolls > 0
    const timing = { ...reads.times(), elapsedMs: clock.now() - options.startedAt }
    return { operations: source.operations, polls, observed, ...timing }
  }
  const finish = (outcome: Outcome, reason?: string, noRetryFits?: string): WaitResult => {
    const result = seen()
    logger.info(`[${elapsed()}] ${endingOf(outcome, options, result.observed, reason)}`)
    const why = noRetryFits ? { reason, noRetryFits } : reason ? { reason } : {}
    return { outcome, ...result, ...why }
  }
  const cancelled = () => finish('cancelled', (signal!.reason as Error).message)

  for (;;) {
    try {
      polls++
      await source.poll()
    } catch (error) {
      if (signal?.aborted) return cancelled()
      if (error instanceof DeadlineExceededError) {
        return finish('timeout', error.message, error.noRetryFits)
      }
      return { outcome: 'error', error, ...seen() }
    }
    pace.onPollDone()
    const operations = source.operations
    reads.stamp(operations)
    statusLog.record(operations)
    const verdict = verdictOf(operations, source, options.untilIdle, finality)
    if (verdict) return finish(verdict)
    if (!options.wait) return finish('pending', source.behind)
    const remaining = options.deadline - clock.now()
    if (remaining <= 0) return finish('timeout', source.behind)
    try {
      await clock.sleep(Math.min(pace.nextPollDelayMs(), remaining), signal)
    } catch (error) {
      if (signal?.aborted) return cancelled()
      throw error
    }
  }
}

/** What a poll's read decides: a failure, a pass, or nothing yet. */
function verdictOf(
  operations: Operation[],
  source: OperationSource,
  untilIdle: boolean | undefined,
  { isDone, hasFailed }: ReturnType<typeof finalityOf>
): 'failure' | 'success' | undefined {
  if (!untilIdle && operations.some(hasFailed)) return 'failure'
  const branchOpen = source.branch !== undefined && !canBeQueried(source.branch)
  // Never a pass on a read that did not get back to what an earlier poll had seen.
  if (operations.every(isDone) && !branchOpen && !source.behind) return 'success'
  return undefined
}

/** The wait's last log line: its outcome, or what comes next after a success. */
function endingOf(
  outcome: Outcome,
  { next }: WaitOptions,
  observed: boolean,
  reason: string | undefined
): string {
  const unread = observed ? '' : ', before the operations could be read'
  return outcome === 'success' && next
    ? next
    : `outcome: ${outcome}${unread}${reason ? ` (${reason})` : ''}`
}

function describe(operation: Operation): string {
  const parts = [operation.id, operation.action, operation.branch_id && `on ${operation.branch_id}`]
  return parts
    .filter(Boolean)
    .map((part) => truncate(part!, 80))
    .join(' ')
}
