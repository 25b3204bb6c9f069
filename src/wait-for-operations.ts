import { canBeQueried } from './branch-state.js'
import type { Clock } from './clock.js'
import { formatDuration } from './duration.js'
import { DeadlineExceededError } from './errors.js'
import type { Logger } from './logger.js'
import type { OperationSource } from './operation-sources.js'
import { classifyStatus, isFinal, isFinalFailure } from './operation-status.js'
import type { Pace } from './pace.js'
import type { Operation } from './schemas.js'
import { truncate } from './untrusted-text.js'

/** Status changes logged per poll; more are counted in one line (the summary has them all). */
const MAX_CHANGES_LOGGED = 20
/** Distinct unknown statuses warned about. */
const MAX_UNKNOWN_WARNINGS = 5

/** `cancelled` is not one of the contract's outcomes: it is reported when the runner cancels the job. */
export type Outcome = 'success' | 'failure' | 'timeout' | 'pending' | 'cancelled'

export interface WaitOptions {
  /** false: read once and report. */
  wait: boolean
  /** Monotonic clock time (clock.now()) at which the wait gives up. */
  deadline: number
  failFast: boolean
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
  outcome: Outcome
  /** Every operation waited on, in output order, as last seen. */
  operations: Operation[]
  polls: number
  /**
   * Whether a poll read everything it meant to. False when a timeout or a cancellation cut the first
   * poll short: then `operations` holds only what was read before (often nothing), and the state of
   * the rest is unknown, not "nothing in flight".
   */
  observed: boolean
  /** When (wall clock, epoch ms) each operation's last-seen state was read, by operation id. */
  readAt: ReadonlyMap<string, number>
  elapsedMs: number
  /** Why a timeout or cancellation cut the wait short, when it happened inside a request. */
  reason?: string
}

/**
 * Polls `source` until every operation is final, one is a final failure, or the deadline passes.
 * The first read is immediate; after each poll the loop waits as long as the pace says (never past
 * the deadline).
 */
export async function waitForOperations(
  options: WaitOptions,
  { source, pace, clock, logger, signal }: WaitDependencies
): Promise<WaitResult> {
  const startedAt = clock.now()
  const lastStatus = new Map<string, string>()
  const warnedStatuses = new Set<string>()
  // A read gives an operation a new object: the first time an object is met is when it was read.
  const readAt = new Map<string, number>()
  const states = new WeakSet<Operation>()
  const stampReads = (): void => {
    for (const operation of source.operations) {
      if (states.has(operation)) continue
      states.add(operation)
      readAt.set(operation.id, clock.wallNow())
    }
  }
  let polls = 0
  const elapsed = (): string => `+${formatDuration(clock.now() - startedAt)}`
  const finish = (outcome: Outcome, reason?: string): WaitResult => {
    stampReads()
    const observed = source.completedPolls > 0
    const result = {
      outcome,
      operations: source.operations,
      polls,
      observed,
      readAt,
      elapsedMs: clock.now() - startedAt
    }
    const unread = observed ? '' : ', before the operations could be read'
    logger.info(`[${elapsed()}] outcome: ${outcome}${unread}${reason ? ` (${reason})` : ''}`)
    return reason ? { ...result, reason } : result
  }

  for (;;) {
    try {
      polls++
      await source.poll()
    } catch (error) {
      if (signal?.aborted) return finish('cancelled', (signal.reason as Error).message)
      if (error instanceof DeadlineExceededError) return finish('timeout', error.message)
      throw error
    }
    pace.onPollDone()
    stampReads()

    const operations = source.operations
    let changes = 0
    for (const operation of operations) {
      const previous = lastStatus.get(operation.id)
      if (previous !== operation.status) {
        lastStatus.set(operation.id, operation.status)
        if (++changes <= MAX_CHANGES_LOGGED) {
          logger.info(
            `[${elapsed()}] ${describe(operation)}: ${previous ? `${previous} → ` : ''}${truncate(operation.status, 40)}`
          )
        }
      }
      const unknown = classifyStatus(operation.status) === 'unknown'
      if (unknown && !warnedStatuses.has(operation.status)) {
        warnedStatuses.add(operation.status)
        if (warnedStatuses.size <= MAX_UNKNOWN_WARNINGS) {
          logger.warning(
            `Unknown operation status "${truncate(operation.status, 40)}"; treating it as in flight`
          )
        }
      }
    }
    if (changes > MAX_CHANGES_LOGGED) {
      logger.info(`[${elapsed()}] … and ${changes - MAX_CHANGES_LOGGED} more status changes`)
    }

    if (operations.some((operation) => isFinalFailure(operation.status, options.failFast))) {
      return finish('failure')
    }
    const allFinal = operations.every((operation) => isFinal(operation.status, options.failFast))
    const branchOpen = source.branch !== undefined && !canBeQueried(source.branch)
    if (allFinal && !branchOpen) return finish('success')
    if (!options.wait) return finish('pending')
    const remaining = options.deadline - clock.now()
    if (remaining <= 0) return finish('timeout')
    try {
      await clock.sleep(Math.min(pace.nextPollDelayMs(), remaining), signal)
    } catch (error) {
      if (signal?.aborted) return finish('cancelled', (signal.reason as Error).message)
      throw error
    }
  }
}

function describe(operation: Operation): string {
  const parts = [operation.id, operation.action, operation.branch_id && `on ${operation.branch_id}`]
  return parts
    .filter(Boolean)
    .map((part) => truncate(part!, 80))
    .join(' ')
}
