/*
 * What the command hands on: standard output (a plain report, or the outputs as one JSON object),
 * the job summary's Markdown (--summary) and the outputs as dotenv lines (--dotenv, for GitLab's
 * dotenv reports). Secrets are taken out of each, and API text made harmless for a terminal and a
 * CI log, here.
 */
import {
  CUT_MARKER,
  forJsonLine,
  forLog,
  type Redactor,
  truncate,
  truncateBytes
} from '../domain/untrusted-text.js'
import { errorLine, renderTextReport, typedOutputs } from '../gate/run-report.js'
import { outputText } from '../report/outputs.js'
import type { RunReport } from '../report/report.js'

/**
 * Outputs that are JSON documents of any size: in the JSON result, never in a dotenv line (the
 * `blockers` of `before`, at most six, go there as a JSON array, every entry kept).
 */
const JSON_OUTPUTS = new Set(['operation', 'operations', 'projects', 'stale'])
/**
 * GitLab takes a dotenv report of at most 5 KB and, on some plans, 20 variables: the scalar
 * outputs (17, or with `before` 18 with `preflight`, `preflight_branch_id` and `blockers` and
 * without the database's two) and 2 lines of the command's own, each value cut (after it was made
 * safe, in UTF-8 bytes) to this, the texts longer, stay within both (at most 4.6 KB).
 */
const MAX_DOTENV_VALUE_BYTES = 160
const MAX_DOTENV_TEXT_BYTES = 800
const DOTENV_TEXTS = new Set(['error', 'message', 'blockers'])

/**
 * Standard output: the report as plain text, or the outputs as one JSON object, whole (GitHub's 1 MB
 * of outputs a job, which cuts the action's arrays, is no limit here).
 */
export function standardOutput(report: RunReport, output: 'text' | 'json', redactor: Redactor) {
  if (output === 'text') return redactor.redact(renderTextReport(report))
  const { values } = typedOutputs(report, Infinity)
  const set = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined))
  return `${forJsonLine(redactor.redactJson(set))}\n`
}

/**
 * `GATE_OUTCOME=failure` and the rest of the scalar outputs, one line each, then what a later job
 * needs when the gate could not even say an outcome: `GATE_EXIT_CODE` and `GATE_MESSAGE` (the
 * error line of standard error, when there is one).
 */
export function dotenvText(report: RunReport, { redactor, code, message }: ResultContext): string {
  const { values } = typedOutputs(report, Infinity)
  const lines: DotenvLine[] = []
  for (const [name, value] of Object.entries(values)) {
    if (JSON_OUTPUTS.has(name)) continue
    if (Array.isArray(value)) {
      const written = dotenvJsonList(value, redactor)
      lines.push([name, written, written])
    } else lines.push([name, outputText(value)])
  }
  lines.push(['exit_code', String(code)])
  const said = message ?? errorLine(report)
  if (said) lines.push(['message', said])
  return dotenvLines(lines, redactor)
}

/** An output's name, its text, and its value as written when it is already made safe and cut. */
type DotenvLine = [name: string, text: string, written?: string]

/** `GATE_NAME=value` lines, each value redacted, made safe and cut. */
export function dotenvLines(lines: DotenvLine[], redactor: Redactor): string {
  return lines
    .map(([name, text, ready]) => {
      const bytes = DOTENV_TEXTS.has(name) ? MAX_DOTENV_TEXT_BYTES : MAX_DOTENV_VALUE_BYTES
      const value = ready ?? dotenvValue(forLog(redactor.redact(text)), bytes)
      return `GATE_${name.toUpperCase()}=${value}\n`
    })
    .join('')
}

/**
 * A JSON array (the blockers, `{reason, detail}`, at most six) as a dotenv value that stays JSON and
 * keeps every entry: redacted, written as one line (forJsonLine), `$` and `%` doubled, within
 * MAX_DOTENV_TEXT_BYTES. When the whole does not fit, every `detail` is cut (with the marker) to the
 * longest length at which all fit: a reason is never left out, only the end of what to do.
 */
function dotenvJsonList(items: unknown[], redactor: Redactor): string {
  const redacted = items.map((item) => redactor.redactJson(item) as Record<string, unknown>)
  const written = (maxChars: number) =>
    doubleSigns(
      forJsonLine(
        redacted.map(({ detail, ...rest }) =>
          typeof detail === 'string' ? { ...rest, detail: truncate(detail, maxChars) } : rest
        )
      )
    )
  const fits = (maxChars: number) => Buffer.byteLength(written(maxChars)) <= MAX_DOTENV_TEXT_BYTES
  // The longest cut that fits, between none (the marker alone) and the longest detail.
  let [low, high] = [0, Math.max(0, ...redacted.map(({ detail }) => String(detail ?? '').length))]
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (fits(middle)) low = middle
    else high = middle - 1
  }
  return written(low)
}

/** GitLab's escapes of `$` and `%` (dotenvValue). */
function doubleSigns(text: string): string {
  return text.replace(/[$%]/g, (sign) => sign + sign)
}

/**
 * GitLab expands `$NAME`, `${NAME}` and `%NAME%` in a dotenv report's values in the jobs that read
 * them, so API text could pull a CI variable (a token) into `$GATE_MESSAGE`: each `$` and `%` is
 * doubled, GitLab's escapes (the runner turns `$$` back into `$`; `%%` stays), and a cut never
 * leaves one of a pair alone.
 */
function dotenvValue(text: string, maxBytes: number): string {
  const value = truncateBytes(doubleSigns(text), maxBytes)
  if (!value.endsWith(CUT_MARKER)) return value
  const kept = value.slice(0, -CUT_MARKER.length)
  const lastRun = /([$%])\1*$/.exec(kept)?.[0] ?? ''
  return lastRun.length % 2 === 1 ? kept.slice(0, -1) + CUT_MARKER : value
}

/** What the dotenv file is written with: the redactor, the exit code the command ends with, and the
 * error line (by default the report's). */
export interface ResultContext {
  redactor: Redactor
  code: number
  message?: string
}

/** Where the result goes: process.stdout, or anything that takes text and calls back the same way. */
export interface OutputStream {
  write(text: string, callback?: (error?: Error | null) => void): unknown
}

/**
 * Writes `text`, then resolves once it has been handed over (a pipe's writes are asynchronous in
 * Node, and process.exit() drops what is still queued): undefined when it was, or when the reader
 * left (EPIPE: `| head` took what it wanted); else the write's error (ENOSPC, EIO, EBADF), which
 * means the result is lost.
 */
export function handOver(stream: OutputStream, text: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    let failure: NodeJS.ErrnoException | undefined
    const note = (error?: Error | null): void => {
      // A write queued behind the one that failed hears only that the stream was destroyed.
      const earlier = failure && failure.code !== 'ERR_STREAM_DESTROYED'
      if (error && !earlier) failure = error
    }
    stream.write(text, note)
    stream.write('', (error) => {
      note(error)
      const code = failure && (failure.code ?? 'an error without a code')
      resolve(code === 'EPIPE' ? undefined : code)
    })
  })
}
