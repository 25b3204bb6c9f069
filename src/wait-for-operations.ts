import type { Clock } from './clock.js'
import { formatDuration } from './duration.js'
import { DeadlineExceededError } from './errors.js'
import type { Logger } from './logger.js'
import type { OperationSource } from './operation-sources.js'
import { classifyStatus, isFinal, isFinalFailure } from './operation-status.js'
import type { Operation } from './schemas.js'

/** `cancelled` is not one of the contract's outcomes: it is reported when the runner cancels the job. */
export type Outcome = 'success' | 'failure' | 'timeout' | 'pending' | 'cancelled'

export interface WaitOptions {
  /** false: read once and report. */
  wait: boolean
  intervalMs: number
  /** Absolute clock time at which the wait gives up. */
  deadline: number
  failFast: boolean
}

export interface WaitDependencies {
  source: OperationSource
  clock: Clock
  logger: Logger
  signal?: AbortSignal
}

export interface WaitResult {
  outcome: Outcome
  /** Every operation waited on, in output order, as last seen. */
  operations: Operation[]
  polls: number
  elapsedMs: number
  /** Why a timeout or cancellation cut the wait short, when it happened inside a request. */
  reason?: string
}

/**
 * Polls `source` until every operation is final, one is a final failure, or the deadline passes.
 * The first read is immediate; after each poll the loop waits `intervalMs` (never past the deadline).
 */
export async function waitForOperations(
  options: WaitOptions,
  { source, clock, logger, signal }: WaitDependencies
): Promise<WaitResult> {
  const startedAt = clock.now()
  const lastStatus = new Map<string, string>()
  const warnedStatuses = new Set<string>()
  let polls = 0
  const elapsed = (): string => `+${formatDuration(clock.now() - startedAt)}`
  const finish = (outcome: Outcome, reason?: string): WaitResult => {
    const result = {
      outcome,
      operations: source.operations,
      polls,
      elapsedMs: clock.now() - startedAt
    }
    logger.info(`[${elapsed()}] outcome: ${outcome}${reason ? ` (${reason})` : ''}`)
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

    const operations = source.operations
    for (const operation of operations) {
      const previous = lastStatus.get(operation.id)
      if (previous !== operation.status) {
        lastStatus.set(operation.id, operation.status)
        logger.info(
          `[${elapsed()}] ${describe(operation)}: ${previous ? `${previous} → ` : ''}${operation.status}`
        )
      }
      if (classifyStatus(operation.status) === 'unknown' && !warnedStatuses.has(operation.status)) {
        warnedStatuses.add(operation.status)
        logger.warning(`Unknown operation status "${operation.status}"; treating it as in flight`)
      }
    }

    if (operations.some((operation) => isFinalFailure(operation.status, options.failFast))) {
      return finish('failure')
    }
    if (operations.every((operation) => isFinal(operation.status, options.failFast))) {
      return finish('success')
    }
    if (!options.wait) return finish('pending')
    const remaining = options.deadline - clock.now()
    if (remaining <= 0) return finish('timeout')
    try {
      await clock.sleep(Math.min(options.intervalMs, remaining), signal)
    } catch (error) {
      if (signal?.aborted) return finish('cancelled', (signal.reason as Error).message)
      throw error
    }
  }
}

function describe(operation: Operation): string {
  const parts = [operation.id, operation.action, operation.branch_id && `on ${operation.branch_id}`]
  return parts.filter(Boolean).join(' ')
}
