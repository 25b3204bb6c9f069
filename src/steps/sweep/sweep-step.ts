/*
 * The sweep (`sweep`, issue 69): a gate of its own, which waits for nothing. It reads every page of
 * the project's branches (bounded), its computes' activity and, with `{pr}`, the pull requests'
 * states (through the front end: only the runner reads GitHub), then judges (domain/
 * sweep-verdict.ts). Under `fail_on_stale`, a stale branch fails the run, and with none found, a
 * branch not judged or a list cut short is an error: never a pass that hides what was not read.
 */
import { timeLimit } from '../../domain/clock.js'
import type { Logger } from '../../domain/logger.js'
import { capitalized, type Phrase, phraseText, plural } from '../../domain/phrase.js'
import {
  judgeSweep,
  pullRequestsToRead,
  type ReadPullRequests,
  type SweepFacts
} from '../../domain/sweep-verdict.js'
import type { SweepPattern } from '../../domain/sweep-pattern.js'
import { DEFAULT_OLDER_THAN_MS } from '../../domain/sweep-age.js'
import type { RunReport } from '../../report/report.js'
import type { ReportSection } from '../../report/section.js'
import {
  type SweepFindings,
  sweepOutputs,
  sweepPhrase,
  sweepSummary
} from '../../report/sweep-report.js'
import type { Step, StepContext } from '../step.js'

declare module '../../report/report.js' {
  interface RunReport {
    /** With `sweep`: what it found. */
    sweep?: SweepFindings
  }
}

/** The inputs a sweep reads. */
interface SweepInputs {
  sweep?: SweepPattern
  projectId?: string
  /** Not given: DEFAULT_OLDER_THAN_MS. */
  olderThanMs?: number
  failOnStale: boolean
}

/** What a sweep needs beside its context: a reader of pull requests, where there is one. */
interface SweepNeeds {
  readPullRequests?: ReadPullRequests
}

/** What the branch list, read least recently updated first, misses when cut at its page cap. */
const UNSEEN =
  'the most recently updated branches beyond it are not judged, and a listed branch may have children there'

/** Why a pull request is unread when the run's timeout came before GitHub's answer. */
const UNANSWERED = 'no answer before the timeout ran out'

/** Reads what the verdict needs: every branch, every compute, and the pull requests to read. */
async function readFacts(
  pattern: SweepPattern,
  inputs: { projectId: string; olderThanMs: number },
  { client, clock, signal, deadline, readPullRequests }: StepContext & SweepNeeds
): Promise<{ facts: SweepFacts; cut?: string }> {
  const { projectId, olderThanMs } = inputs
  const { branches, cut } = await client.branches.listBranches(projectId, {
    unseen: UNSEEN,
    oldestFirst: true
  })
  const computes = await client.computes.listProjectComputes(projectId)
  const facts: SweepFacts = { branches, computes, pattern, now: clock.wallNow(), olderThanMs }
  if (pattern.capturesPr && readPullRequests) {
    // GitHub's answers count until timeout; each one still missing then is named unread.
    const limit = timeLimit(clock, deadline - clock.now(), () => new Error(UNANSWERED), signal)
    try {
      facts.pullRequests = await readPullRequests(pullRequestsToRead(facts), limit.signal)
    } finally {
      limit.release()
    }
  }
  return { facts, cut }
}

/** The run's outcome from the findings, and what was not judged in the log. */
function sweepDecided(report: RunReport, inputs: SweepInputs, logger: Logger): void {
  const findings = report.sweep!
  const { stale, undecided } = findings.verdict
  for (const branch of undecided) {
    logger.warning(`Branch "${branch.name}" (${branch.id}) was not judged: ${branch.why}`)
  }
  logger.info(phraseText(capitalized(sweepPhrase(findings))))
  if (findings.verdict.matched === 0 && findings.cut === undefined) {
    // A pattern with a typo finds nothing to sweep, run after run: never a silent pass.
    logger.warning(
      `No branch of the project matches ${JSON.stringify(findings.pattern)}: check the pattern`
    )
  }
  const unread = undecided.length > 0 || findings.cut !== undefined
  if (inputs.failOnStale && stale.length > 0) report.outcome = 'failure'
  else if (inputs.failOnStale && unread) {
    report.outcome = 'error'
    report.error = `Could not tell that no branch is stale: ${phraseText(notRead(findings))}`
  } else report.outcome = 'success'
}

/** What was not judged: branches, and the list beyond its cut. */
function notRead({ verdict, cut }: SweepFindings): Phrase {
  const parts = [
    verdict.undecided.length > 0 &&
      `${plural(verdict.undecided.length, 'matching branch', 'matching branches')} could not be judged`,
    cut && `the branch list stopped (${cut}) before its end`
  ].filter((part): part is string => Boolean(part))
  return [parts.join('; ')]
}

const SWEEP_SECTION: ReportSection = {
  phase: 'before-wait',
  outcomeLine: ({ sweep, outcome }) =>
    sweep && (outcome === 'success' || outcome === 'failure') ? sweepPhrase(sweep) : undefined,
  errorLine: ({ sweep, outcome }) =>
    sweep && outcome === 'failure' ? phraseText(capitalized(sweepPhrase(sweep))) : undefined,
  summary: {
    place: 'above-operations',
    render: (format, { sweep }, limits) =>
      sweep ? sweepSummary(format, sweep, limits.operationRows) : []
  },
  outputs: ({ sweep }) => sweep && sweepOutputs(sweep)
}

export const SWEEP_STEP: Step<SweepInputs, SweepNeeds> = {
  section: SWEEP_SECTION,
  help: {
    usage: 'sweep {sweep} [{older_than}] [{fail_on_stale}]',
    ends: [
      ['failure', 'sweep {fail_on_stale} found a stale branch'],
      ['error', 'sweep {fail_on_stale} found none stale but could not judge every branch']
    ]
  },
  // A gate of its own: no branch resolved, no wait, fail_fast and the database left out.
  plan: (draft) =>
    draft.inputs.sweep
      ? { ...draft, gate: 'sweep', stepsAlone: true, wait: { ...draft.wait, failFast: false } }
      : undefined,
  run: async (inputs, report, context) => {
    const { sweep: pattern, projectId } = inputs
    if (!pattern || !projectId) return
    report.projectId = projectId
    const olderThanMs = inputs.olderThanMs ?? DEFAULT_OLDER_THAN_MS
    const { facts, cut } = await readFacts(pattern, { projectId, olderThanMs }, context)
    report.sweep = {
      verdict: judgeSweep(facts),
      pattern: pattern.text,
      olderThanMs,
      pullRequestsRead: facts.pullRequests !== undefined,
      ...(cut ? { cut } : {})
    }
    sweepDecided(report, inputs, context.logger)
  }
}
