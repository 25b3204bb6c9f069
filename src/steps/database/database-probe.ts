/*
 * The last step of a gate with `database_url`: once the control plane is done, a query must answer
 * 1. Attempts go at the gate's pace within its `timeout`, and each one, every phase of it, is cut
 * at the request time limit or at the deadline, whichever comes first: nothing answered after the
 * deadline counts. A refused role or password is tried again for 3 intervals from the first attempt
 * (a new role can lag behind its operation); what no wait can change ends the probe at once
 * (database-target.ts decides which is which, and what counts as an answer).
 */
import type { DatabaseAnswer, QueryDatabase } from './postgres.js'
import type { Pace } from '../../api/pace.js'
import { requestTimeLimitMs } from '../../api/retry-policy.js'
import { type Clock, withinTime } from '../../domain/clock.js'
import {
  classifyDatabaseError,
  type DatabaseFailure,
  type DatabaseState,
  type DatabaseTarget,
  wrongAnswer
} from './database-target.js'
import { formatDuration } from '../../domain/duration.js'
import { DeadlineExceededError } from '../../domain/errors.js'
import { phraseText } from '../../domain/phrase.js'
import type { Logger } from '../../domain/logger.js'
import { truncate } from '../../domain/untrusted-text.js'
import type { Outcome } from '../../wait/wait-for-operations.js'

/** How long a refused role or password is tried again, in intervals from the first attempt. */
export const REFUSED_GRACE_INTERVALS = 3

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

export interface ProbeDependencies {
  pace: Pace
  clock: Clock
  logger: Logger
  signal: AbortSignal
  query: QueryDatabase
}

/** How a probe ends: its outcome and times set, with what the last attempt said. */
function probeEnds(
  probe: DatabaseProbe,
  { clock, logger }: Pick<ProbeDependencies, 'clock' | 'logger'>,
  { where, startedAt, stepStartedAt }: { where: string; startedAt: number; stepStartedAt: number }
) {
  const end = (outcome: Outcome): DatabaseProbe => {
    probe.outcome = outcome
    probe.afterControlPlaneMs = clock.now() - startedAt
    probe.span.end = clock.wallNow()
    return probe
  }
  const timedOut = (): DatabaseProbe => {
    // What the last answered attempt said stays; with none, nothing answered in time.
    probe.failure ??= { state: 'unreachable', retry: 'retry', message: NO_ANSWER_IN_TIME }
    probe.state = probe.failure.state
    logger.info(`The database ${where}: ${NO_ANSWER_IN_TIME}`)
    return end('timeout')
  }
  const ready = (answer: DatabaseAnswer): DatabaseProbe => {
    Object.assign(probe, { state: 'ready', serverVersion: answer.serverVersion })
    probe.failure = undefined
    probe.readyMs = clock.now() - stepStartedAt
    const { serverVersion } = answer
    const version = serverVersion ? ` (PostgreSQL ${truncate(serverVersion, 40)})` : ''
    logger.info(`The database answered${version}, attempt ${probe.attempts}`)
    return end('success')
  }
  return { end, timedOut, ready }
}

export async function probeDatabase(
  target: DatabaseTarget,
  options: ProbeOptions,
  dependencies: ProbeDependencies
): Promise<DatabaseProbe> {
  const { clock, logger, pace, signal } = dependencies
  const startedAt = clock.now()
  const where = `${target.database} on ${target.host} as ${target.user}`
  const probe = newProbe(target, clock)
  const { stepStartedAt } = options
  const { end, timedOut, ready } = probeEnds(probe, dependencies, {
    where,
    startedAt,
    stepStartedAt
  })
  logger.info(`Querying the database ${where}`)
  for (;;) {
    if (clock.now() >= options.deadline) return timedOut()
    probe.attempts++
    const verdict = await judgedAttempt(target, options, dependencies)
    if (verdict === 'cancelled') return end('cancelled')
    if (verdict === 'timeout') return timedOut()
    if ('ready' in verdict) return ready(verdict.ready)
    const { failure } = verdict
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
    if (remaining <= 0) return timedOut()
    const delay = Math.min(pace.nextPollDelayMs(), remaining)
    logger.info(`The database ${where}: ${why}; trying again in ${formatDuration(delay)}`)
    try {
      await clock.sleep(delay, signal)
    } catch {
      return end('cancelled')
    }
  }
}

/** What one attempt came to: an answer of 1, a failure, or cut by the deadline or the job. */
type Verdict = { ready: DatabaseAnswer } | { failure: DatabaseFailure } | 'timeout' | 'cancelled'

async function judgedAttempt(
  target: DatabaseTarget,
  options: ProbeOptions,
  dependencies: ProbeDependencies
): Promise<Verdict> {
  try {
    const answer = await attempt(target, options, dependencies)
    // An answer that came with the deadline's own tick is as late as one cut by it.
    if (dependencies.clock.now() > options.deadline) return 'timeout'
    const wrong = wrongAnswer(answer)
    if (!wrong) return { ready: answer }
    const message = phraseText(['SELECT 1 answered ', ...wrong, ', not 1'])
    return { failure: { state: 'error', retry: 'stop', message, answer: wrong } }
  } catch (error) {
    if (dependencies.signal.aborted) return 'cancelled'
    if (error instanceof DeadlineExceededError) return 'timeout'
    return { failure: classifyDatabaseError(error as { code?: unknown; message?: unknown }) }
  }
}

const NO_ANSWER_IN_TIME = 'no answer before the timeout ran out'

/**
 * One connection and query, every phase of it within one time limit: the request time limit, or
 * what is left of the deadline, whichever ends first. Cut at the deadline, it rejects with
 * DeadlineExceededError: nothing answered after the deadline counts.
 */
async function attempt(
  target: DatabaseTarget,
  options: ProbeOptions,
  { clock, signal, query }: ProbeDependencies
): Promise<DatabaseAnswer> {
  const leftMs = options.deadline - clock.now()
  const limitMs = requestTimeLimitMs(options.intervalMs)
  const cutBy = () =>
    leftMs <= limitMs
      ? new DeadlineExceededError()
      : new Error(`no answer within ${formatDuration(limitMs)}`)
  return withinTime(clock, Math.min(limitMs, leftMs), cutBy, (cut) => query(target, cut), signal)
}
