/*
 * The runner's annotations: what GitHub shows on the checks list and the run's summary page, worded
 * from the report's facts (src/report/) for the step's error annotations (`core.error`).
 */
import { phraseText, plural } from '../domain/phrase.js'
import { truncate } from '../domain/untrusted-text.js'
import { errorLine } from '../gate/run-report.js'
import { SECTIONS } from '../gate/steps.js'
import { branchNotReady, unfinishedStep } from '../report/headline.js'
import { inFlightPhrase, type OperationFacts, operationFacts } from '../report/operation-facts.js'
import { nothingRead, type RunReport } from '../report/report.js'
import { type Annotation, firstOf } from '../report/section.js'

/**
 * At most this many operation annotations: GitHub shows 10 error annotations a step, and the step's
 * own failure message is one of them.
 */
export const MAX_OPERATION_ANNOTATIONS = 5

/**
 * What goes to the checks list and the run's summary page: a step's that decided (alone, or beside
 * the operations'), each operation that ended in a final failure, and a timeout, titled with the
 * action and the branch.
 */
export function annotationsFor(report: RunReport): Annotation[] {
  const facts = operationFacts(report)
  const line = errorLine(report)
  // A step annotates a failed gate only, with its error line (with `wait: false` a database not
  // answering yet leaves the gate pending).
  const decided = line
    ? firstOf(SECTIONS, (section) => section.annotation?.(report, line))
    : undefined
  if (decided?.alone) return [decided.annotation]
  // On a project waited for until idle, an operation that ended in failure is no failure of the gate's.
  const failed = report.waitPlan?.covers === 'idle project' ? [] : facts.failed
  const annotations = failed.slice(0, MAX_OPERATION_ANNOTATIONS).map((operation) => ({
    title: truncate(
      `${operation.action ?? 'operation'} ${operation.status} on ${operation.branch_id ?? 'its branch'}`,
      200
    ),
    message: truncate(
      `Operation ${operation.id}${operation.error ? `: ${operation.error}` : ''}`,
      1000
    )
  }))
  if (failed.length > MAX_OPERATION_ANNOTATIONS) {
    annotations.push({
      title: `${plural(failed.length - MAX_OPERATION_ANNOTATIONS, 'more operation')} failed`,
      message: 'The job summary lists every operation.'
    })
  }
  if (decided) {
    annotations.push(decided.annotation)
  } else if (report.outcome === 'timeout' && !facts.seen) {
    const why = report.wait?.reason ?? report.error
    annotations.push({
      title: 'timeout: the state of the operations is unknown',
      message: truncate(`${nothingRead(report)}${why ? `: ${why}` : ''}`, 1000)
    })
  } else if (report.outcome === 'timeout') {
    annotations.push(timeoutAnnotation(report, facts))
  }
  return annotations
}

/** A timeout with something read: what was still in flight, or what the gate was still waiting for. */
function timeoutAnnotation(report: RunReport, facts: OperationFacts): Annotation {
  const first = facts.inFlight[0]
  const unchecked = !first && unfinishedStep(report)
  // The wait ended; the branch check after it was cut short: the error says how.
  if (unchecked) {
    return {
      title: `timeout: ${phraseText(unchecked)}`,
      message: truncate(report.error ?? '', 1000)
    }
  }
  // Gave up because no retry fitted: say so, with the numbers, never that the timeout ran out.
  const cut = report.noRetryFits ? 'Gave up' : 'timeout ran out'
  const reason = report.noRetryFits ? ` (${report.wait?.reason})` : ''
  const branch = !first && branchNotReady(report)
  return {
    title: first
      ? truncate(
          `timeout: ${first.action ?? 'operation'} still ${first.status} on ${first.branch_id ?? 'its branch'}`,
          200
        )
      : branch
        ? truncate(`timeout: ${phraseText(branch)}`, 200)
        : 'timeout',
    message: truncate(
      branch
        ? `${cut} while ${phraseText(branch)}${reason}`
        : first
          ? `${cut} with ${phraseText(inFlightPhrase(facts, true))}${reason}`
          : `${cut}${report.wait?.reason ? `: ${report.wait.reason}` : ''}`,
      1000
    )
  }
}
