/*
 * What the command hands on: standard output (a plain report, or the outputs as one JSON object),
 * the job summary's Markdown (--summary) and the outputs as dotenv lines (--dotenv, for GitLab's
 * dotenv reports). Secrets are taken out of each, and API text made harmless for a terminal and a
 * CI log, here.
 */
import { appendFile, writeFile } from 'node:fs/promises'
import { forJsonLine, forLog, type Redactor, truncate } from '../domain/untrusted-text.js'
import { outputFileProblem } from '../gate/output-files.js'
import { outputText, typedOutputs } from '../report/outputs.js'
import type { RunReport } from '../report/report.js'
import { MAX_SUMMARY_BYTES, renderSummaryWithin, renderTextReport } from '../report/summary.js'
import type { CommandRequest } from './flags.js'

/** Outputs that are JSON documents: in the JSON result, never in a dotenv line. */
const JSON_OUTPUTS = new Set(['operation', 'operations', 'projects'])
/**
 * GitLab takes a dotenv report of at most 5 KB and 20 variables on some plans: the scalar outputs
 * (16 at most) with the error cut to this many characters stay within both.
 */
const MAX_DOTENV_ERROR_CHARS = 500

/** Standard output: the report as plain text, or the outputs as one JSON object. */
export function standardOutput(report: RunReport, output: 'text' | 'json', redactor: Redactor) {
  if (output === 'text') return redactor.redact(renderTextReport(report))
  const { values } = typedOutputs(report)
  const set = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined))
  return `${forJsonLine(redactor.redactJson(set))}\n`
}

/** `GATE_OUTCOME=failure` and the rest: one line each, a single line of text each value. */
function dotenvText(report: RunReport, redactor: Redactor): string {
  const { values } = typedOutputs(report)
  const lines = Object.entries(values)
    .filter(([name]) => !JSON_OUTPUTS.has(name))
    .map(([name, value]) => {
      const text = truncate(redactor.redact(outputText(value)), MAX_DOTENV_ERROR_CHARS)
      return `GATE_${name.toUpperCase()}=${forLog(text)}`
    })
  return lines.map((line) => `${line}\n`).join('')
}

/** Why the files the command was asked to write cannot take it, before the gate runs. */
export function resultFileProblems(request: CommandRequest): string[] {
  const files = [
    ['--summary', request.summary?.path],
    ['--dotenv', request.dotenvFile]
  ] as const
  return files.flatMap(([flag, path]) => {
    const problem = path === undefined ? undefined : outputFileProblem(path, true)
    return problem ? [`${flag}: ${problem}`] : []
  })
}

/** Writes the summary and the dotenv file, whatever the outcome (a later job reads why it failed). */
export async function writeResultFiles(
  report: RunReport,
  request: CommandRequest,
  redactor: Redactor
): Promise<void> {
  const { summary, dotenvFile } = request
  if (summary) {
    const markdown = redactor.redact(renderSummaryWithin(report, MAX_SUMMARY_BYTES))
    await (summary.append ? appendFile : writeFile)(summary.path, markdown)
  }
  if (dotenvFile) await writeFile(dotenvFile, dotenvText(report, redactor))
}
