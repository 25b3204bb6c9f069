/*
 * The teardown's section of the report (`before`): the first line and the error line when the
 * check decided, its part of the summary, its outputs and its annotation.
 */
import type { Phrase } from '../../domain/phrase.js'
import { capitalized, phraseText } from '../../domain/phrase.js'
import { truncate } from '../../domain/untrusted-text.js'
import { finishedText, took } from '../../report/headline.js'
import type { OperationFacts } from '../../report/operation-facts.js'
import type { ReportFormat } from '../../report/report-format.js'
import type { RunReport } from '../../report/report.js'
import type { OutputValue, ReportSection } from '../../report/section.js'
import type { TeardownCheck } from './teardown-check.js'
import { blockerDetails, blockersOutput, teardownNotes, teardownPhrase } from './teardown-words.js'

declare module '../../report/report.js' {
  interface RunReport {
    /** With `before`: what the check found (none while something was in flight, or on an error). */
    teardown?: TeardownCheck
  }
}

/** Why the check may still meet a 423: it reads, and the control plane can start work after it. */
const TEARDOWN_RACE =
  'The check reads and never writes: the control plane can start an operation between it and the teardown, so the teardown step should still retry a 423 (Locked).'

/**
 * Before a teardown, once the check decided: what blocks the branch (a table: the reason, what to
 * do), what is only a warning or a notice, and why the teardown step should still retry a 423.
 */
function teardownSection(format: ReportFormat, report: RunReport): string[] {
  const check = report.teardown
  if (!check) return []
  const parts = [format.heading(`Before a ${check.action}: ${check.preflight}`, 3)]
  const blockers = blockerDetails(check)
  if (blockers.length > 0) {
    parts.push(
      format.table(
        ['Blocker', 'What it is, and what to do'],
        blockers.map(({ reason, detail }) => [format.code(reason), format.phrase(detail)])
      )
    )
  }
  const { warnings, notices } = teardownNotes(check)
  for (const warning of warnings) parts.push(format.paragraph(`⚠️ ${format.phrase(warning)}`))
  for (const notice of notices) parts.push(format.paragraph(`ℹ️ ${format.phrase(notice)}`))
  if (check.preflight === 'clear' || check.preflight === 'blocked') {
    parts.push(format.paragraph(TEARDOWN_RACE))
  }
  return parts
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
 * The first line once the check decided: what blocks the branch, or that nothing does and the
 * project is idle, or that the branch is gone.
 */
function teardownLine(report: RunReport, facts: OperationFacts): Phrase | undefined {
  const check = report.teardown
  const { outcome } = report
  if (!check || (outcome !== 'success' && outcome !== 'failure')) return undefined
  const phrase = teardownPhrase(check)
  if (check.preflight !== 'clear') return phrase
  return [...phrase, `; the project is idle: ${idleText(report, facts)}`]
}

/**
 * Before a teardown, once the check has decided, or `busy` while something was still in flight:
 * then the branch was not checked, so nothing is said of what blocks it. A branch checked gives
 * its id: the teardown after the gate deletes exactly that branch, where a name read again by
 * another tool (untrimmed, or taken by a new branch since) could find another or none.
 */
function teardownOutputs({ teardown }: RunReport): Record<string, OutputValue> {
  if (!teardown) return {}
  const { preflight } = teardown
  if (preflight === 'busy') return { preflight }
  const blockers = blockersOutput(teardown)
  return preflight === 'gone'
    ? { preflight, blockers }
    : { preflight, preflight_branch_id: teardown.branch.id, blockers }
}

export const TEARDOWN_SECTION: ReportSection = {
  phase: 'after-wait',
  outcomeLine: teardownLine,
  errorLine: ({ teardown }) =>
    teardown?.preflight === 'blocked'
      ? phraseText(capitalized(teardownPhrase(teardown)))
      : undefined,
  summary: { place: 'above-operations', render: teardownSection },
  outputs: (report) => ({ values: teardownOutputs(report) }),
  // What blocks the branch, titled with the action, the branch and the reasons; alone.
  annotation: ({ teardown }, errorLine) => {
    if (teardown?.preflight !== 'blocked') return undefined
    const reasons = teardown.judgement.blockers.map((blocker) => blocker.reason).join(', ')
    const title = `cannot ${teardown.action} branch ${teardown.branch.name}: ${reasons}`
    return {
      annotation: { title: truncate(title, 200), message: truncate(errorLine, 1000) },
      alone: true
    }
  }
}
