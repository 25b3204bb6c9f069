/** Shows a bundle run readably in a terminal: the log, the outputs and the job summary as text. */
import type { BundleRun } from '../../__tests__/support/bundles/run-bundle.ts'

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text)

/** One log line of the runner's protocol as a person would see it in the Actions UI. */
function renderLogLine(line: string): string | undefined {
  if (line.startsWith('::debug::') || line.startsWith('::add-mask::') || line === '')
    return undefined
  const command = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/.exec(line)
  if (command) return `${command[1].toUpperCase()}: ${command[2]}`
  return line
}

/**
 * An onStdout handler for runBundle that prints each complete log line as rendered by
 * renderLogLine, holding back a line split across chunks until its end arrives.
 */
export function logPrinter(): (chunk: string) => void {
  let pending = ''
  return (chunk) => {
    const lines = (pending + chunk).split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const shown = renderLogLine(line)
      if (shown !== undefined) console.log(`  | ${shown}`)
    }
  }
}

function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}

const cellText = (html: string) =>
  decode(html.replace(/<br>/g, ' / ').replace(/<[^>]+>/g, '')).trim()

/** Columns of the text timeline's bars. */
const TIMELINE_WIDTH = 40

/**
 * The summary's Mermaid gantt chart as text: one labelled bar a line (its section, the action or
 * `database`, and its name), placed on the chart's span, with its start in seconds.
 */
export function timelineText(chart: string): string[] {
  const bars: { label: string; start: number; end: number }[] = []
  let section = ''
  for (const line of chart.split('\n')) {
    const heading = /^\s+section (.+)$/.exec(line)
    if (heading) section = heading[1]
    const task = /^\s+▸ (.*?) :(?:\w+, )?(\d+), (\d+)$/.exec(line)
    if (task) bars.push({ label: `${section}  ${task[1]}`, start: +task[2], end: +task[3] })
  }
  const operations = bars.filter((bar) => !bar.label.startsWith('database  ')).length
  if (bars.length === 0) return []
  const first = Math.min(...bars.map((bar) => bar.start))
  const span = Math.max(...bars.map((bar) => bar.end)) - first || 1
  const width = Math.max(...bars.map((bar) => [...bar.label].length))
  const column = (ms: number) => Math.round(((ms - first) / span) * TIMELINE_WIDTH)
  // Only the start is told: the chart draws a short bar a second long, so that it shows.
  const seconds = (ms: number) => ((ms - first) / 1000).toFixed(1)
  return [
    `Timeline (GitHub draws it as a chart): ${operations} operation${operations === 1 ? '' : 's'}${
      operations < bars.length ? ', then the database check' : ''
    }`,
    ...bars.map((bar) => {
      const from = Math.min(column(bar.start), TIMELINE_WIDTH - 1)
      const to = Math.max(column(bar.end), from + 1)
      const drawn = ' '.repeat(from) + '█'.repeat(to - from) + ' '.repeat(TIMELINE_WIDTH - to)
      const label = bar.label + ' '.repeat(width - [...bar.label].length)
      return `  ${label}  |${drawn}|  from ${seconds(bar.start)} s`
    })
  ]
}

/** The job summary's HTML as text: headings, paragraphs, the timeline and aligned tables. */
export function renderSummaryText(html: string): string {
  const lines: string[] = []
  // GitHub draws the Mermaid chart; a terminal gets the same bars in text.
  const text = html.replace(/\n*```mermaid\n([\s\S]*?)\n```\n*/g, (_block, chart: string) => {
    return `\n<timeline>${chart}</timeline>\n`
  })
  for (const block of text.split(/\n(?=<h\d>|<p>|<table>|<timeline>)/)) {
    if (block.startsWith('<timeline>')) {
      lines.push(...timelineText(block.slice('<timeline>'.length, block.indexOf('</timeline>'))))
    } else if (block.startsWith('<table>')) {
      const rows = [...block.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
        [...row[1].matchAll(/<t[hd]>(.*?)<\/t[hd]>/g)].map((cell) => cellText(cell[1]))
      )
      const widths = rows[0].map((_, column) =>
        Math.max(...rows.map((row) => [...(row[column] ?? '')].length))
      )
      rows.forEach((row, index) => {
        lines.push(
          '  ' +
            row
              .map((cell, column) => cell + ' '.repeat(widths[column] - [...cell].length))
              .join('  ')
        )
        if (index === 0) lines.push('  ' + widths.map((width) => '-'.repeat(width)).join('  '))
      })
    } else if (/^<h\d>/.test(block)) {
      lines.push('', bold(cellText(block)))
    } else {
      lines.push(cellText(block))
    }
  }
  return lines.join('\n').trim()
}

export function renderRun(run: BundleRun): string {
  const width = Math.max(...Object.keys(run.outputs).map((name) => name.length), 0)
  const outputs = Object.entries(run.outputs).map(([name, value]) => {
    const shown = value.length > 100 ? `${value.slice(0, 97)}...` : value
    return `  ${name.padEnd(width)}  ${shown}`
  })
  return [
    bold(`Exit code: ${run.code ?? run.signal}   (${(run.durationMs / 1000).toFixed(1)} s)`),
    '',
    bold('Outputs (GITHUB_OUTPUT)'),
    ...outputs,
    '',
    bold('Job summary (GITHUB_STEP_SUMMARY)'),
    renderSummaryText(run.summary)
  ].join('\n')
}
