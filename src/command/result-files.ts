/*
 * The command's result files over a run: checked before the gate runs, marked "running" at once
 * (a file an earlier run left never goes on claiming that run's outcome while this one waits, nor
 * after it is killed), and written with the result once standard output has drained, with the exit
 * code the command really ends with. A path the user named (--summary, --dotenv) that cannot take
 * a write fails the run; the default summary (GITHUB_STEP_SUMMARY, inside GitHub Actions) is a
 * warning. No message repeats a path: a secret is sometimes given where a path belongs.
 */
import { statSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { appendFile, writeFile } from 'node:fs/promises'
import type { Redactor } from '../domain/untrusted-text.js'
import { outputFileProblem } from '../gate/output-files.js'
import type { RunReport } from '../report/report.js'
import { renderSummaryWithin } from '../gate/run-report.js'
import { MAX_SUMMARY_BYTES } from '../report/summary.js'
import type { ResultTargets } from './result-targets.js'
import { dotenvLines, dotenvText, type ResultContext } from './results.js'

/** The result files' problems: `problems` fail the run (exit 2), `warnings` do not. */
export interface TargetCheck {
  writable: ResultTargets
  problems: string[]
  warnings: string[]
}

/**
 * Which of the result files can take a write, and why the others cannot, found before the gate
 * runs.
 */
export function checkResultTargets(targets: ResultTargets): TargetCheck {
  const check: TargetCheck = { writable: {}, problems: [], warnings: [] }
  const { summary, dotenvFile } = targets
  const summaryProblem = summary && outputFileProblem(summary.path, true)
  if (summary && !summary.append && dotenvFile && sameFile(summary.path, dotenvFile)) {
    // The dotenv file is kept: the jobs after this one read why it failed there.
    check.problems.push(
      '--summary and --dotenv name the same file, which each would overwrite: give each a path of its own'
    )
  } else if (summary && summaryProblem) {
    if (summary.append) check.warnings.push(defaultSummaryLeftOut(summaryProblem))
    else check.problems.push(`--summary: ${summaryProblem}`)
  } else {
    check.writable.summary = summary
  }
  const dotenvProblem = dotenvFile && outputFileProblem(dotenvFile, true)
  if (dotenvProblem) check.problems.push(`--dotenv: ${dotenvProblem}`)
  else check.writable.dotenvFile = dotenvFile
  return check
}

/** Whether two paths name one file: the same path, or the same file under two names. */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true
  try {
    const [first, second] = [statSync(a), statSync(b)]
    return first.dev === second.dev && first.ino === second.ino
  } catch {
    return false
  }
}

const defaultSummaryLeftOut = (problem: string): string =>
  `GITHUB_STEP_SUMMARY: ${problem}; the job summary is left out (give --summary FILE to write it elsewhere)`

/**
 * Replaces what an earlier run left in the files with a "running" record, at once and before any
 * request: a run killed mid-wait (SIGKILL, a runner's time-out) leaves that, never an earlier
 * `GATE_OUTCOME=success`. The step summary inside GitHub Actions is the step's own and appended
 * to: it is left alone. A file that does not take it is one more problem of `check` (exit 2), and
 * is no longer written.
 */
export function markRunning(check: TargetCheck, redactor: Redactor, startedAt: Date): void {
  const { summary, dotenvFile } = check.writable
  const since = startedAt.toISOString()
  const running = `neon-gate started at ${since} and has not ended; a file still saying this means it was killed before it could write its result`
  const attempts: [string, () => void, () => void][] = []
  if (summary && !summary.append) {
    attempts.push([
      '--summary',
      () =>
        writeFileSync(summary.path, `<h2>Neon operations gate</h2>\n\n⏳ running: ${running}\n`),
      () => delete check.writable.summary
    ])
  }
  if (dotenvFile) {
    const lines: [string, string][] = [
      ['outcome', 'running'],
      ['message', running]
    ]
    attempts.push([
      '--dotenv',
      () => writeFileSync(dotenvFile, dotenvLines(lines, redactor)),
      () => delete check.writable.dotenvFile
    ])
  }
  for (const [flag, write, drop] of attempts) {
    try {
      write()
    } catch (error) {
      check.problems.push(`${flag}: it cannot be written (${codeOf(error)})`)
      drop()
    }
  }
}

const codeOf = (error: unknown): string =>
  (error as NodeJS.ErrnoException).code ?? 'an error without a code'

/** What the final write left undone, and the exit code the command ends with after it. */
export interface WriteResult {
  code: number
  /** Named paths that did not take the write: `--dotenv: ENOSPC`. */
  failed: string[]
  /** The default summary's problem. */
  warnings: string[]
}

/** A run that passed fails when a file the user named cannot hold its result. */
const FILE_FAILURE_CODE = 2
export const filesFailed = (failed: string[]): string =>
  `Could not write the result files: ${failed.join('; ')}`

/**
 * Writes the summary, then the dotenv file, whatever the outcome (a later job reads why it failed),
 * bad input included; each replaces what is there (the step's summary inside GitHub Actions is
 * appended to). A named summary that cannot be written turns a success into exit 2, and the
 * dotenv file, written last, carries that code. One that fails does not keep the other from being
 * written.
 */
export async function writeResultFiles(
  report: RunReport,
  { summary, dotenvFile }: ResultTargets,
  context: ResultContext
): Promise<WriteResult> {
  const result: WriteResult = { code: context.code, failed: [], warnings: [] }
  const failedNamed = (problem: string): void => {
    result.failed.push(problem)
    if (result.code === 0) result.code = FILE_FAILURE_CODE
  }
  if (summary) {
    const markdown = context.redactor.redact(renderSummaryWithin(report, MAX_SUMMARY_BYTES))
    try {
      await (summary.append ? appendFile : writeFile)(summary.path, markdown)
    } catch (error) {
      if (!summary.append) failedNamed(`--summary: ${codeOf(error)}`)
      else result.warnings.push(defaultSummaryLeftOut(`it cannot be written (${codeOf(error)})`))
    }
  }
  if (dotenvFile) {
    const message = result.failed.length > 0 ? filesFailed(result.failed) : context.message
    try {
      await writeFile(dotenvFile, dotenvText(report, { ...context, code: result.code, message }))
    } catch (error) {
      failedNamed(`--dotenv: ${codeOf(error)}`)
    }
  }
  return result
}
