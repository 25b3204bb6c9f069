import * as core from '@actions/core'
import { InputError } from '../domain/errors.js'
import type { Logger } from '../domain/logger.js'
import { forLog, Redactor } from '../domain/untrusted-text.js'
import type { RunOutcome, RunReport } from '../report/report.js'
import {
  addSecret,
  addSecretInputs,
  errorReport,
  GateRun,
  messageOf,
  type Surroundings
} from '../gate/gate-run.js'
import { describeRun, readGitHubContext, withheldSecretReason } from './github-context.js'
import { type ActionInputs, ACTION_INPUT_NAMING, getInputs, givenValue } from './input-helper.js'
import { publish } from './publish.js'
import { gitHubPullRequests } from './pull-request-states.js'

/** The production parts unless a test swaps one (the clock, the retries' jitter, …). */
export type RunDependencies = Partial<Surroundings>

/** The action: mask the secrets, read the inputs, run the gate, publish it. Every error ends here. */
export async function run(dependencies: RunDependencies = {}): Promise<RunOutcome> {
  const redactor = new Redactor()
  const { apiKey, githubToken } = readSecrets(redactor, (secret) => core.setSecret(secret))
  const redact = (text: string): string => redactor.redact(text)
  // Every line goes through here: secrets out first, then API text made harmless for the runner.
  const toLog = (text: string): string => forLog(redact(text))
  const logger: Logger = {
    info: (message) => core.info(toLog(message)),
    warning: (message) => core.warning(toLog(message)),
    notice: (message) => core.notice(toLog(message)),
    debug: (message) => core.debug(toLog(message))
  }
  const context = readGitHubContext()
  // The runner cancels a job with SIGINT or SIGTERM: the run aborts everything in flight.
  const about = describeRun(context)
  let inputs: ActionInputs | undefined
  const gateRun = new GateRun({
    // A sweep with {pr} reads its pull requests with the token the comment writes with.
    readPullRequests: gitHubPullRequests(context, githubToken),
    ...dependencies,
    logger,
    redactor,
    about,
    bannerFirst: true
  })
  let report: RunReport
  try {
    const withheld = apiKey ? undefined : withheldSecretReason(context)
    if (withheld) throw new InputError(withheld)
    inputs = getInputs(givenInput)
    report = await gateRun.gate(inputs, ACTION_INPUT_NAMING)
  } catch (error) {
    report = errorReport(messageOf(error), redactor)
  } finally {
    gateRun.end()
  }
  await publish(report, inputs, context, { logger, redact, toLog })
  return report.outcome
}

/**
 * An input as the runner set it, or undefined when it set none (a local run without action.yml's
 * defaults): only a value that is there, empty or not, was given. As given: every input trims its
 * own value, but white space alone (`operation_id: " "`, unset outputs joined by a space) is no
 * value, which only the untrimmed text tells from an empty one.
 */
function givenInput(name: string): string | undefined {
  if (process.env[`INPUT_${name.toUpperCase()}`] === undefined) return undefined
  return core.getInput(name, { trimWhitespace: false })
}

/**
 * The secret inputs into `redactor` (the gate's, then the action's own token), in every form
 * redaction must find (the URL's password too), each handed to `onSecret` as soon as it is read;
 * the API key (undefined when not given) and the token, as given.
 */
function readSecrets(redactor: Redactor, onSecret: (secret: string) => void = () => undefined) {
  // action.yml's default for a secret not given is no secret: it is never masked.
  const { api_key: apiKey } = addSecretInputs(
    redactor,
    (name) => givenValue(name, core.getInput(name)),
    onSecret
  )
  // The same value as the input `github_token` that getInputs() reads: trimmed, '' when not given.
  const githubToken = core.getInput('github_token')
  addSecret(redactor, githubToken).forEach(onSecret)
  return { apiKey, githubToken }
}

/**
 * When run() itself rejects (a sink threw past its own catch): one error line, redacted like every
 * other, and exit code 1, instead of Node's stack trace.
 */
export function failUnexpectedly(error: unknown): RunOutcome {
  const redactor = new Redactor()
  readSecrets(redactor)
  core.setFailed(forLog(redactor.redact(`The action failed unexpectedly: ${messageOf(error)}`)))
  return 'error'
}
