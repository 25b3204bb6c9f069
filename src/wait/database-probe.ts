/*
 * The last step of a gate with `database_url`: once the control plane is done, a query must answer.
 * Attempts go at the gate's pace within its `timeout`; a refused role or password is tried again for
 * 3 intervals from the first attempt (a new role can lag behind its operation); what no wait can
 * change ends the probe at once (domain/database.ts decides which is which).
 */
import { queryDatabase } from '../api/postgres.js'
import type { Pace } from '../api/pace.js'
import { DEADLINE_GRACE_MS } from '../api/api-core.js'
import { requestTimeLimitMs } from '../api/retry-policy.js'
import type { Clock } from '../domain/clock.js'
import {
  classifyDatabaseError,
  type DatabaseFailure,
  type DatabaseState,
  type DatabaseTarget
} from '../domain/database.js'
import { formatDuration } from '../domain/duration.js'
import type { Logger } from '../domain/logger.js'
import { truncate } from '../domain/untrusted-text.js'
import type { Outcome } from './wait-for-operations.js'

/** How long a refused role or password is tried again, in intervals from the first attempt. */
export const REFUSED_GRACE_INTERVALS = 3
/** The longest a query may take once connected. */
const QUERY_TIME_LIMIT_MS = 5000

export interface DatabaseProbe {
  outcome: Outcome
  state: DatabaseState
  /** Where it connected, without the password. */
  target: { host: string; database: string; user: string }
  attempts: number
  /** From the control plane being done (the probe's start) to the answer, or to the last attempt. */
  afterControlPlaneMs: number
  /** Wall-clock start and end (epoch ms), to draw beside the operations' API timestamps. */
  span: { start: number; end: number }
  /** From the step's start to the first answered query. */
  readyMs?: number
  serverVersion?: string
  /** The last attempt's failure. */
  failure?: DatabaseFailure
}

export interface ProbeOptions {
  /** false: one attempt. */
  wait: boolean
  /** Monotonic clock time at which the gate gives up. */
  deadline: number
  intervalMs: number
  /** Monotonic clock time at which the step started. */
  stepStartedAt: number
}

function newProbe(target: DatabaseTarget, clock: Clock): DatabaseProbe {
  return {
    outcome: 'pending',
    state: 'unreachable',
    target: { host: target.host, database: target.database, user: target.user },
    attempts: 0,
    afterControlPlaneMs: 0,
    span: { start: clock.wallNow(), end: clock.wallNow() }
  }
}

export async function probeDatabase(
  target: DatabaseTarget,
  options: ProbeOptions,
  dependencies: { pace: Pace; clock: Clock; logger: Logger; signal: AbortSignal }
): Promise<DatabaseProbe> {
  const { clock, logger, pace, signal } = dependencies
  const startedAt = clock.now()
  const where = `${target.database} on ${target.host} as ${target.user}`
  const probe = newProbe(target, clock)
  const end = (outcome: Outcome): DatabaseProbe => {
    probe.outcome = outcome
    probe.afterControlPlaneMs = clock.now() - startedAt
    probe.span.end = clock.wallNow()
    return probe
  }
  logger.info(`Control plane done; querying the database ${where}`)
  for (;;) {
    probe.attempts++
    try {
      const answer = await attempt(target, options, clock, signal)
      Object.assign(probe, {
        state: 'ready',
        serverVersion: answer.serverVersion,
        failure: undefined
      })
      probe.readyMs = clock.now() - options.stepStartedAt
      logger.info(
        `The database answered (PostgreSQL ${truncate(answer.serverVersion, 40)}), attempt ${probe.attempts}`
      )
      return end('success')
    } catch (error) {
      if (signal.aborted) return end('cancelled')
      const failure = classifyDatabaseError(error as { code?: unknown; message?: unknown })
      Object.assign(probe, { state: failure.state, failure })
      const graceOver =
        failure.retry === 'grace' &&
        clock.now() - startedAt >= REFUSED_GRACE_INTERVALS * options.intervalMs
      const why = `${failure.code ? `${failure.code} ` : ''}"${truncate(failure.message, 300)}"`
      if (failure.retry === 'stop' || graceOver) {
        logger.info(`The database ${where}: ${why}; no retry can change that`)
        return end('failure')
      }
      if (!options.wait) return end('pending')
      const remaining = options.deadline - clock.now()
      if (remaining <= 0) return end('timeout')
      const delay = Math.min(pace.nextPollDelayMs(), remaining)
      logger.info(`The database ${where}: ${why}; trying again in ${formatDuration(delay)}`)
      try {
        await clock.sleep(delay, signal)
      } catch {
        return end('cancelled')
      }
    }
  }
}

/** One connection and query, within the request time limit and what is left of the deadline. */
function attempt(target: DatabaseTarget, options: ProbeOptions, clock: Clock, signal: AbortSignal) {
  const left = options.deadline + DEADLINE_GRACE_MS - clock.now()
  return queryDatabase(target, {
    connectTimeoutMs: Math.min(requestTimeLimitMs(options.intervalMs), left),
    queryTimeoutMs: Math.min(QUERY_TIME_LIMIT_MS, left),
    signal
  })
}
