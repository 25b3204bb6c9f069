/*
 * The command: read the flags and the secrets, run the gate, hand on the result, exit with a code
 * that tells "the operation failed" from "could not ask". Every error ends here, as one line on
 * standard error and an exit code.
 */
import type { Readable } from 'node:stream'
import type { Clock } from '../domain/clock.js'
import { CancelledError, InputError } from '../domain/errors.js'
import { forLog, forLogLines, Redactor } from '../domain/untrusted-text.js'
import {
  addSecretInputs,
  errorReport,
  GateRun,
  messageOf,
  type StopSignal
} from '../gate/gate-run.js'
import type { Inputs } from '../gate/inputs.js'
import type { RunReport } from '../report/report.js'
import { errorLine } from '../gate/run-report.js'
import { EXIT, exitCodeOf } from './exit-codes.js'
import { type CommandRequest, parseCommandLine, type ParsedCommand, UsageError } from './flags.js'
import { HELP_TEXT, VERSION_TEXT } from './help.js'
import { variableValue } from './options.js'
import { Progress, type ProgressStream } from './progress.js'
import { readInputs } from './read-inputs.js'
import { type ResultTargets, resultTargetsOf } from './result-targets.js'
import {
  checkResultTargets,
  filesFailed,
  markRunning,
  type TargetCheck,
  writeResultFiles
} from './result-files.js'
import { handOver, type OutputStream, standardOutput } from './results.js'

export interface CommandEnvironment {
  env: Record<string, string | undefined>
  stdin: Readable
  stdout: OutputStream
  stderr: ProgressStream
  /** Where SIGINT and SIGTERM are heard: process, or a stand-in. */
  signals: Pick<NodeJS.Process, 'once' | 'off'>
  /** systemClock, or a stand-in. */
  clock: Clock
}

/** How the command writes to standard error, and what it takes out first. */
interface Voice {
  color: boolean
  clean: (text: string) => string
  redactor: Redactor
}

/** Colour unless NO_COLOR is set to something (no-color.org: an empty value does not count). */
const colourWanted = (env: Record<string, string | undefined>): boolean => !env.NO_COLOR

/** Runs the command; resolves to its exit code, never rejects. */
export async function runCommand(argv: string[], environment: CommandEnvironment): Promise<number> {
  const { env } = environment
  const redactor = new Redactor()
  // A secret in the environment (the key) is known at once: redacted before any message could
  // quote it.
  addSecretInputs(redactor, (name) => variableValue(name, env))
  const voice: Voice = {
    color: colourWanted(env),
    clean: (text) => forLogLines(forLog(redactor.redact(text))),
    redactor
  }
  let parsed: ParsedCommand
  try {
    parsed = parseCommandLine(argv, env)
  } catch (error) {
    return endWithError(error, undefined, resultTargetsOf(argv, env), environment, voice)
  }
  if (!('request' in parsed)) return helpOrVersion('help' in parsed, environment)
  const { request } = parsed
  // A secret given as a flag (a database URL) is known at once too.
  addSecretInputs(redactor, (name) => request.values[name])
  const progress = new Progress(environment.stderr, { quiet: request.quiet, ...voice })
  const output = { ...environment, progress }
  // --timeout bounds the whole run, the reading of its secrets included. SIGINT and SIGTERM while
  // the command reads its secrets or runs the gate: the first aborts what is in flight (the result
  // is still reported and written); a second ends the command at once: the user means it.
  const gateRun = new GateRun({
    logger: progress,
    redactor,
    clock: environment.clock,
    signals: environment.signals,
    onRepeatedSignal: (signal) => process.exit(EXIT[signal])
  })
  const files = checkResultTargets(request)
  for (const warning of files.warnings) progress.warning(warning)
  // Before anything can take time: a file of an earlier run stops claiming that run's outcome.
  if (files.problems.length === 0) {
    markRunning(files, redactor, new Date(environment.clock.wallNow()))
  }
  const { writable } = files
  try {
    let inputs: Inputs
    try {
      if (files.problems.length > 0) throw new UsageError(files.problems.join('; '))
      inputs = await readInputs(request, environment, gateRun, redactor)
    } catch (error) {
      return await endWithError(error, gateRun.stoppedBy, files, output, voice)
    }
    const targets = { summary: writable.summary, dotenvFile: writable.dotenvFile }
    return await gateAndReport(inputs, { ...request, ...targets }, { ...output, redactor, gateRun })
  } catch (error) {
    // Nothing is expected here; the error line says what it was.
    return endWithError(error, undefined, files, output, voice)
  } finally {
    gateRun.end()
  }
}

/** --help or --version: the text on standard output, and exit 2 if it could not be written. */
async function helpOrVersion(
  help: boolean,
  { stdout, stderr }: Pick<CommandEnvironment, 'stdout' | 'stderr'>
): Promise<number> {
  const lost = await handOver(stdout, help ? HELP_TEXT : VERSION_TEXT)
  if (!lost) return EXIT.success
  stderr.write(`error: ${outputLost(lost)}\n`)
  return EXIT.usage
}

/**
 * The command ended on an error of its own, mostly before the gate ran: bad flags or input (exit
 * 2), a signal while a secret was read, or something unexpected (exit 3). One error line on
 * standard error, nothing more on standard output, and the result files that can be written, so
 * that a later job reads why (a file from an earlier run never stays claiming that run's outcome).
 */
async function endWithError(
  error: unknown,
  stoppedBy: StopSignal | undefined,
  targets: ResultTargets[] | TargetCheck,
  { stderr, progress }: Pick<CommandEnvironment, 'stderr'> & { progress?: Progress },
  { color, clean, redactor }: Voice
): Promise<number> {
  const message = messageOf(error)
  const usage = error instanceof UsageError || error instanceof InputError
  const report =
    error instanceof CancelledError && stoppedBy
      ? errorReport(`${message}, before the gate started`, redactor, { outcome: 'cancelled' })
      : usage
        ? errorReport(message, redactor, { errorCause: 'input' })
        : errorReport(`neon-gate failed unexpectedly: ${message}`, redactor)
  const code = exitCodeOf(report, stoppedBy)
  // Errors stand whatever --quiet says; the request's own progress clears its line first.
  const lines = progress ?? new Progress(stderr, { quiet: true, color, clean })
  lines.error(report.error)
  if (code === EXIT.usage) stderr.write('Run neon-gate --help for the flags.\n')
  // Read from a command line that did not parse, the paths were not checked yet: each is written.
  const unchecked = Array.isArray(targets)
  const checks = unchecked ? targets.map(checkResultTargets) : [targets]
  await writeErrorRecords(report, checks, lines, { redactor, code, unchecked })
  return code
}

/** The error's record in each set of result files; each problem said once. */
async function writeErrorRecords(
  report: RunReport,
  checks: TargetCheck[],
  lines: Progress,
  { redactor, code, unchecked }: { redactor: Redactor; code: number; unchecked: boolean }
): Promise<void> {
  const said = new Set<string>()
  const once = (kind: 'warning' | 'error', text: string): void => {
    if (!said.has(text)) lines[kind](text)
    said.add(text)
  }
  for (const check of checks) {
    if (unchecked) for (const warning of check.warnings) once('warning', warning)
    for (const problem of check.problems) {
      if (!report.error?.includes(problem)) once('error', problem)
    }
    const written = await writeResultFiles(report, check.writable, { redactor, code })
    for (const warning of written.warnings) once('warning', warning)
    if (written.failed.length > 0) once('error', filesFailed(written.failed))
  }
}

async function gateAndReport(
  inputs: Inputs,
  request: CommandRequest,
  {
    stdout,
    progress,
    redactor,
    gateRun
  }: CommandEnvironment & { progress: Progress; redactor: Redactor; gateRun: GateRun }
): Promise<number> {
  const report = await gateRun.gate(inputs, request.naming)
  progress.finish()
  const line = errorLine(report)
  if (line) progress.error(line)
  let code = exitCodeOf(report, gateRun.stoppedBy)
  let message: string | undefined
  // The files are final only once standard output is out, and say how the command really ends.
  const lost = await handOver(stdout, standardOutput(report, request.output, redactor))
  if (lost) {
    message = outputLost(lost)
    progress.error(message)
    code = EXIT.usage
  }
  const written = await writeResultFiles(report, request, { redactor, code, message })
  for (const warning of written.warnings) progress.warning(warning)
  if (written.failed.length > 0) progress.error(filesFailed(written.failed))
  return written.code
}

/** Standard output failed (a full disk, an I/O error, a closed descriptor): the result is lost. */
const outputLost = (code: string): string =>
  `Could not write standard output (${code}): the result is lost; the exit code says so, not how the gate ended`
