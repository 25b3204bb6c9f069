/*
 * What a report says first: why the gate ended as it did. The facts are put together once, as
 * phrases of our own words and API text kept apart, and told twice: as HTML in the summary and the
 * comment (API text escaped), and as plain text in the step's error line (made safe by the log).
 */
import { canBeQueried } from '../domain/branch-state.js'
import { formatDuration } from '../domain/duration.js'
import { isFinalFailure, succeeded } from '../domain/operation-status.js'
import { databaseFailed, databasePhrase } from './database-words.js'
import { operationDuration, type RunReport, seenOperations } from './report.js'
import type { Operation } from '../domain/schemas.js'
import { branchStatePhrase, type Phrase, phraseText, plural } from '../domain/phrase.js'
import { capitalized, teardownPhrase } from './teardown-words.js'
import { endedBeforePhrase, type RecentFailure } from '../wait/recent-failures.js'

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
 * before the gate started` when the first read found it so.
 */
function failedClause(operation: Operation, facts: OperationFacts): Phrase {
  const duration = operationDuration(operation, facts.readAt.get(operation.id))
  const before = facts.endedBeforeStart.get(operation.id)
  return [
    ...actionOnBranch(operation),
    ' ended in ',
    { code: operation.status },
    duration ? ` after ${formatDuration(duration.ms)}` : '',
    before ? `, ${endedBeforePhrase(before.endedAgoMs)}` : '',
    ...(operation.error ? [': ', { quote: operation.error }] : [])
  ]
}

/**
 * The way out of a failure the first read found: nothing on its compute (or of its action) has
 * succeeded since, so a re-run alone fails again.
 */
function wayOut(endedBefore: Operation[]): string {
  const onCompute = endedBefore.some((operation) => operation.endpoint_id)
  return `; nothing has succeeded there since, so a re-run fails again: ${onCompute ? 'start the compute again (or re-create the branch)' : 're-create the branch (or run the action again)'}, then re-run the gate`
}

/** `apply_config on br-main-1, running for 7.1 s so far` */
function inFlightClause(operation: Operation, readAt: ReadonlyMap<string, number>): Phrase {
  const duration = operationDuration(operation, readAt.get(operation.id))
  return [
    ...actionOnBranch(operation),
    ', ',
    { code: operation.status },
    duration ? ` for ${formatDuration(duration.ms)}${duration.soFar ? ' so far' : ''}` : ''
  ]
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
  return { seen, failed, inFlight, readAt: report.wait?.readAt ?? new Map(), endedBeforeStart }
}

/** The failed operations, the first few named: `start_compute on br-7 ended in error: "…"` */
function failedList(facts: OperationFacts, withIds = false): Phrase {
  return listed(facts.failed, (operation) => failedClause(operation, facts), withIds)
}

/** The unfinished operations, the first few named: `apply_config on br-1, running for 7 s so far` */
function inFlightList(facts: OperationFacts, withIds = false): Phrase {
  return listed(facts.inFlight, (operation) => inFlightClause(operation, facts.readAt), withIds)
}

/** `1 still in flight: apply_config on br-main-1, running for 7.1 s so far` */
export function inFlightPhrase(facts: OperationFacts, withIds = false): Phrase {
  return [`${facts.inFlight.length} still in flight: `, ...inFlightList(facts, withIds)]
}

/**
 * The summary's first line after the outcome's label: on failure what failed, on timeout and
 * cancellation what was still in flight and for how long, on success how many finished and in how
 * long. Undefined when the outcome needs no more (an error, which is quoted beside it).
 */
export function outcomeLine(report: RunReport, facts: OperationFacts): Phrase | undefined {
  const { wait, outcome } = report
  if (!outcome || outcome === 'error') return undefined
  if (report.teardown && (outcome === 'success' || outcome === 'failure')) {
    return teardownLine(report, facts)
  }
  if (databaseFailed(report.database)) return databasePhrase(report.database)
  if (!facts.seen) {
    if (!wait && report.listing) return [`${plural(report.listing.projects.length, 'project')}`]
    return outcome === 'success' ? undefined : ['nothing could be read, so the state is unknown']
  }
  switch (outcome) {
    case 'success': {
      const finished = facts.seen.length
      if (finished === 0 && report.database) return databasePhrase(report.database)
      const database = report.database ? ['; ', ...databasePhrase(report.database)] : []
      return [finishedText(report, facts), ...database]
    }
    case 'failure':
      return [
        facts.failed.length > 1 ? `${facts.failed.length} operations failed: ` : '',
        ...failedList(facts)
      ]
    default:
      if (facts.inFlight.length > 0) return inFlightPhrase(facts)
      return uncheckedBranch(report) ?? branchNotReady(report)
  }
}

/** `all 2 operations finished in 3.1 s`, or `no operation in flight`. */
function finishedText({ wait }: RunReport, facts: OperationFacts): string {
  const finished = facts.seen?.length ?? 0
  if (finished === 0) return 'no operation in flight'
  return `${finished === 1 ? 'the operation finished' : `all ${finished} operations finished`}${took(wait)}`
}

/** ` in 3.1 s`: how long the wait took, when there was one. */
function took(wait: RunReport['wait']): string {
  return wait ? ` in ${formatDuration(wait.elapsedMs)}` : ''
}

/**
 * Before a teardown, what ended in failure does not stop the gate: `all 2 operations ended in
 * 3.1 s, 1 of them in failure`, never that they all finished.
 */
function idleText(report: RunReport, facts: OperationFacts): string {
  const failed = facts.failed.length
  if (failed === 0) return finishedText(report, facts)
  const ended = facts.seen?.length ?? failed
  return ended === 1
    ? `the operation ended${took(report.wait)}, in failure`
    : `all ${ended} operations ended${took(report.wait)}, ${failed} of them in failure`
}

/**
 * Before a teardown: what blocks the branch, or that nothing does and the project is idle, or that
 * the branch is gone.
 */
function teardownLine(report: RunReport, facts: OperationFacts): Phrase {
  const check = report.teardown!
  const phrase = teardownPhrase(check)
  if (check.preflight !== 'clear') return phrase
  return [...phrase, `; the project is idle: ${idleText(report, facts)}`]
}

/** Before a teardown, the project idle but the run cut short before the branch check decided. */
export function uncheckedBranch(report: RunReport): Phrase | undefined {
  if (!report.before || report.teardown) return undefined
  return ['the project is idle, but the branch was not checked']
}

/**
 * `branch preview/pr-7 is still init`, while the gated branch cannot be queried yet (never before a
 * teardown, which does not wait for that).
 */
export function branchNotReady(report: RunReport): Phrase | undefined {
  const { branch } = report
  if (!branch || report.before || canBeQueried(branch)) return undefined
  return ['branch ', { code: branch.name }, ' is still ', ...branchStatePhrase(branch)]
}

/**
 * The step's error line: the error, or the operations that failed, by id, and apart from them those
 * still in flight (with how long so far); on a timeout or a cancellation, what was still in flight.
 * Undefined when the outcome is no failure.
 */
export function errorLine(report: RunReport): string | undefined {
  const { outcome } = report
  if (report.error) return report.error
  if (outcome !== 'failure' && outcome !== 'timeout' && outcome !== 'cancelled') return undefined
  if (report.teardown?.preflight === 'blocked') {
    return phraseText(capitalized(teardownPhrase(report.teardown)))
  }
  if (databaseFailed(report.database)) {
    const cut =
      outcome === 'timeout'
        ? 'timeout ran out'
        : outcome === 'cancelled'
          ? 'The wait was cancelled'
          : 'No query answered'
    return `${cut}: ${phraseText(databasePhrase(report.database))}`
  }
  const facts = operationFacts(report)
  const reason = report.wait?.reason ? ` (${report.wait.reason})` : ''
  // Gave up because no retry fitted: say so, with the numbers, never that the timeout ran out.
  const cut =
    outcome === 'timeout'
      ? report.noRetryFits
        ? 'Gave up'
        : 'timeout ran out'
      : 'The wait was cancelled'
  if (!facts.seen) {
    return `${cut} before anything could be read${reason}: the state of the operations is unknown`
  }
  const inFlight = facts.inFlight.length > 0
  if (outcome === 'failure') {
    const count = facts.failed.length
    const what = count === 1 ? 'An operation' : `${count} operations`
    const beside = inFlight ? `; ${phraseText(inFlightPhrase(facts, true))}` : ''
    // When every failure was over before the gate started, the line says so once, up front.
    const ended = facts.failed.filter((operation) => facts.endedBeforeStart.has(operation.id))
    const when = ended.length === count ? ' before the gate started' : ''
    const way = ended.length > 0 ? wayOut(ended) : ''
    return `${what} ended in failure${when}: ${phraseText(failedList(facts, true))}${beside}${way}`
  }
  const branch = !inFlight && branchNotReady(report)
  if (branch) return `${cut} while ${phraseText(branch)}${report.noRetryFits ? reason : ''}`
  const still = inFlight ? `: ${phraseText(inFlightList(facts, true))}` : ''
  return outcome === 'timeout'
    ? `${cut} while operations were still in flight${still}${reason}`
    : `${cut}${still}`
}
