/*
 * What the command hands on: standard output (a plain report, or the outputs as one JSON object),
 * the job summary's Markdown (--summary) and the outputs as dotenv lines (--dotenv, for GitLab's
 * dotenv reports). Secrets are taken out of each, and API text made harmless for a terminal and a
 * CI log, here.
 */
import { appendFile, writeFile } from 'node:fs/promises'
import {
  CUT_MARKER,
  forJsonLine,
  forLog,
  type Redactor,
  truncateBytes
} from '../domain/untrusted-text.js'
import { errorLine } from '../report/headline.js'
import { outputFileProblem } from '../gate/output-files.js'
import { outputText, typedOutputs } from '../report/outputs.js'
import type { RunReport } from '../report/report.js'
import { MAX_SUMMARY_BYTES, renderSummaryWithin, renderTextReport } from '../report/summary.js'
import type { ResultTargets } from './flags.js'

/**
 * Outputs that are JSON documents of any size: in the JSON result, never in a dotenv line (the
 * `blockers` of `before`, at most five, go there as their JSON, cut like a text).
 */
const JSON_OUTPUTS = new Set(['operation', 'operations', 'projects'])
/**
 * GitLab takes a dotenv report of at most 5 KB and, on some plans, 20 variables: the scalar
 * outputs (17, or with `before` 17 with `preflight` and `blockers` and without the database's two)
 * and 2 lines of the command's own, each value cut (after it was made safe, in UTF-8 bytes) to
 * this, the texts longer, stay within both (at most 4.4 KB).
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
function dotenvText(report: RunReport, { redactor, code }: ResultContext): string {
  const { values } = typedOutputs(report, Infinity)
  const lines = Object.entries(values)
    .filter(([name]) => !JSON_OUTPUTS.has(name))
    .map(([name, value]) => [name, outputText(value)])
  lines.push(['exit_code', String(code)])
  const message = errorLine(report)
  if (message) lines.push(['message', message])
  return lines
    .map(([name, text]) => {
      const bytes = DOTENV_TEXTS.has(name) ? MAX_DOTENV_TEXT_BYTES : MAX_DOTENV_VALUE_BYTES
      return `GATE_${name.toUpperCase()}=${dotenvValue(forLog(redactor.redact(text)), bytes)}\n`
    })
    .join('')
}

/**
 * GitLab expands `$NAME`, `${NAME}` and `%NAME%` in a dotenv report's values in the jobs that read
 * them, so API text could pull a CI variable (a token) into `$GATE_MESSAGE`: each `$` and `%` is
 * doubled, GitLab's escapes (the runner turns `$$` back into `$`; `%%` stays), and a cut never
 * leaves one of a pair alone.
 */
function dotenvValue(text: string, maxBytes: number): string {
  const value = truncateBytes(
    text.replace(/[$%]/g, (sign) => sign + sign),
    maxBytes
  )
  if (!value.endsWith(CUT_MARKER)) return value
  const kept = value.slice(0, -CUT_MARKER.length)
  const lastRun = /([$%])\1*$/.exec(kept)?.[0] ?? ''
  return lastRun.length % 2 === 1 ? kept.slice(0, -1) + CUT_MARKER : value
}

/** What the files are written with: the redactor, and the exit code the command ends with. */
interface ResultContext {
  redactor: Redactor
  code: number
}

/**
 * Which of the result files can take a write, and why the others cannot, found before the gate
 * runs. The problem never repeats a path: a secret is sometimes given where a path belongs.
 */
export function checkResultTargets(targets: ResultTargets): {
  writable: ResultTargets
  problems: string[]
} {
  const writable: ResultTargets = {}
  const problems: string[] = []
  const summaryProblem = targets.summary && outputFileProblem(targets.summary.path, true)
  if (summaryProblem) problems.push(`--summary: ${summaryProblem}`)
  else writable.summary = targets.summary
  const dotenvProblem = targets.dotenvFile && outputFileProblem(targets.dotenvFile, true)
  if (dotenvProblem) problems.push(`--dotenv: ${dotenvProblem}`)
  else writable.dotenvFile = targets.dotenvFile
  return { writable, problems }
}

/**
 * Writes the summary and the dotenv file, whatever the outcome (a later job reads why it failed),
 * bad input included; each replaces what an earlier run left there (the step's summary inside
 * GitHub Actions is appended to). One that fails does not keep the other from being written; the
 * error names the flag and the error's code, never the path.
 */
export async function writeResultFiles(
  report: RunReport,
  { summary, dotenvFile }: ResultTargets,
  context: ResultContext
): Promise<void> {
  const writes: [string, () => Promise<void>][] = []
  if (summary) {
    const markdown = context.redactor.redact(renderSummaryWithin(report, MAX_SUMMARY_BYTES))
    writes.push([
      '--summary',
      () => (summary.append ? appendFile : writeFile)(summary.path, markdown)
    ])
  }
  if (dotenvFile) {
    writes.push(['--dotenv', () => writeFile(dotenvFile, dotenvText(report, context))])
  }
  const failed: string[] = []
  for (const [flag, write] of writes) {
    try {
      await write()
    } catch (error) {
      failed.push(`${flag}: ${(error as NodeJS.ErrnoException).code ?? 'an error without a code'}`)
    }
  }
  if (failed.length > 0) throw new Error(failed.join('; '))
}
