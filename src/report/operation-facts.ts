/*
 * What a report tells about its operations, sorted by what they mean for the outcome, and the
 * phrases that name them (`start_compute on br-7 ended in error: "…"`), for the first line, the
 * error line and the annotations.
 */
import { isFinalFailure, isUnfinished, succeeded } from '../domain/operation-status.js'
import type { Phrase } from '../domain/phrase.js'
import type { Operation } from '../domain/schemas.js'
import { endedBeforePhrase, type RecentFailure } from '../wait/recent-failures.js'
import {
  durationWords,
  type OperationDuration,
  operationDuration,
  type RunReport,
  seenOperations
} from './report.js'

/** How many operations a line names; the table has them all. */
const NAMED_IN_LINE = 3

/** `start_compute on br-preview-7` */
function actionOnBranch(operation: Operation): Phrase {
  return [
    { code: operation.action ?? 'operation' },
    ' on ',
    { code: operation.branch_id ?? 'its branch' }
  ]
}

/**
 * `start_compute on br-preview-7 ended in error after 4.1 s: "out of capacity"`, and `20 min
 * before the gate started` when the first read found it so. One that has not ended (`failed`,
 * which the API retries, a failure under fail_fast) is said as such: `…, failed for 7.1 s so far`.
 */
function failedClause(operation: Operation, facts: OperationFacts): Phrase {
  const duration = durationOf(operation, facts)
  const before = facts.endedBeforeStart.get(operation.id)
  const ended = !isUnfinished(operation.status)
  return [
    ...actionOnBranch(operation),
    ended ? ' ended in ' : ', ',
    { code: operation.status },
    duration ? ` ${ended ? 'after' : 'for'} ${durationWords(duration)}` : '',
    before ? `, ${endedBeforePhrase(before.endedAgoMs, before.atLeast)}` : '',
    ...(operation.error ? [': ', { quote: operation.error }] : [])
  ]
}

/** `apply_config on br-main-1, running for 7.1 s so far` */
function inFlightClause(operation: Operation, facts: OperationFacts): Phrase {
  const duration = durationOf(operation, facts)
  return [
    ...actionOnBranch(operation),
    ', ',
    { code: operation.status },
    duration ? ` for ${durationWords(duration)}` : ''
  ]
}

/** How long an operation has taken, as far as the run read it. */
export function durationOf(
  operation: Operation,
  facts: Pick<OperationFacts, 'readAt' | 'clocksDisagree'>
): OperationDuration | undefined {
  return operationDuration(operation, facts.readAt.get(operation.id), facts.clocksDisagree)
}

/** The first few clauses joined, and how many more the table holds. */
function listed(
  operations: Operation[],
  clause: (operation: Operation) => Phrase,
  withIds: boolean
): Phrase {
  const phrase: Phrase = []
  operations.slice(0, NAMED_IN_LINE).forEach((operation, index) => {
    if (index > 0) phrase.push('; ')
    if (withIds) phrase.push({ code: operation.id }, ' (', ...clause(operation), ')')
    else phrase.push(...clause(operation))
  })
  if (operations.length > NAMED_IN_LINE) {
    phrase.push(`; and ${operations.length - NAMED_IN_LINE} more`)
  }
  return phrase
}

/** What a report tells about its operations, sorted by what they mean for the outcome. */
export interface OperationFacts {
  /** Undefined when nothing could be read. */
  seen?: Operation[]
  /** Ended in a final failure. */
  failed: Operation[]
  /** Neither succeeded nor failed for good: still in flight, retrying or of unknown status. */
  inFlight: Operation[]
  readAt: ReadonlyMap<string, number>
  /** The runner's clock and the API's disagreed: durations so far are leasts. */
  clocksDisagree?: true
  /** The failures that the gate's first read found already over, by id (they fail the gate). */
  endedBeforeStart: ReadonlyMap<string, RecentFailure>
}

export function operationFacts(report: RunReport): OperationFacts {
  const failFast = report.failFast ?? false
  const seen = seenOperations(report)
  const failed = (seen ?? []).filter((operation) => isFinalFailure(operation.status, failFast))
  const inFlight = (seen ?? []).filter(
    (operation) => !succeeded(operation.status) && !failed.includes(operation)
  )
  const endedBeforeStart = new Map(
    (report.recentFailures ?? [])
      .filter((failure) => failure.failsGate)
      .map((failure) => [failure.operation.id, failure])
  )
  const readAt = report.wait?.readAt ?? new Map<string, number>()
  const clocks = report.wait?.clocksDisagree ? { clocksDisagree: true as const } : {}
  return { seen, failed, inFlight, readAt, ...clocks, endedBeforeStart }
}

/** The failed operations, the first few named: `start_compute on br-7 ended in error: "…"` */
export function failedList(facts: OperationFacts, withIds = false): Phrase {
  return listed(facts.failed, (operation) => failedClause(operation, facts), withIds)
}

/** The unfinished operations, the first few named: `apply_config on br-1, running for 7 s so far` */
export function inFlightList(facts: OperationFacts, withIds = false): Phrase {
  return listed(facts.inFlight, (operation) => inFlightClause(operation, facts), withIds)
}

/** `1 still in flight: apply_config on br-main-1, running for 7.1 s so far` */
export function inFlightPhrase(facts: OperationFacts, withIds = false): Phrase {
  return [`${facts.inFlight.length} still in flight: `, ...inFlightList(facts, withIds)]
}
