/*
 * What the report says of a sweep (issue 69), once: its line (how many stale branches among those
 * that match, and what could not be judged), its part of the summary (a table of the stale
 * branches, newest activity first, and one of those not judged), and its outputs (`stale`, cut with
 * the other JSON arrays to GitHub's 1 MB by outputs.ts, and `stale_count`, every one found). Branch
 * names are the API's text: each format escapes them.
 */
import { type Phrase, plural } from '../domain/phrase.js'
import type { StaleBranch, SweepVerdict } from '../domain/sweep-verdict.js'
import { formatDate, type ReportFormat } from './report-format.js'
import type { OutputValue } from './section.js'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** What a sweep found, with what it was asked and how far its read got. */
export interface SweepFindings {
  verdict: SweepVerdict
  /** `sweep`, as given. */
  pattern: string
  olderThanMs: number
  /** Why the branch list stopped short of its end (its page cap), if it did. */
  cut?: string
  /**
   * With `{pr}`: whether the pull requests were read (a front end that reads GitHub), or age alone
   * decided.
   */
  pullRequestsRead: boolean
}

const REASONS: Record<StaleBranch['reason'], string> = {
  inactive: 'no activity',
  pr_closed: 'pull request closed',
  pr_merged: 'pull request merged'
}

/** `7 days`, `36 hours`, `90 minutes`. */
export function ageText(ms: number): string {
  if (ms % DAY_MS === 0) return plural(ms / DAY_MS, 'day')
  if (ms % HOUR_MS === 0) return plural(ms / HOUR_MS, 'hour')
  return plural(Math.round(ms / 60_000), 'minute')
}

/** What `{pr}` added to the rule: a pull request closed or merged, or nothing, when none was read. */
function byPullRequest({ pattern, pullRequestsRead }: SweepFindings): string {
  if (!pattern.includes('{pr}')) return ''
  return pullRequestsRead
    ? ', or a pull request closed or merged'
    : '; no pull request was read, so age alone decides'
}

/**
 * The sweep in one line: `3 stale branches among 7 that match preview/pr-{pr} (no activity for
 * 7 days, or a pull request closed or merged)`, then what was not judged, and where the list was
 * cut.
 */
export function sweepPhrase(findings: SweepFindings): Phrase {
  const { verdict, pattern, olderThanMs, cut } = findings
  const { stale, undecided, matched } = verdict
  const found =
    stale.length === 0 ? 'no stale branch' : plural(stale.length, 'stale branch', 'stale branches')
  const phrase: Phrase = [
    `${found} among ${matched} that match `,
    { code: pattern },
    ` (no activity for ${ageText(olderThanMs)}${byPullRequest(findings)})`
  ]
  if (undecided.length > 0) {
    phrase.push(`; ${plural(undecided.length, 'branch', 'branches')} could not be judged`)
  }
  if (cut) {
    phrase.push(
      `; the branch list stopped (${cut}): the most recently updated branches beyond it were not judged`
    )
  }
  return phrase
}

/** The stale branches (at most `maxRows`), then those not judged, and why. */
export function sweepSummary(
  format: ReportFormat,
  findings: SweepFindings,
  maxRows: number
): string[] {
  const { stale, undecided } = findings.verdict
  const parts = [format.heading(`Stale branches: ${stale.length}`, 3)]
  const more = (count: number) =>
    count > maxRows ? `… and ${count - maxRows} more (the stale output lists them)` : undefined
  if (stale.length > 0) {
    const rows = stale
      .slice(0, maxRows)
      .map((item) => [
        format.code(item.name),
        format.code(item.id),
        formatDate(format, item.last_active),
        REASONS[item.reason],
        item.blockers.join(', ')
      ])
    parts.push(
      format.table(
        ['Branch', 'Id', 'Last active', 'Why stale', 'Blockers'],
        rows,
        more(stale.length)
      )
    )
  }
  if (undecided.length > 0) {
    parts.push(format.paragraph('Not judged: nothing was guessed for these.'))
    const rows = undecided
      .slice(0, maxRows)
      .map((item) => [format.code(item.name), format.code(item.id), format.text(item.why)])
    parts.push(format.table(['Branch', 'Id', 'Why not judged'], rows, more(undecided.length)))
  }
  if (findings.cut) {
    parts.push(
      format.paragraph(
        format.phrase([
          `The branch list stopped (${findings.cut}) before its end: the most recently updated branches beyond it were not judged, and a listed branch may have children there.`
        ])
      )
    )
  }
  return parts
}

/**
 * The outputs: `stale_count` (every stale branch found), `cut` (whether the branch list stopped
 * short of its end) and the `stale` array, which outputs.ts cuts from its end to fit GitHub's 1 MB,
 * with a note that gives the count it holds. Each entry is whole: a recipe deletes by its id (a
 * Neon id, at most 60 characters) and may show its name, which is never cut.
 */
export function sweepOutputs({ verdict, cut }: SweepFindings): {
  values: Record<string, OutputValue>
  list: { name: string; items: StaleBranch[]; whole: true }
} {
  return {
    values: { stale_count: verdict.stale.length, cut: cut !== undefined },
    list: { name: 'stale', items: verdict.stale, whole: true }
  }
}
