/*
 * The command: read the flags and the secrets, run the gate, hand on the result, exit with a code
 * that tells "the operation failed" from "could not ask". Every error ends here, as one line on
 * standard error and an exit code.
 */
import type { Readable } from 'node:stream'
import type { Clock } from '../domain/clock.js'
import { CancelledError, InputError } from '../domain/errors.js'
import { forLog, forLogLines, Redactor } from '../domain/untrusted-text.js'
import { addSecret, GateRun, type StopSignal } from '../gate/gate-run.js'
import { type Inputs, parseInputs, parseTimeout } from '../gate/inputs.js'
import { errorLine } from '../report/headline.js'
import type { RunReport } from '../report/report.js'
import { EXIT, exitCodeOf } from './exit-codes.js'
import {
  type CommandRequest,
  parseCommandLine,
  type ParsedCommand,
  type ResultTargets,
  resultTargetsOf,
  UsageError
} from './flags.js'
import { HELP_TEXT, VERSION_TEXT } from './help.js'
import { Progress, type ProgressStream } from './progress.js'
import { checkResultTargets, standardOutput, writeResultFiles } from './results.js'
import { readApiKey, readSecretFile } from './secrets.js'

export interface CommandEnvironment {
  env: Record<string, string | undefined>
  stdin: Readable
  stdout: { write(text: string): unknown }
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
  const { env, stdout } = environment
  const redactor = new Redactor()
  // The key in the environment is known at once: redacted before any message could quote it.
  addSecret(redactor, (env.NEON_API_KEY ?? '').trim())
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
  if (!('request' in parsed)) {
    stdout.write('help' in parsed ? HELP_TEXT : VERSION_TEXT)
    return EXIT.success
  }
  const { request } = parsed
  // A database URL given as a flag is known at once too.
  const urlFlag = request.values.database_url?.trim()
  if (urlFlag) addSecret(redactor, urlFlag, 'database_url')
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
  const { writable, problems } = checkResultTargets(request)
  try {
    let inputs: Inputs
    try {
      if (problems.length > 0) throw new UsageError(problems.join('; '))
      inputs = await readInputs(request, environment, gateRun, redactor)
    } catch (error) {
      return await endWithError(error, gateRun.stoppedBy, writable, output, voice)
    }
    return await gateAndReport(inputs, request, { ...output, redactor, gateRun })
  } catch (error) {
    // Nothing is expected here; the error line says what it was.
    return endWithError(error, undefined, writable, output, voice)
  } finally {
    gateRun.end()
  }
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
  targets: ResultTargets,
  { stderr, progress }: Pick<CommandEnvironment, 'stderr'> & { progress?: Progress },
  { color, clean, redactor }: Voice
): Promise<number> {
  const message = error instanceof Error ? error.message : String(error)
  const usage = error instanceof UsageError || error instanceof InputError
  const report: RunReport = { requests: { requests: 0, retries: 0 } }
  if (error instanceof CancelledError && stoppedBy) {
    report.outcome = 'cancelled'
    report.error = redactor.redact(`${message}, before the gate started`)
  } else {
    report.outcome = 'error'
    report.error = redactor.redact(usage ? message : `neon-gate failed unexpectedly: ${message}`)
    if (usage) report.errorCause = 'input'
  }
  const code = exitCodeOf(report, stoppedBy)
  // Errors stand whatever --quiet says; the request's own progress clears its line first.
  const lines = progress ?? new Progress(stderr, { quiet: true, color, clean })
  lines.error(report.error)
  if (code === EXIT.usage) stderr.write('Run neon-gate --help for the flags.\n')
  // Read from a command line that did not parse, the paths were not checked yet.
  const { writable, problems } = checkResultTargets(targets)
  for (const problem of problems) if (!report.error.includes(problem)) lines.error(problem)
  try {
    await writeResultFiles(report, writable, { redactor, code })
  } catch (writeError) {
    lines.error(`Could not write the result files: ${(writeError as Error).message}`)
  }
  return code
}

/**
 * The timeout checked, then the secrets read within what is left of it (each added to the
 * redactor at once; a signal ends the reading with its CancelledError), then every input checked,
 * with every secret already redacted.
 */
async function readInputs(
  request: CommandRequest,
  { env, stdin }: CommandEnvironment,
  { clock, startedAt, signal }: GateRun,
  redactor: Redactor
): Promise<Inputs> {
  // A bad --timeout is said at once, not after a pipe that nobody writes to has had five days;
  // unless the key is known to the redactor already (NEON_API_KEY), it does not repeat the value.
  const keyKnown = request.apiKeyFile === undefined && (env.NEON_API_KEY ?? '').trim() !== ''
  const timeoutMs = parseTimeout(request.values.timeout ?? '', request.naming, keyKnown)
  const reading = () => ({
    stdin,
    limitMs: Math.max(0, startedAt + timeoutMs - clock.now()),
    signal
  })
  const apiKey = await readApiKey(request.apiKeyFile, env, reading())
  addSecret(redactor, apiKey)
  const databaseUrl =
    request.databaseUrlFile !== undefined
      ? await readSecretFile('--database-url-file', request.databaseUrlFile, reading())
      : request.values.database_url?.trim()
  if (databaseUrl) addSecret(redactor, databaseUrl, 'database_url')
  const values: Record<string, string | undefined> = {
    ...request.values,
    api_key: apiKey,
    database_url: databaseUrl
  }
  return parseInputs((name) => values[name] ?? '', request.naming)
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
  stdout.write(standardOutput(report, request.output, redactor))
  const code = exitCodeOf(report, gateRun.stoppedBy)
  try {
    await writeResultFiles(report, request, { redactor, code })
  } catch (error) {
    progress.error(`Could not write the result files: ${(error as Error).message}`)
    return report.outcome === 'success' ? EXIT.usage : code
  }
  return code
}
