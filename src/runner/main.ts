import * as core from '@actions/core'
import { httpGet } from '../api/http-transport.js'
import { queryDatabase } from '../api/postgres.js'
import { RetryPolicy } from '../api/retry-policy.js'
import { type Clock, systemClock } from '../domain/clock.js'
import { databaseSecrets } from '../domain/database.js'
import { CancelledError, InputError } from '../domain/errors.js'
import type { Logger } from '../domain/logger.js'
import { forLog, Redactor } from '../domain/untrusted-text.js'
import { ACTION_VERSION } from '../domain/version.js'
import type { RunOutcome, RunReport } from '../report/report.js'
import { gate } from '../gate/gate.js'
import { ignoredInputWarnings, type Inputs } from '../gate/inputs.js'
import { describeRun, headSha, readGitHubContext, withheldSecretReason } from './github-context.js'
import { ACTION_INPUT_NAMING, getInputs } from './input-helper.js'
import { publish } from './publish.js'

export interface RunDependencies {
  clock?: Clock
  retryPolicy?: RetryPolicy
  /** Jitter of the polling pace, in [0, 1). */
  random?: () => number
}

/** The action: mask the secrets, read the inputs, run the gate, publish it. Every error ends here. */
export async function run(dependencies: RunDependencies = {}): Promise<RunOutcome> {
  const { apiKey, secrets } = readSecrets()
  const redactor = new Redactor(secrets)
  const redact = (text: string): string => redactor.redact(text)
  // Every line goes through here: secrets out first, then API text made harmless for the runner.
  const toLog = (text: string): string => forLog(redact(text))
  const logger: Logger = {
    info: (message) => core.info(toLog(message)),
    warning: (message) => core.warning(toLog(message)),
    notice: (message) => core.notice(toLog(message)),
    debug: (message) => core.debug(toLog(message))
  }
  const controller = new AbortController()
  const stopListening = cancelOnSignals(controller, logger)
  const context = readGitHubContext()
  const described = describeRun(context)
  logger.info(`Neon operations gate ${ACTION_VERSION}${described ? ` for ${described}` : ''}`)
  let inputs: Inputs | undefined
  let report: RunReport
  try {
    const withheld = apiKey ? undefined : withheldSecretReason(context)
    if (withheld) throw new InputError(withheld)
    inputs = getInputs((name) => core.getInput(name))
    for (const warning of ignoredInputWarnings(inputs, ACTION_INPUT_NAMING)) logger.warning(warning)
    report = await gate(inputs, {
      clock: dependencies.clock ?? systemClock,
      retryPolicy: dependencies.retryPolicy ?? new RetryPolicy(),
      random: dependencies.random,
      logger,
      redactor,
      signal: controller.signal,
      transport: httpGet,
      queryDatabase,
      naming: ACTION_INPUT_NAMING
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    report = { requests: { requests: 0, retries: 0 }, outcome: 'error', error: redact(message) }
  } finally {
    stopListening()
  }
  const pullRequest = context.pullRequest
  report.run = {
    pullRequest: pullRequest && { number: pullRequest.number, url: pullRequest.htmlUrl },
    sha: headSha(context) || undefined
  }
  await publish(report, inputs, context, { logger, redact, toLog })
  return report.outcome ?? 'error'
}

/** The runner cancels a job with SIGINT or SIGTERM: abort everything in flight. */
function cancelOnSignals(controller: AbortController, logger: Logger): () => void {
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info(`Received ${signal}: stopping`)
    controller.abort(new CancelledError(signal))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  return () => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/** The secret inputs, each masked as soon as it is read, before anything else runs. */
function readSecrets(): { apiKey: string; secrets: string[] } {
  return secretInputs((secret) => core.setSecret(secret))
}

/**
 * The secret inputs, and every form of them that redaction must find (the URL's password too),
 * each handed to `onSecret` as soon as it is read.
 */
function secretInputs(onSecret: (secret: string) => void = () => undefined): {
  apiKey: string
  secrets: string[]
} {
  const secrets: string[] = []
  const read = (name: string): string => {
    const value = core.getInput(name)
    const forms = (name === 'database_url' ? databaseSecrets(value) : [value]).filter(Boolean)
    forms.forEach(onSecret)
    secrets.push(...forms)
    return value
  }
  const apiKey = read('api_key')
  read('github_token')
  read('database_url')
  return { apiKey, secrets }
}

/**
 * When run() itself rejects (a sink threw past its own catch): one error line, redacted like every
 * other, and exit code 1, instead of Node's stack trace.
 */
export function failUnexpectedly(error: unknown): RunOutcome {
  const redactor = new Redactor(secretInputs().secrets)
  const message = error instanceof Error ? error.message : String(error)
  core.setFailed(forLog(redactor.redact(`The action failed unexpectedly: ${message}`)))
  return 'error'
}
