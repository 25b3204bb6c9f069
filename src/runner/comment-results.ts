/*
 * What the sticky comment holds when several runs of one gate share it: every result of the
 * workflow run, each leg's newest (a re-run of some legs keeps the others', marked with their
 * attempt), and the worst of them first, with its details. The results are kept in the comment
 * itself, as JSON in a hidden last line, so that a leg can read what the others wrote and merge its
 * own in; GitHub's REST API has nothing else to keep them in, and no conditional update
 * (comment-writes.ts says how legs that write at once keep every result). A new run starts afresh.
 */
import { z } from 'zod'
import { forHtml, truncate } from '../domain/untrusted-text.js'
import type { RunOutcome } from '../report/report.js'
import { attemptOf, newestOfEachLeg, replacing } from './comment-newest.js'

/** Outcomes from the least to the most severe: the comment's headline is the most severe. */
const BY_SEVERITY = ['success', 'pending', 'cancelled', 'timeout', 'error', 'failure'] as const
/** Results kept in one comment (a matrix has at most 256 legs); the most severe stay. */
const MAX_RESULTS = 30
/** A result's line, as the comment's table and its hidden data hold it. */
export const MAX_LINE_CHARS = 200
/** A leg's name (its job's name, or the `pr_comment_leg` input), as the comment shows it. */
const MAX_NAME_CHARS = 80
/**
 * What the details of the result shown may take: with the results, the marker and the footer, the
 * body stays under 60,000 UTF-8 bytes (GitHub refuses a comment over 65,536 characters).
 */
export const DETAILS_BUDGET_BYTES = 40_000

export const DATA_START = '<!-- neon-operations-gate-results '
export const DATA_END = ' -->'
/** Ends the details of the result shown, which start right after the marker's line. */
export const DETAILS_END = '<!-- neon-operations-gate-details-end -->'

const LegResultSchema = z.object({
  /** This run of the action's own id (random): two legs' results never share it. */
  leg: z.string().min(1).max(64),
  /**
   * A hash of the leg's name when it can be told apart (its job's name, or the `pr_comment_leg` input):
   * the same in every attempt, so that a re-run's result takes the place of the leg's older one.
   */
  key: z.string().max(64).optional(),
  outcome: z.enum(BY_SEVERITY),
  /** The report's first line, plain text. */
  line: z.string().max(4 * MAX_LINE_CHARS),
  /** When it was written (ISO 8601). */
  at: z.string().max(40),
  /** The run attempt that wrote it; absent in comments written before attempts were kept. */
  attempt: z.string().max(40).optional(),
  /** The leg's name, when it can be told apart. */
  name: z
    .string()
    .max(4 * MAX_NAME_CHARS)
    .optional(),
  /** The one result of an earlier attempt that this one took the place of (see `replacing`). */
  replaces: z.string().max(64).optional(),
  /** The leg's slowest round trip to GitHub (ms): the other legs pause longer than it. */
  trip: z.number().int().min(0).max(60_000).optional()
})
export type LegResult = z.infer<typeof LegResultSchema>

const RunResultsSchema = z.object({
  run: z.string().max(40),
  /** The newest attempt among the results. */
  attempt: z.string().max(40),
  /** The leg whose details the comment shows: the most severe result, the newest of those. */
  shown: z.string().max(64),
  results: z.array(LegResultSchema).max(MAX_RESULTS)
})
export type RunResults = z.infer<typeof RunResultsSchema>

/** What one comment holds: its run's results, and the details of the one it shows. */
export interface CommentContent {
  results: RunResults
  /** HTML: the summary of the result shown, as its leg wrote it. */
  details: string
}

/** A result of this run, with the details it would show. */
export interface OwnResult {
  run: string
  attempt: string
  result: LegResult
  details: string
}

export function legResult(
  leg: string,
  outcome: RunOutcome,
  line: string,
  at: number,
  about: { attempt?: string; name?: string; key?: string } = {}
): LegResult {
  return {
    leg,
    outcome,
    line: truncate(line, MAX_LINE_CHARS),
    at: new Date(at).toISOString(),
    ...(about.attempt ? { attempt: about.attempt } : {}),
    ...(about.name ? { name: truncate(about.name, MAX_NAME_CHARS) } : {}),
    ...(about.key ? { key: about.key } : {})
  }
}

/**
 * What a comment of the action's holds; undefined when it holds no results (a comment written
 * before legs added theirs, or one edited by hand). Every result carries its attempt.
 */
export function readComment(body: string, marker: string): CommentContent | undefined {
  const lastLine = body.slice(body.lastIndexOf('\n') + 1)
  const detailsEnd = body.indexOf(`\n${DETAILS_END}\n`)
  if (!lastLine.startsWith(DATA_START) || !lastLine.endsWith(DATA_END) || detailsEnd < 0) {
    return undefined
  }
  let json: unknown
  try {
    json = JSON.parse(lastLine.slice(DATA_START.length, -DATA_END.length))
  } catch {
    return undefined
  }
  const parsed = RunResultsSchema.safeParse(json)
  if (!parsed.success) return undefined
  const { attempt } = parsed.data
  const results = parsed.data.results.map((result) => ({ attempt, ...result }))
  return {
    results: { ...parsed.data, results },
    details: body.slice(marker.length + 1, detailsEnd + 1)
  }
}

const severity = (result: LegResult): number => BY_SEVERITY.indexOf(result.outcome)

/** Whether run `a` (and attempt) came after run `b`: run ids only grow. */
function isLater(a: { run: string; attempt: string }, b: { run: string; attempt: string }) {
  const [runA, runB, attemptA, attemptB] = [a.run, b.run, a.attempt, b.attempt].map(Number)
  if (!a.run || !b.run || [runA, runB, attemptA, attemptB].some(Number.isNaN)) return false
  return runA > runB || (runA === runB && attemptA > attemptB)
}

/** Whether a comment holds the results of a run (or attempt) later than `own`'s. */
export function holdsLaterRun(
  comments: (CommentContent | undefined)[],
  own: Pick<OwnResult, 'run' | 'attempt'>
): boolean {
  return comments.some((content) => content !== undefined && isLater(content.results, own))
}

/** One result's identity: its leg, attempt and time (its line may be cut in the comment). */
const identity = (result: LegResult): string =>
  `${result.leg}\n${result.attempt ?? ''}\n${result.at}\n${result.replaces ?? ''}`

/** The `count` most severe results (the newest of equals), in the order they were written. */
export function mostSevere(results: LegResult[], count: number): LegResult[] {
  const ranked = results
    .map((result, order) => ({ result, order }))
    .sort((a, b) => severity(b.result) - severity(a.result) || b.order - a.order)
    .slice(0, count)
  return ranked.sort((a, b) => a.order - b.order).map(({ result }) => result)
}

/**
 * What one leg knows of its run's results: its own, and every result of the same run it has read
 * in a comment since, each leg's newest. A leg writes all of it, never only what the comment held
 * at its last read, so that a result one leg's write dropped comes back with the next leg's.
 */
export class RunRecord {
  /** Other legs' results, as comments held them (this leg's own, when a comment held it, too). */
  private readonly seen: LegResult[] = []
  /** Details of a result (by its identity), as a comment that showed it held them. */
  private readonly details = new Map<string, string>()

  constructor(private readonly own: OwnResult) {}

  /** Each leg's newest result, this leg's own written last of those written at once. */
  private newest(): LegResult[] {
    return newestOfEachLeg([...this.seen, this.own.result])
  }

  /** Adds what comments of the same run hold; `later` when one holds a later run's results. */
  absorb(comments: (CommentContent | undefined)[]): 'later' | undefined {
    if (holdsLaterRun(comments, this.own)) return 'later'
    if (!this.own.run) return undefined
    for (const { results, details } of comments.filter((content) => content !== undefined)) {
      if (results.run !== this.own.run) continue
      this.seen.push(...results.results)
      const shown = results.results.find((result) => result.leg === results.shown)
      if (shown && !this.details.has(identity(shown))) this.details.set(identity(shown), details)
    }
    const result = this.own.result
    // Counted as the comments hold them, before any result takes another's place by name.
    result.replaces ??= replacing(result, this.seen)
    return undefined
  }

  /** The content to write: at most MAX_RESULTS results, the most severe kept, and the worst's details. */
  content(): CommentContent {
    const results = mostSevere(this.newest(), MAX_RESULTS)
    const [shown] = mostSevere(results, 1)
    const carried =
      shown.leg === this.own.result.leg ? this.own.details : this.details.get(identity(shown))
    // Another leg's details, as its comment holds them: within their budget, or its line alone.
    const details =
      carried !== undefined && Buffer.byteLength(carried) <= DETAILS_BUDGET_BYTES
        ? carried
        : fallbackDetails(shown)
    const attempt = String(Math.max(...results.map(attemptOf), Number(this.own.attempt) || 0))
    return { results: { run: this.own.run, attempt, shown: shown.leg, results }, details }
  }

  /** The slowest round trip to GitHub that a leg of the run has written (ms). */
  slowestTrip(): number {
    return Math.max(0, ...this.newest().map((result) => result.trip ?? 0))
  }

  /** Whether this leg knows a result of another leg of its run and attempt: it is in a matrix. */
  hasSiblings(): boolean {
    const { leg, attempt } = this.own.result
    return this.newest().some((result) => result.leg !== leg && result.attempt === attempt)
  }

  /** Another leg of this run and attempt with this leg's name (key): the name tells neither apart. */
  namesake(): LegResult | undefined {
    const { leg, key, attempt } = this.own.result
    return key === undefined
      ? undefined
      : this.newest().find((r) => r.leg !== leg && r.key === key && r.attempt === attempt)
  }

  /**
   * Whether one of `comments` holds this leg's result: then every leg that reads them knows it, and
   * its round trip.
   */
  shownIn(comments: (CommentContent | undefined)[]): boolean {
    const own = identity(this.own.result)
    return comments.some((content) =>
      content?.results.results.some((result) => identity(result) === own)
    )
  }

  /** Whether `content` already holds everything this leg knows, and shows the worst of it. */
  heldBy(content: CommentContent | undefined): boolean {
    if (!content) return false
    const want = this.content().results
    const have = content.results
    const ids = (results: LegResult[]) => results.map(identity).sort().join('\n\n')
    return (
      have.run === want.run && have.shown === want.shown && ids(have.results) === ids(want.results)
    )
  }
}

/**
 * The comment's content once this run's result is in (see RunRecord); `later` when a comment
 * already holds a later run's results.
 */
export function mergeResults(
  comments: (CommentContent | undefined)[],
  own: OwnResult
): CommentContent | 'later' {
  const record = new RunRecord(own)
  return record.absorb(comments) ?? record.content()
}

/** Details for a result whose own are not at hand (its comment was edited): its line. */
function fallbackDetails(result: LegResult): string {
  return `<h2>Neon operations gate</h2>\n<p>${forHtml(result.line, MAX_LINE_CHARS)}</p>\n`
}
