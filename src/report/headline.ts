/*
 * What a report says first: why the gate ended as it did. The facts are put together once, as
 * phrases of our own words and API text kept apart, and told twice: as HTML in the summary and the
 * comment (API text escaped), and as plain text in the step's error line (made safe by the log).
 * A step that decided the outcome says it through its section (section.ts).
 */
import { canBeQueried } from '../domain/branch-state.js'
import { formatDuration } from '../domain/duration.js'
import { branchStatePhrase, capitalized, type Phrase, phraseText } from '../domain/phrase.js'
import type { Operation } from '../domain/schemas.js'
import {
  failedList,
  inFlightList,
  inFlightPhrase,
  type OperationFacts,
  operationFacts
} from './operation-facts.js'
import { apiSilence, type RunReport } from './report.js'
import { firstOf, type ReportSection } from './section.js'

/**
 * The summary's first line after the outcome's label: on failure what failed, on timeout and
 * cancellation what was still in flight and for how long, on success how many finished and in how
 * long. Undefined when the outcome needs no more (an error, which is quoted beside it).
 */
export function outcomeLine(
  sections: readonly ReportSection[],
  report: RunReport,
  facts: OperationFacts
): Phrase | undefined {
  const { wait, outcome } = report
  if (!outcome || outcome === 'error') return undefined
  const decided = firstOf(sections, (section) => section.outcomeLine?.(report, facts))
  if (decided) return decided
  if (!facts.seen) {
    const silence = apiSilence(report)
    if (silence) return [`${silence}, so the state is unknown`]
    const found = wait ? undefined : firstOf(sections, (section) => section.unwaitedLine?.(report))
    if (found) return found
    return outcome === 'success' ? undefined : ['nothing could be read, so the state is unknown']
  }
  switch (outcome) {
    case 'success': {
      const added = sections
        .map((section) => section.successLine?.(report))
        .filter((line): line is Phrase => line !== undefined)
      // Nothing finished: what a step adds says it alone.
      const finished: Phrase[] =
        facts.seen.length > 0 || added.length === 0 ? [[finishedText(report, facts)]] : []
      return [...finished, ...added].flatMap((part, index) => (index > 0 ? ['; ', ...part] : part))
    }
    case 'failure':
      return [
        facts.failed.length > 1 ? `${facts.failed.length} operations failed: ` : '',
        ...failedList(facts)
      ]
    default:
      if (facts.inFlight.length > 0) return inFlightPhrase(facts)
      return unfinishedStep(report) ?? branchNotReady(report)
  }
}

/** `all 2 operations finished in 3.1 s`, or `no operation in flight`. */
export function finishedText({ wait }: RunReport, facts: OperationFacts): string {
  const finished = facts.seen?.length ?? 0
  if (finished === 0) return 'no operation in flight'
  return `${finished === 1 ? 'the operation finished' : `all ${finished} operations finished`}${took(wait)}`
}

/** ` in 3.1 s`: how long the wait took, when there was one. */
export function took(wait: RunReport['wait']): string {
  return wait ? ` in ${formatDuration(wait.elapsedMs)}` : ''
}

/**
 * The run cut short with nothing in flight after a wait until the project was idle: what the step
 * it waited for never got to check.
 */
export function unfinishedStep({ waitPlan }: RunReport): Phrase | undefined {
  return waitPlan?.idle && [waitPlan.idle.unchecked]
}

/**
 * `branch preview/pr-7 is still init`, while the gated branch cannot be queried yet (never on a
 * project waited for until idle, which does not wait for that).
 */
export function branchNotReady(report: RunReport): Phrase | undefined {
  const { branch } = report
  if (!branch || report.waitPlan?.covers === 'idle project' || canBeQueried(branch))
    return undefined
  return ['branch ', { code: branch.name }, ' is still ', ...branchStatePhrase(branch)]
}

/**
 * The step's error line: the error, or the operations that failed, by id, and apart from them those
 * still in flight (with how long so far); on a timeout or a cancellation, what was still in flight.
 * Undefined when the outcome is no failure.
 */
export function errorLine(
  sections: readonly ReportSection[],
  report: RunReport
): string | undefined {
  const line = errorLineAlone(sections, report)
  const silence = apiSilence(report)
  // Said first: nothing was ever read, so what the line goes on to say was never known.
  if (!line || !silence) return line
  const rest = /^[A-Z][a-z]/.test(line) ? line.charAt(0).toLowerCase() + line.slice(1) : line
  return `${phraseText(capitalized([silence]))}: ${rest}`
}

function errorLineAlone(sections: readonly ReportSection[], report: RunReport): string | undefined {
  const { outcome } = report
  if (report.error) return report.error
  if (outcome !== 'failure' && outcome !== 'timeout' && outcome !== 'cancelled') return undefined
  const decided = firstOf(sections, (section) => section.errorLine?.(report))
  if (decided) return decided
  const facts = operationFacts(report)
  if (outcome === 'failure') return failureLine(facts)
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
  const branch = !inFlight && branchNotReady(report)
  if (branch) return `${cut} while ${phraseText(branch)}${report.noRetryFits ? reason : ''}`
  const still = inFlight ? `: ${phraseText(inFlightList(facts, true))}` : ''
  return outcome === 'timeout'
    ? `${cut} while operations were still in flight${still}${reason}`
    : `${cut}${still}`
}

/** The operations that failed, by id, and beside them those still in flight. */
function failureLine(facts: OperationFacts): string {
  const count = facts.failed.length
  const what = count === 1 ? 'An operation' : `${count} operations`
  const beside = facts.inFlight.length > 0 ? `; ${phraseText(inFlightPhrase(facts, true))}` : ''
  // When every failure was over before the gate started, the line says so once, up front.
  const ended = facts.failed.filter((operation) => facts.endedBeforeStart.has(operation.id))
  const when = ended.length === count ? ' before the gate started' : ''
  const way = ended.length > 0 ? wayOut(ended) : ''
  return `${what} ended in failure${when}: ${phraseText(failedList(facts, true))}${beside}${way}`
}

/**
 * The way out of a failure the first read found: nothing on its compute (or of its action) has
 * succeeded since, so a re-run alone fails again.
 */
function wayOut(endedBefore: Operation[]): string {
  const onCompute = endedBefore.some((operation) => operation.endpoint_id)
  return `; nothing has succeeded there since, so a re-run fails again: ${onCompute ? 'start the compute again (or re-create the branch)' : 're-create the branch (or run the action again)'}, then re-run the gate`
}
