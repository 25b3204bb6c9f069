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
import { EXIT, exitCodeOf } from './exit-codes.js'
import { type CommandRequest, parseCommandLine, UsageError } from './flags.js'
import { HELP_TEXT, VERSION_TEXT } from './help.js'
import { Progress, type ProgressStream } from './progress.js'
import { resultFileProblems, standardOutput, writeResultFiles } from './results.js'
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

/** Runs the command; resolves to its exit code, never rejects. */
export async function runCommand(argv: string[], environment: CommandEnvironment): Promise<number> {
  const { env, stdout, stderr } = environment
  // --timeout bounds the whole command, the reading of its secrets included.
  const startedAt = environment.clock.now()
  const redactor = new Redactor()
  const color = !env.NO_COLOR
  const clean = (text: string): string => forLogLines(forLog(redactor.redact(text)))
  const fail = (message: string, code: number): number => {
    new Progress(stderr, { quiet: false, color, clean }).error(message)
    if (code === EXIT.usage) stderr.write('Run neon-gate --help for the flags.\n')
    return code
  }
  try {
    const parsed = parseCommandLine(argv, env)
    if (!('request' in parsed)) {
      stdout.write('help' in parsed ? HELP_TEXT : VERSION_TEXT)
      return EXIT.success
    }
    const { request } = parsed
    const problems = resultFileProblems(request)
    if (problems.length > 0) return fail(problems.join('; '), EXIT.usage)
    const inputs = await readInputs(request, { ...environment, startedAt }, redactor)
    const progress = new Progress(stderr, { quiet: request.quiet, color, clean })
    return await gateAndReport(inputs, request, { ...environment, startedAt, progress, redactor })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (error instanceof UsageError || error instanceof InputError) {
      return fail(message, EXIT.usage)
    }
    return fail(`neon-gate failed unexpectedly: ${message}`, EXIT.refused)
  }
}

/**
 * The timeout checked, then the secrets read within what is left of it (each added to the
 * redactor at once), then every input checked, with every secret already redacted.
 */
async function readInputs(
  request: CommandRequest,
  { env, stdin, clock, startedAt }: CommandEnvironment & Started,
  redactor: Redactor
): Promise<Inputs> {
  // The key from the environment is known at once: redacted before any flag can quote it.
  if (request.apiKeyFile === undefined) redactor.add((env.NEON_API_KEY ?? '').trim())
  // A bad --timeout is said at once, not after a pipe that nobody writes to has had five days.
  const timeoutMs = parseTimeout(request.values.timeout ?? '', request.naming)
  const reading = () => ({ stdin, limitMs: Math.max(0, startedAt + timeoutMs - clock.now()) })
  const apiKey = await readApiKey(request.apiKeyFile, env, reading())
  redactor.add(apiKey)
  const databaseUrl = request.databaseUrlFile
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
    signals,
    clock,
    startedAt,
    progress,
    redactor
  }: CommandEnvironment &
    Started & {
      progress: Progress
      redactor: Redactor
    }
): Promise<number> {
  for (const warning of ignoredInputWarnings(inputs, request.naming)) progress.warning(warning)
  progress.info(`Neon operations gate ${ACTION_VERSION}`)
  const controller = new AbortController()
  let stoppedBy: StopSignal | undefined
  const onSignal = (signal: StopSignal): void => {
    // A second signal: the user means it; leave at once.
    if (stoppedBy) process.exit(EXIT[signal])
    stoppedBy = signal
    progress.info(`Received ${signal}: stopping`)
    controller.abort(new CancelledError(signal))
  }
  signals.once('SIGINT', onSignal)
  signals.once('SIGTERM', onSignal)
  let report
  try {
    report = await gate(inputs, {
      clock,
      stepStartedAt: startedAt,
      retryPolicy: new RetryPolicy(),
      logger: progress,
      redactor,
      signal: controller.signal,
      transport: httpGet,
      queryDatabase,
      naming: request.naming
    })
  } finally {
    signals.off('SIGINT', onSignal)
    signals.off('SIGTERM', onSignal)
  }
  progress.finish()
  for (const note of typedOutputs(report).notes) progress.warning(note)
  const line = errorLine(report)
  if (line) progress.error(line)
  stdout.write(standardOutput(report, request.output, redactor))
  const code = exitCodeOf(report, stoppedBy)
  try {
    await writeResultFiles(report, request, { redactor, code })
  } catch (error) {
    progress.error(`Could not write the result files: ${(error as Error).message}`)
    return report.outcome === 'success' ? EXIT.usage : code
  }
  return code
}
