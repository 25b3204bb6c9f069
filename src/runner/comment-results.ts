/*
 * What the sticky comment holds when several runs of one gate share it: the legs of one workflow
 * run and attempt (a matrix) each add their result, and the comment shows the worst of them first,
 * with its details, then every result. The results are kept in the comment itself, as JSON in a
 * hidden last line, so that a leg can read what the others wrote and merge its own in; GitHub's
 * REST API has nothing else to keep them in, and no conditional update (pr-comment.ts says what
 * that leaves). A new run or a new attempt starts the list afresh.
 */
import { z } from 'zod'
import { forHtml, truncate } from '../domain/untrusted-text.js'
import type { RunOutcome } from '../report/report.js'

/** Outcomes from the least to the most severe: the comment's headline is the most severe. */
const BY_SEVERITY = ['success', 'pending', 'cancelled', 'timeout', 'error', 'failure'] as const
/** Results kept in one comment (a matrix has at most 256 legs); the most severe stay. */
const MAX_RESULTS = 30
/** A result's line, as the comment's table and its hidden data hold it. */
const MAX_LINE_CHARS = 200
/** What the table and the hidden data may take of the comment, in UTF-8 bytes. */
export const RESULTS_BUDGET_BYTES = 18_000
/**
 * What the details of the result shown may take: with the results, the marker and the footer, the
 * body stays under 60,000 UTF-8 bytes (GitHub refuses a comment over 65,536 characters).
 */
export const DETAILS_BUDGET_BYTES = 40_000

const DATA_START = '<!-- neon-operations-gate-results '
const DATA_END = ' -->'
/** Ends the details of the result shown, which start right after the marker's line. */
const DETAILS_END = '<!-- neon-operations-gate-details-end -->'

const LegResultSchema = z.object({
  /** One run of the action: a random id of its own (no variable tells matrix legs apart). */
  leg: z.string().min(1).max(64),
  outcome: z.enum(BY_SEVERITY),
  /** The report's first line, plain text. */
  line: z.string().max(4 * MAX_LINE_CHARS),
  /** When it was written (ISO 8601). */
  at: z.string().max(40)
})
export type LegResult = z.infer<typeof LegResultSchema>

const RunResultsSchema = z.object({
  run: z.string().max(40),
  attempt: z.string().max(40),
  /** The leg whose details the comment shows: the most severe result, the newest of those. */
  shown: z.string().max(64),
  results: z.array(LegResultSchema).max(MAX_RESULTS)
})
type RunResults = z.infer<typeof RunResultsSchema>

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

export function legResult(leg: string, outcome: RunOutcome, line: string, at: number): LegResult {
  return { leg, outcome, line: truncate(line, MAX_LINE_CHARS), at: new Date(at).toISOString() }
}

/**
 * What a comment of the action's holds; undefined when it holds no results (a comment written
 * before legs added theirs, or one edited by hand).
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
  return { results: parsed.data, details: body.slice(marker.length + 1, detailsEnd + 1) }
}

const severity = (result: LegResult): number => BY_SEVERITY.indexOf(result.outcome)

/** Whether run `a` (and attempt) came after run `b`: run ids only grow. */
function isLater(a: { run: string; attempt: string }, b: { run: string; attempt: string }) {
  const [runA, runB, attemptA, attemptB] = [a.run, b.run, a.attempt, b.attempt].map(Number)
  if (!a.run || !b.run || [runA, runB, attemptA, attemptB].some(Number.isNaN)) return false
  return runA > runB || (runA === runB && attemptA > attemptB)
}

/**
 * The comment's content once this run's result is in: the results that comments of the same run
 * and attempt hold (several, when legs created one each at once), with this one added (or put in
 * place of its earlier self), and the details of the most severe, the newest of those. Another
 * run's results are left behind; `later` when a comment already holds a later run's.
 */
export function mergeResults(
  comments: (CommentContent | undefined)[],
  own: OwnResult
): CommentContent | 'later' {
  const found = comments.filter((content) => content !== undefined)
  if (found.some((content) => isLater(content.results, own))) return 'later'
  const sameRun = own.run
    ? found.filter(({ results }) => results.run === own.run && results.attempt === own.attempt)
    : []
  const byLeg = new Map<string, LegResult>()
  for (const result of sameRun.flatMap((content) => content.results.results)) {
    if (!byLeg.has(result.leg)) byLeg.set(result.leg, result)
  }
  byLeg.set(own.result.leg, own.result)
  const results = mostSevere([...byLeg.values()], MAX_RESULTS)
  const shown = mostSevere(results, 1)[0]
  const carried =
    shown.leg === own.result.leg
      ? own.details
      : sameRun.find((content) => content.results.shown === shown.leg)?.details
  // Another leg's details, as its comment holds them: within their budget, or its line alone.
  const details =
    carried !== undefined && Buffer.byteLength(carried) <= DETAILS_BUDGET_BYTES
      ? carried
      : fallbackDetails(shown)
  return {
    results: { run: own.run, attempt: own.attempt, shown: shown.leg, results },
    details
  }
}

/** The `count` most severe results (the newest of equals), in the order they were written. */
function mostSevere(results: LegResult[], count: number): LegResult[] {
  const ranked = results
    .map((result, order) => ({ result, order }))
    .sort((a, b) => severity(b.result) - severity(a.result) || b.order - a.order)
    .slice(0, count)
  return ranked.sort((a, b) => a.order - b.order).map(({ result }) => result)
}

/** Details for a result whose own are not at hand (its comment was edited): its line. */
function fallbackDetails(result: LegResult): string {
  return `<h2>Neon operations gate</h2>\n<p>${forHtml(result.line, MAX_LINE_CHARS)}</p>\n`
}

/**
 * The comment: the marker, the details of the result shown (the worst), every result of the run
 * when there are several, the footer, and the results as data on the last line. The table and the
 * data stay within RESULTS_BUDGET_BYTES: lines are cut shorter, then the least severe results are
 * left out of the table.
 */
export function renderComment(marker: string, content: CommentContent, footer: string): string {
  const { results } = content
  for (let lineChars = MAX_LINE_CHARS, rows = results.results.length; ;) {
    const shown = mostSevere(results.results, rows)
    const table = shown.length > 1 ? resultsTable(shown, results.results.length, lineChars) : ''
    const data = dataLine({ ...results, results: shown }, lineChars)
    const fits = Buffer.byteLength(table + data) <= RESULTS_BUDGET_BYTES
    if (fits || rows === 1) {
      // The details end with a line break, so that the end of the details stands on its own line.
      const details = content.details.endsWith('\n') ? content.details : `${content.details}\n`
      return `${marker}\n${details}${DETAILS_END}\n${table}${footer}${data}`
    }
    if (lineChars > 20) lineChars = Math.floor(lineChars / 2)
    else rows--
  }
}

function resultsTable(results: LegResult[], total: number, lineChars: number): string {
  const rows = results.map(
    (result, index) =>
      `<tr><td>${index + 1}</td><td>${forHtml(result.line, lineChars)}</td><td>${forHtml(result.at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'), 40)}</td></tr>`
  )
  const left = total - results.length
  if (left > 0) rows.push(`<tr><td colspan="3">… and ${left} more results not shown</td></tr>`)
  return [
    `<h3>${total} results of this workflow run</h3>`,
    '<p>Its legs (a matrix) share this comment; the worst outcome is shown above.</p>',
    '<table>',
    '<tr><th>#</th><th>Result</th><th>Reported</th></tr>',
    ...rows,
    '</table>',
    ''
  ].join('\n')
}

/** The results as one line of JSON in an HTML comment: no `<` or `>` can end it early. */
function dataLine(results: RunResults, lineChars: number): string {
  const cut = results.results.map((result) => ({
    ...result,
    line: truncate(result.line, lineChars)
  }))
  const json = JSON.stringify({ ...results, results: cut })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
  return `${DATA_START}${json}${DATA_END}`
}
