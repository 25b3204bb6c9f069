/*
 * The report, published to every sink of the runner: the step's error line, the annotations, the
 * outputs, the job summary and the pull-request comment. Each sink is written on its own: one that
 * fails is reported and the others are still written. Secrets are redacted from each, and the log
 * made safe for the runner, here.
 */
import * as core from '@actions/core'
import type { Logger } from '../domain/logger.js'
import { buildOutputs, errorLine, renderSummaryWithin } from '../gate/run-report.js'
import type { RunReport } from '../report/report.js'
import { MAX_SUMMARY_BYTES } from '../report/summary.js'
import { annotationsFor } from './annotations.js'
import { type GitHubContext, summaryFacts } from './github-context.js'
import type { ActionInputs } from './input-helper.js'
import { writePullRequestComment } from './pr-comment.js'
import { outputFileProblem } from '../gate/output-files.js'

export interface Sinks {
  logger: Logger
  /** Secrets out of any text. */
  redact: (text: string) => string
  /** Secrets out, and the text made harmless for the runner's log. */
  toLog: (text: string) => string
}

export async function publish(
  report: RunReport,
  inputs: ActionInputs | undefined,
  context: GitHubContext,
  sinks: Sinks
): Promise<void> {
  const { logger, redact, toLog } = sinks
  const line = errorLine(report)
  const annotations = annotationsFor(report)
  // The step's failure is an annotation itself: one that says the same gives it its title, once.
  const same = annotations.find((annotation) => annotation.message === line)
  if (line && same) {
    process.exitCode = core.ExitCode.Failure
    core.error(toLog(line), { title: toLog(same.title) })
  } else if (line) core.setFailed(toLog(line))
  for (const annotation of annotations.filter((each) => each !== same)) {
    core.error(toLog(annotation.message), { title: toLog(annotation.title) })
  }
  const { outputs, notes } = buildOutputs(report)
  for (const note of notes) logger.warning(note)
  writeOutputs(outputs, sinks)
  const summary = renderSummaryWithin(report, MAX_SUMMARY_BYTES, { about: summaryFacts(context) })
  await writeSummary(redact(summary), logger)
  if (inputs && inputs.prComment !== 'off') {
    const url = await writePullRequestComment({
      mode: inputs.prComment,
      token: inputs.githubToken,
      author: inputs.prCommentAuthor,
      legInput: inputs.prCommentLeg,
      context,
      report,
      gate: {
        projectId: inputs.projectId,
        branchId: inputs.branchId,
        operationIds: inputs.operationIds
      },
      logger,
      redact
    })
    writeOutputs({ comment_url: url ?? '' }, sinks)
  }
}

/** Outputs are the step's result: a runner file that cannot take them fails the step. */
function writeOutputs(outputs: Record<string, string>, { redact, toLog }: Sinks): void {
  try {
    const file = process.env.GITHUB_OUTPUT
    const problem = file && outputFileProblem(file)
    if (problem) throw new Error(problem)
    for (const [name, value] of Object.entries(outputs)) core.setOutput(name, redact(value))
  } catch (error) {
    core.setFailed(
      toLog(`Could not write the step's outputs (GITHUB_OUTPUT): ${(error as Error).message}`)
    )
  }
}

async function writeSummary(html: string, logger: Logger): Promise<void> {
  const file = process.env.GITHUB_STEP_SUMMARY
  if (!file) {
    logger.debug('GITHUB_STEP_SUMMARY is not set; no job summary written')
    return
  }
  try {
    const problem = outputFileProblem(file)
    if (problem) throw new Error(problem)
    await core.summary.addRaw(html).write()
  } catch (error) {
    core.summary.emptyBuffer()
    logger.warning(
      `Could not write the job summary (GITHUB_STEP_SUMMARY): ${(error as Error).message}`
    )
  }
}
