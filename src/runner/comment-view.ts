/*
 * The sticky comment: a view of the legs' records (comment-records.ts), never their store. The
 * marker, the details of the worst result, a table of every result of the newest run (with each
 * leg's name and attempt), the footer, and on the last line what the view shows (the records'
 * keys), so that a writer can tell whether the comment already holds everything it read.
 */
import { z } from 'zod'
import { forHtml, truncate } from '../domain/untrusted-text.js'
import { BY_SEVERITY, type LegRecord, mostSevere } from './comment-records.js'

/** Results a view keeps (a matrix has at most 256 legs); the most severe stay. */
const MAX_RESULTS = 30
/** A result's line, as the table and the data hold it. */
const MAX_LINE_CHARS = 200
/** What the table and the data may take of the comment, in UTF-8 bytes. */
const RESULTS_BUDGET_BYTES = 18_000
/** The details' share: with the results, the body stays under 60,000 bytes (GitHub: 65,536 chars). */
export const DETAILS_BUDGET_BYTES = 40_000

const DATA_START = '<!-- neon-operations-gate-view '
const DATA_END = ' -->'
const DETAILS_END = '<!-- neon-operations-gate-details-end -->'
/** How a summary heads itself, for the comment's own texts. */
const HEADING = '<h2>Neon operations gate</h2>'

const ResultSchema = z.object({
  key: z.string().max(80),
  leg: z.string().max(200),
  told: z.boolean(),
  run: z.number().int(),
  attempt: z.number().int(),
  outcome: z.enum(BY_SEVERITY),
  name: z.string().max(400).optional(),
  line: z.string().max(4 * MAX_LINE_CHARS)
})

const ViewDataSchema = z.object({
  run: z.number().int(),
  /** The key of the result whose details the view shows. */
  shown: z.string().max(80),
  /** Whether those details are its leg's own (not its line alone). */
  detailed: z.boolean(),
  results: z.array(ResultSchema).max(MAX_RESULTS)
})

/** What a view shows. */
export interface View {
  run: number
  shown: string
  detailed: boolean
  results: LegRecord[]
  /** HTML: the summary of the result shown. */
  details: string
}

/**
 * The view of `records` (shownRecords' of one run): the 30 most severe, the worst's details (its
 * own leg's `details` when it is `own`, else those a comment read already shows (`displayed`, the
 * newest last), else its line).
 */
export function viewOf(
  records: LegRecord[],
  own: { key: string; details: string },
  displayed: (View | undefined)[]
): View {
  const results = mostSevere(records, MAX_RESULTS)
  const [shown] = mostSevere(results, 1)
  const carried = displayed.findLast((view) => view?.shown === shown.key && view.detailed)?.details
  const details = shown.key === own.key ? own.details : carried
  const fits = details !== undefined && Buffer.byteLength(details) <= DETAILS_BUDGET_BYTES
  return {
    run: shown.run,
    shown: shown.key,
    detailed: fits,
    results,
    details: fits ? details : fallbackDetails(shown)
  }
}

const keysOf = (view: View) =>
  view.results
    .map((result) => result.key)
    .sort()
    .join(' ')

/** Whether `displayed` holds `wanted`: the same results and result shown, with its own details. */
export function holds(displayed: View | undefined, wanted: View): boolean {
  if (!displayed) return false
  return (
    displayed.run === wanted.run &&
    displayed.shown === wanted.shown &&
    keysOf(displayed) === keysOf(wanted) &&
    (displayed.detailed || !wanted.detailed)
  )
}

/** What a view shows, in one line: its run, the result shown, whether detailed, every result. */
export function showsOf(view: View): string {
  return `${view.run} ${view.shown} ${view.detailed} ${keysOf(view)}`
}

/** What a comment of the action's shows; undefined for one without a view (older, or edited). */
export function readView(body: string, marker: string): View | undefined {
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
  const parsed = ViewDataSchema.safeParse(json)
  if (!parsed.success || !parsed.data.results.some((r) => r.key === parsed.data.shown)) {
    return undefined
  }
  return { ...parsed.data, details: body.slice(marker.length + 1, detailsEnd + 1) }
}

/**
 * The comment's body. The table and the data stay within RESULTS_BUDGET_BYTES: lines are cut
 * shorter, then the least severe results are left out of the table.
 */
export function renderView(marker: string, view: View, footer: string): string {
  for (let lineChars = MAX_LINE_CHARS, rows = view.results.length; ;) {
    const shown = mostSevere(view.results, rows)
    const table = shown.length > 1 ? resultsTable(shown, view.results.length, lineChars) : ''
    const data = dataLine({ ...view, results: shown }, lineChars)
    if (Buffer.byteLength(table + data) <= RESULTS_BUDGET_BYTES || rows === 1) {
      const details = view.details.endsWith('\n') ? view.details : `${view.details}\n`
      return `${marker}\n${details}${DETAILS_END}\n${table}${footer}${data}`
    }
    if (lineChars > 20) lineChars = Math.floor(lineChars / 2)
    else rows--
  }
}

/** A comment made before a read could confirm a pass: it shows no result (readView: no view). */
export function renderPlaceholder(marker: string, footer: string): string {
  return `${marker}\n${HEADING}\n<p>⏳ Reading every leg's result of this workflow run; they show here once read.</p>\n${footer}`
}

function resultsTable(results: LegRecord[], total: number, lineChars: number): string {
  const rows = results.map(
    (result, index) =>
      `<tr><td>${index + 1}</td><td>${forHtml(result.line, lineChars)}</td><td>${result.name ? forHtml(result.name, lineChars) : '—'}</td><td>${result.attempt}</td></tr>`
  )
  if (total > results.length) {
    rows.push(
      `<tr><td colspan="4">… and ${total - results.length} more results not shown</td></tr>`
    )
  }
  const attempts = new Set(results.map((result) => result.attempt))
  const untold = results.some((result) => !result.told)
  const note =
    attempts.size < 2
      ? []
      : [
          `<p>Results of earlier attempts stay until a re-run of the same leg replaces them.${untold ? " Some legs cannot be told apart (grant the job <code>actions: read</code>, or set the <code>pr_comment_leg</code> input): a re-run's result is added beside the one it re-ran, which stays." : ''}</p>`
        ]
  return [
    `<h3>${total} results of this workflow run</h3>`,
    '<p>Its legs (a matrix) share this comment; the worst outcome is shown above.</p>',
    ...note,
    '<table>',
    '<tr><th>#</th><th>Result</th><th>Leg</th><th>Attempt</th></tr>',
    ...rows,
    '</table>',
    ''
  ].join('\n')
}

/** What the view shows, as one line of JSON in an HTML comment: no `<` or `>` can end it early. */
function dataLine(view: View, lineChars: number): string {
  const results = view.results.map((result) => ({
    ...result,
    line: truncate(result.line, lineChars),
    ...(result.name ? { name: truncate(result.name, lineChars) } : {})
  }))
  const { run, shown, detailed } = view
  const json = JSON.stringify({ run, shown, detailed, results })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
  return `${DATA_START}${json}${DATA_END}`
}

/** Details for a result whose own are not at hand: its line, headed as a summary heads it. */
function fallbackDetails(result: LegRecord): string {
  const [, headline, rest] = /^(\S+ \w+): ([\s\S]*)$/.exec(result.line) ?? ['', result.line, '']
  const line = `<b>${forHtml(headline, 40)}</b>${rest ? `: ${forHtml(rest, MAX_LINE_CHARS)}` : ''}`
  return `${HEADING}\n<p>${line}</p>\n<p>Its details are in the summary of its leg's job.</p>\n`
}
