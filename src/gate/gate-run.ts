/*
 * One run of the gate, as either front end starts it: the seam below the action's runner and the
 * command. It owns what both do around gate(): every form of a secret into the redactor (which
 * inputs are secrets is the input catalog's), SIGINT and SIGTERM turned into an abort, the banner,
 * the line that says which gate runs, the warnings about ignored inputs, the report of a run that
 * ended on an error of its own, and the production dependencies (a harness swaps the clock, the
 * network or the database for simulated ones). A front end reads its inputs, runs them here, and
 * publishes the report.
 */
import { httpGet } from '../api/http-transport.js'
import { RetryPolicy } from '../api/retry-policy.js'
import { type Clock, systemClock } from '../domain/clock.js'
import { CancelledError } from '../domain/errors.js'
import type { InputNaming } from '../domain/input-naming.js'
import type { Logger } from '../domain/logger.js'
import type { Redactor } from '../domain/untrusted-text.js'
import { ACTION_VERSION } from '../domain/version.js'
import type { RunReport } from '../report/report.js'
import { databaseSecrets } from '../steps/database/database-target.js'
import { queryDatabase } from '../steps/database/postgres.js'
import { gate, type GateDependencies } from './gate.js'
import { inputEntries, inputEntry, type InputName } from './input-catalog.js'
import { ignoredInputWarnings, type Inputs } from './inputs.js'
import { gateLine } from './gate-line.js'
import { planOf } from './plan.js'

/** What a run stands on outside the process: the production parts unless a harness swaps one. */
export type Surroundings = Pick<
  GateDependencies,
  'clock' | 'retryPolicy' | 'random' | 'transport' | 'queryDatabase' | 'readPullRequests'
>

export type StopSignal = 'SIGINT' | 'SIGTERM'

export interface GateRunOptions extends Partial<Surroundings> {
  /** Where the run's lines go, each redacted by the front end with `redactor`. */
  logger: Logger
  /** Holds every secret of the run (addSecret). */
  redactor: Redactor
  /** What the run is for, in the banner: `pull request #42 (head 1a2b3c4)`. */
  about?: string
  /**
   * The banner as the run begins (the action: its first log line names the pull request, whatever
   * follows); else once the inputs are read, just before the gate (the command: a bad flag is one
   * error line on standard error, with nothing before it). The gate's line follows it.
   */
  bannerFirst?: boolean
  /** Where SIGINT and SIGTERM are heard: process, or a stand-in. */
  signals?: Pick<NodeJS.Process, 'once' | 'off'>
  /** A signal after the first (the command leaves at once); else it is logged like the first. */
  onRepeatedSignal?: (signal: StopSignal) => void
}

/**
 * Adds a secret to `redactor` in every form redaction must find (a database URL's password, plain
 * and decoded, too); returns those forms, so that the action can mask each with the runner.
 */
export function addSecret(
  redactor: Redactor,
  value: string,
  kind: 'secret' | 'database_url' = 'secret'
): string[] {
  const forms = (kind === 'database_url' ? databaseSecrets(value) : [value]).filter(Boolean)
  for (const form of forms) redactor.add(form)
  return forms
}

/**
 * An input's value into `redactor` when the input catalog says it is a secret, without the white
 * space around it; returns the forms added (none for an input that is no secret).
 */
export function addSecretInput(
  redactor: Redactor,
  name: InputName,
  value: string | undefined
): string[] {
  const { secret } = inputEntry(name)
  if (!secret || !value) return []
  return addSecret(redactor, value.trim(), secret === 'database_url' ? secret : 'secret')
}

/**
 * Every secret input into `redactor`, each read with `read` and handed on form by form to
 * `onSecret` before the next is read (the action masks it with the runner); returns them as read.
 */
export function addSecretInputs(
  redactor: Redactor,
  read: (name: InputName) => string | undefined,
  onSecret: (form: string) => void = () => undefined
): Partial<Record<InputName, string>> {
  const values: Partial<Record<InputName, string>> = {}
  for (const [name, { secret }] of inputEntries()) {
    if (!secret) continue
    values[name] = read(name)
    addSecretInput(redactor, name, values[name]).forEach(onSecret)
  }
  return values
}

/** What was thrown, in words. */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error)

/**
 * The report of a run that ended on an error of its own, outside the gate (bad input, a signal
 * while a secret was read, something unexpected): no request counted, `text` redacted; `facts`
 * say otherwise (`cancelled`, an error of the input).
 */
export function errorReport(
  text: string,
  redactor: Redactor,
  facts: Partial<Pick<RunReport, 'outcome' | 'errorCause'>> = {}
): RunReport & { error: string } {
  return {
    requests: { requests: 0, retries: 0 },
    outcome: 'error',
    error: redactor.redact(text),
    ...facts
  }
}

/**
 * The run begins when it is made: from then on until end() (gate() ends it too), the first SIGINT
 * or SIGTERM aborts what is in flight.
 */
export class GateRun {
  /** The signal heard first, if one was. */
  stoppedBy: StopSignal | undefined
  /** When the run began on its clock: `timeout` counts from here, secrets read first included. */
  readonly startedAt: number
  readonly clock: Clock
  private readonly controller = new AbortController()
  private readonly signals: Pick<NodeJS.Process, 'once' | 'off'>
  private readonly onSignal = (signal: StopSignal): void => {
    if (this.stoppedBy && this.options.onRepeatedSignal) {
      this.options.onRepeatedSignal(signal)
      return
    }
    this.stoppedBy ??= signal
    this.options.logger.info(`Received ${signal}: stopping`)
    this.controller.abort(new CancelledError(signal))
  }

  constructor(private readonly options: GateRunOptions) {
    this.clock = options.clock ?? systemClock
    this.startedAt = this.clock.now()
    if (options.bannerFirst) this.sayBanner()
    this.signals = options.signals ?? process
    this.signals.once('SIGINT', this.onSignal)
    this.signals.once('SIGTERM', this.onSignal)
  }

  /** Aborted by the first SIGINT or SIGTERM, with its CancelledError. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  /**
   * The gate on `inputs`, their problems named as the front end names them; never throws. Says
   * which gate runs (after the banner), then warns about the inputs this combination ignores;
   * stops listening for signals once it is done.
   */
  async gate(inputs: Inputs, naming: InputNaming): Promise<RunReport> {
    const { logger, redactor } = this.options
    if (!this.options.bannerFirst) this.sayBanner()
    const plan = planOf(inputs)
    logger.info(gateLine(plan, naming))
    for (const warning of ignoredInputWarnings(inputs, naming)) logger.warning(warning)
    try {
      return await gate(plan, {
        clock: this.clock,
        stepStartedAt: this.startedAt,
        retryPolicy: this.options.retryPolicy ?? new RetryPolicy(),
        random: this.options.random,
        transport: this.options.transport ?? httpGet,
        queryDatabase: this.options.queryDatabase ?? queryDatabase,
        readPullRequests: this.options.readPullRequests,
        logger,
        redactor,
        signal: this.signal,
        naming
      })
    } finally {
      this.end()
    }
  }

  private sayBanner(): void {
    const { about, logger } = this.options
    logger.info(`Neon operations gate ${ACTION_VERSION}${about ? ` for ${about}` : ''}`)
  }

  /** Signals are no longer heard: a later one does what it does to any process. */
  end(): void {
    this.signals.off('SIGINT', this.onSignal)
    this.signals.off('SIGTERM', this.onSignal)
  }
}
