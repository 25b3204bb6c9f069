/*
 * How the report is written down: as HTML for the job summary and the pull-request comment (API
 * text escaped, Markdown kept out), and as plain text for the command's standard output (API text
 * made safe for a terminal and a CI log, no Markdown). The report itself (summary.ts) says what is
 * there once; a format only decides how each part looks.
 */
import { apiTime } from '../domain/api-time.js'
import { statusLabel } from '../domain/operation-status.js'
import { type Phrase, phraseHtml, phraseText } from '../domain/phrase.js'
import { forHtml, forLog, truncate } from '../domain/untrusted-text.js'

const MAX_ID_CHARS = 80
const MAX_TEXT_CHARS = 120

export interface ReportFormat {
  /** An identifier of the API's (an id, a state), cut short. */
  code(text: string | null | undefined): string
  /** Other text of the API's (or of ours quoting it), cut to `maxChars`. */
  text(value: string | null | undefined, maxChars?: number): string
  phrase(phrase: Phrase): string
  /** An operation's status as the table shows it, with our `suffix` (its failures). */
  status(status: string, suffix: string): string
  /** A line of its own. */
  paragraph(line: string): string
  /** A section's title. */
  heading(title: string, level: 2 | 3): string
  /** The outcome's label, set apart. */
  strong(text: string): string
  /** Within a cell: what follows goes below (an operation's error under its status). */
  below(first: string, second: string): string
  /** The timeline chart (Mermaid), where the format can show one. */
  chart(mermaid: string): string | undefined
  /** Rows under headers; `more`, when given, says what was left out. */
  table(headers: string[], rows: string[][], more?: string): string
  /** How the parts are joined into the whole. */
  join(parts: string[]): string
}

/** `2026-11-25 11:21:23 UTC`, or the API's text when it is no time. */
export function formatDate(format: ReportFormat, iso: string | null | undefined): string {
  if (!iso) return ''
  const time = apiTime(iso)
  if (time === undefined) return format.text(iso)
  return new Date(time)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
}

export const HTML_FORMAT: ReportFormat = {
  code: (text) => (text ? `<code>${forHtml(text, MAX_ID_CHARS)}</code>` : ''),
  text: (value, maxChars = MAX_TEXT_CHARS) => forHtml(value ?? '', maxChars),
  phrase: phraseHtml,
  status: (status, suffix) => forHtml(statusLabel(status) + suffix, MAX_TEXT_CHARS),
  paragraph: (line) => `<p>${line}</p>`,
  heading: (title, level) => `<h${level}>${title}</h${level}>`,
  strong: (text) => `<b>${text}</b>`,
  below: (first, second) => `${first}<br>${second}`,
  chart: (mermaid) => `\n\`\`\`mermaid\n${mermaid}\n\`\`\`\n`,
  table: (headers, rows, more) => {
    const head = headers.map((header) => `<th>${header}</th>`).join('')
    const body = rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`)
    if (more) body.push(`<tr><td colspan="${headers.length}">${more}</td></tr>`)
    return `<table>\n<tr>${head}</tr>\n${body.join('\n')}\n</table>`
  },
  join: (parts) => parts.join('\n') + '\n'
}

/** API text for a line of plain text: cut, and no control character or runner command left. */
function plain(value: string | null | undefined, maxChars: number): string {
  return forLog(truncate(value ?? '', maxChars))
}

/** Columns padded to their widest cell; a cell's second part (`below`) on a line of its own. */
function textTable(headers: string[], rows: string[][], more?: string): string {
  const split = rows.map((cells) => cells.map((cell) => cell.split('\n')))
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...split.map((cells) => cells[column][0].length))
  )
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd()
  const lines = [line(headers.map((header) => header.toUpperCase()))]
  for (const cells of split) {
    lines.push(line(cells.map((parts) => parts[0])))
    for (const parts of cells) for (const rest of parts.slice(1)) lines.push(`    ${rest}`)
  }
  if (more) lines.push(more)
  return lines.join('\n')
}

export const TEXT_FORMAT: ReportFormat = {
  code: (text) => (text ? plain(text, MAX_ID_CHARS) : ''),
  text: (value, maxChars = MAX_TEXT_CHARS) => plain(value, maxChars),
  phrase: (phrase) => forLog(phraseText(phrase)),
  status: (status, suffix) => plain(status, 40) + suffix,
  paragraph: (line) => line,
  // The command's report starts with its headline: no title above it.
  heading: (title, level) => (level === 2 ? '' : `\n${title}`),
  strong: (text) => text,
  // Our own mark between the parts; API text holds no line break once `plain` has made it safe.
  below: (first, second) => `${first}\n${second}`,
  chart: () => undefined,
  table: textTable,
  join: (parts) => parts.filter((part) => part !== '').join('\n') + '\n'
}
