/*
 * The command: read the flags and the secrets, run the gate, hand on the result, exit with a code
 * that tells "the operation failed" from "could not ask". Every error ends here, as one line on
 * standard error and an exit code.
 */
import type { Readable } from 'node:stream'
import { httpGet } from '../api/http-transport.js'
import { queryDatabase } from '../api/postgres.js'
import { RetryPolicy } from '../api/retry-policy.js'
import type { Clock } from '../domain/clock.js'
import { databaseSecrets } from '../domain/database.js'
import { CancelledError, InputError } from '../domain/errors.js'
import { forLog, forLogLines, Redactor } from '../domain/untrusted-text.js'
import { ACTION_VERSION } from '../domain/version.js'
import { gate } from '../gate/gate.js'
import { ignoredInputWarnings, type Inputs, parseInputs, parseTimeout } from '../gate/inputs.js'
import { errorLine } from '../report/headline.js'
import { typedOutputs } from '../report/outputs.js'
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

type StopSignal = 'SIGINT' | 'SIGTERM'

/** When the command started on its clock: the timeout counts from there. */
interface Started {
  startedAt: number
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
  // --timeout bounds the whole command, the reading of its secrets included.
  const startedAt = environment.clock.now()
  const redactor = new Redactor()
  // The key in the environment is known at once: redacted before any message could quote it.
  redactor.add((env.NEON_API_KEY ?? '').trim())
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
  for (const secret of urlFlag ? databaseSecrets(urlFlag) : []) redactor.add(secret)
  const progress = new Progress(environment.stderr, { quiet: request.quiet, ...voice })
  const output = { ...environment, progress }
  const stop = new StopSignals(environment.signals, progress)
  const { writable, problems } = checkResultTargets(request)
  try {
    let inputs: Inputs
    try {
      if (problems.length > 0) throw new UsageError(problems.join('; '))
      inputs = await readInputs(request, { ...environment, startedAt }, redactor, stop.signal)
    } catch (error) {
      return await endWithError(error, stop.stoppedBy, writable, output, voice)
    }
    return await gateAndReport(inputs, request, { ...output, startedAt, redactor, stop })
  } catch (error) {
    // Nothing is expected here; the error line says what it was.
    return endWithError(error, undefined, writable, output, voice)
  } finally {
    stop.off()
  }
}

/**
 * SIGINT and SIGTERM while the command reads its secrets or runs the gate: the first aborts what is
 * in flight (the result is still reported and written); a second ends the command at once.
 */
class StopSignals {
  stoppedBy: StopSignal | undefined
  private readonly controller = new AbortController()
  private readonly onSignal = (signal: StopSignal): void => {
    // A second signal: the user means it; leave at once.
    if (this.stoppedBy) process.exit(EXIT[signal])
    this.stoppedBy = signal
    this.progress.info(`Received ${signal}: stopping`)
    this.controller.abort(new CancelledError(signal))
  }

  constructor(
    private readonly signals: CommandEnvironment['signals'],
    private readonly progress: Progress
  ) {
    signals.once('SIGINT', this.onSignal)
    signals.once('SIGTERM', this.onSignal)
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  off(): void {
    this.signals.off('SIGINT', this.onSignal)
    this.signals.off('SIGTERM', this.onSignal)
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
  { env, stdin, clock, startedAt }: CommandEnvironment & Started,
  redactor: Redactor,
  signal: AbortSignal
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
  redactor.add(apiKey)
  const databaseUrl =
    request.databaseUrlFile !== undefined
      ? await readSecretFile('--database-url-file', request.databaseUrlFile, reading())
      : request.values.database_url?.trim()
  for (const secret of databaseUrl ? databaseSecrets(databaseUrl) : []) redactor.add(secret)
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
    clock,
    startedAt,
    progress,
    redactor,
    stop
  }: CommandEnvironment &
    Started & {
      progress: Progress
      redactor: Redactor
      stop: StopSignals
    }
): Promise<number> {
  for (const warning of ignoredInputWarnings(inputs, request.naming)) progress.warning(warning)
  progress.info(`Neon operations gate ${ACTION_VERSION}`)
  const report = await gate(inputs, {
    clock,
    stepStartedAt: startedAt,
    retryPolicy: new RetryPolicy(),
    logger: progress,
    redactor,
    signal: stop.signal,
    transport: httpGet,
    queryDatabase,
    naming: request.naming
  })
  stop.off()
  progress.finish()
  for (const note of typedOutputs(report).notes) progress.warning(note)
  const line = errorLine(report)
  if (line) progress.error(line)
  stdout.write(standardOutput(report, request.output, redactor))
  const code = exitCodeOf(report, stop.stoppedBy)
  try {
    await writeResultFiles(report, request, { redactor, code })
  } catch (error) {
    progress.error(`Could not write the result files: ${(error as Error).message}`)
    return report.outcome === 'success' ? EXIT.usage : code
  }
  return code
}
