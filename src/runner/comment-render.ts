/*
 * The sticky comment's body: the marker, the details of the worst result, a table of every result
 * of the run (with each leg's name and attempt), the footer, and the results as data on the last
 * line (comment-results.ts reads them back).
 */
import { forHtml, truncate } from '../domain/untrusted-text.js'
import {
  type CommentContent,
  DATA_END,
  DATA_START,
  DETAILS_END,
  type LegResult,
  MAX_LINE_CHARS,
  mostSevere,
  type RunResults
} from './comment-results.js'

/** What the table and the hidden data may take of the comment, in UTF-8 bytes. */
export const RESULTS_BUDGET_BYTES = 18_000

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
    const table = shown.length > 1 ? resultsTable(shown, results, lineChars) : ''
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

/**
 * What the table says of attempts: results of earlier attempts stay, and when legs cannot be told
 * apart, a re-run's result cannot take the place of the one it re-ran.
 */
function attemptsNote(results: LegResult[]): string {
  const attempts = new Set(results.map((result) => result.attempt ?? ''))
  if (attempts.size < 2) return ''
  const newest = Math.max(...results.map((result) => Number(result.attempt) || 0))
  const unnamed = results.some((result) => !result.key && Number(result.attempt) === newest)
  const kept = 'Results of earlier attempts stay until a re-run of the same leg replaces them.'
  return unnamed
    ? `<p>${kept} The legs of this workflow cannot be told apart (grant the job <code>actions: read</code>, or set the <code>pr_comment_leg</code> input), so a re-run's result is added beside the one it re-ran, which stays.</p>`
    : `<p>${kept}</p>`
}

function resultsTable(results: LegResult[], all: RunResults, lineChars: number): string {
  const rows = results.map(
    (result, index) =>
      `<tr><td>${index + 1}</td><td>${forHtml(result.line, lineChars)}</td><td>${result.name ? forHtml(result.name, lineChars) : '—'}</td><td>${forHtml(result.attempt ?? '', 40)}</td><td>${forHtml(result.at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'), 40)}</td></tr>`
  )
  const total = all.results.length
  const left = total - results.length
  if (left > 0) rows.push(`<tr><td colspan="5">… and ${left} more results not shown</td></tr>`)
  return [
    `<h3>${total} results of this workflow run</h3>`,
    '<p>Its legs (a matrix) share this comment; the worst outcome is shown above.</p>',
    attemptsNote(all.results),
    '<table>',
    '<tr><th>#</th><th>Result</th><th>Leg</th><th>Attempt</th><th>Reported</th></tr>',
    ...rows,
    '</table>',
    ''
  ]
    .filter((line, index, lines) => line !== '' || index === lines.length - 1)
    .join('\n')
}

/** The results as one line of JSON in an HTML comment: no `<` or `>` can end it early. */
function dataLine(results: RunResults, lineChars: number): string {
  const cut = results.results.map((result) => ({
    ...result,
    line: truncate(result.line, lineChars),
    ...(result.name ? { name: truncate(result.name, lineChars) } : {})
  }))
  const json = JSON.stringify({ ...results, results: cut })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
  return `${DATA_START}${json}${DATA_END}`
}
