/*
 * The small core every resource reader stands on: one GET of the management API through the retry
 * policy, bounded by the per-request limit, the overall deadline and the job's cancellation, with
 * the answer's status turned into an error, its body checked against the reader's schema and
 * against the question, and the request counts. What each endpoint is lives in src/api/resources/.
 */
import type { z } from 'zod'
import type { Clock } from '../domain/clock.js'
import { formatDuration } from '../domain/duration.js'
import {
  DeadlineExceededError,
  ResponseFormatError,
  UnrecoverableRequestError
} from '../domain/errors.js'
import { apiErrorFrom, jsonOf, parseBody } from './answers.js'
import { type ApiRequest, pathOf } from './api-request.js'
import type { HttpAnswer, HttpGet } from './http-transport.js'
import { requestErrorOf, TransportError } from './transport-error.js'
import { HostResolution } from './host-resolution.js'
import { rateLimited, ReadWindow } from './read-window.js'
import type { Logger } from '../domain/logger.js'
import type { Pace } from './pace.js'
import {
  RECOVERY_INTERVALS,
  type RetryContext,
  type RetryPacing,
  type RetryPolicy,
  withRetries
} from './retry-policy.js'
import type { Redactor } from '../domain/untrusted-text.js'
import { ACTION_NAME, ACTION_VERSION } from '../domain/version.js'

/** The first wait before retrying a request that is not a poll (it is not paced by polling). */
const LISTING_RETRY_FLOOR_MS = 2000
/** Requests outside the wait (listing projects, finding the organization) retry from 2 s. */
const LISTING_PACING = (): RetryPacing => ({
  minimumMs: LISTING_RETRY_FLOOR_MS,
  nextPollMs: LISTING_RETRY_FLOOR_MS
})
/** The largest answer read; a page of 500 operations is well under 1 MiB. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024
/**
 * Requests may start, and must be over, until this long after the deadline (so the last read at the
 * deadline can happen): nothing the client does outlives `timeout` by more than this.
 */
export const DEADLINE_GRACE_MS = 1000

export interface ApiCoreOptions {
  baseUrl: string
  apiKey: string
  /** Time limit of one request (connection, answer and body). */
  requestTimeoutMs: number
  retryPolicy: RetryPolicy
  /** The polling pace: what retries of operation reads follow, slowed down by each 429. */
  pace: Pace
  clock: Clock
  logger: Logger
  redactor: Redactor
  /** Monotonic clock time: no retry starts after it, no request runs more than 1 s past it. */
  deadline: number
  /**
   * With `wait: false` or a sweep, the gate reads once: how long one request may go on without a
   * usable answer (RECOVERY_INTERVALS intervals, a 429's waits not counted: read-window.ts) before
   * that is an error, instead of retrying until `timeout`. Unset while waiting.
   */
  readOnceWithinMs?: number
  signal?: AbortSignal
  /** Sends one GET: `httpGet` (the network), or a simulated one (npm run simulate). */
  transport: HttpGet
  /**
   * Each answer's `Date` header (the server's clock), with when its request went out (on
   * `clock.now()`): the API's clock (api-clock.ts) is set by it.
   */
  onDate?: (date: string | undefined, sentAt: number) => void
}

export interface RequestStats {
  requests: number
  retries: number
  /**
   * Of the requests, those the API answered (with any HTTP status), and those whose answer was read
   * (2xx, in the shape asked for). The API's client counts them; a report of a run that ended
   * before it had one (bad input) has neither.
   */
  answered?: number
  read?: number
}

export class ApiCore {
  readonly stats: Required<RequestStats> = { requests: 0, retries: 0, answered: 0, read: 0 }
  private readonly baseUrl: string
  private readonly host: HostResolution
  private readonly pollPacing = (): RetryPacing => ({
    minimumMs: this.options.pace.intervalMs,
    nextPollMs: this.options.pace.nextPollDelayMs()
  })

  constructor(private readonly options: ApiCoreOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.host = new HostResolution(options.clock, options.pace)
  }

  async get<S extends z.ZodType>(request: ApiRequest<S>): Promise<z.output<S>> {
    const { segments, query = {}, schema, subject, mismatch } = request
    const pacing = request.pacing === 'poll' ? this.pollPacing : LISTING_PACING
    const { path, target } = pathOf(segments, query)
    const endpoint = `GET ${path}`
    const url = new URL(`${this.baseUrl}${target}`)
    const { clock, logger, readOnceWithinMs } = this.options
    const window = new ReadWindow(clock.now(), readOnceWithinMs, this.options.deadline)

    const answer = await this.readOnce(endpoint, window, () =>
      this.host.toTheEnd(endpoint, () =>
        withRetries(
          async () => {
            if (clock.now() >= this.options.deadline + DEADLINE_GRACE_MS) {
              throw new DeadlineExceededError()
            }
            this.stats.requests++
            logger.debug(`GET ${target}`)
            const raw = await this.send(url, endpoint, window.giveUpAt)
            if (raw.status < 200 || raw.status > 299) {
              throw apiErrorFrom(raw, endpoint, subject, this.options.redactor)
            }
            return jsonOf(raw, endpoint, this.options.redactor)
          },
          {
            policy: this.options.retryPolicy,
            clock,
            pacing,
            deadline: (error) => window.retryDeadline(error),
            signal: this.options.signal,
            ...this.retryHooks(endpoint, window)
          }
        )
      )
    )
    const parsed = parseBody(answer, schema, endpoint, this.options.redactor)
    const problem = mismatch?.(parsed)
    if (problem) throw new ResponseFormatError(endpoint, problem)
    this.stats.read++
    return parsed
  }

  /**
   * What the retries of a request do beside retrying: a 429 slows the pace, and its wait does not
   * count against the time a read without waiting has; each retry is told.
   */
  private retryHooks(
    endpoint: string,
    window: ReadWindow
  ): Pick<RetryContext, 'onFailure' | 'onRetry'> {
    const { logger, pace } = this.options
    return {
      onFailure: (error) => {
        if (rateLimited(error)) pace.onRateLimited()
      },
      onRetry: (decision, error) => {
        window.waiting(error, decision.delayMs)
        this.stats.retries++
        logger.debug(error.message)
        logger.info(
          `${endpoint}: ${decision.reason}; ${decision.delayMs > 0 ? `retrying in ${formatDuration(decision.delayMs)}` : 'retrying now, the wait spent on it'}`
        )
      }
    }
  }

  /**
   * One request, bounded by the per-request limit, the deadline (plus grace), the time a read
   * without waiting gives it (`giveUpAt`), and the signal.
   */
  private async send(url: URL, endpoint: string, giveUpAt: number): Promise<HttpAnswer> {
    const { clock, signal } = this.options
    signal?.throwIfAborted()
    // Cut at the deadline; only a request started in its last second (the last read) gets the grace.
    const untilDeadline = this.options.deadline - clock.now()
    const timeLimitMs = Math.max(
      1,
      Math.min(
        this.options.requestTimeoutMs,
        untilDeadline >= DEADLINE_GRACE_MS ? untilDeadline : untilDeadline + DEADLINE_GRACE_MS,
        giveUpAt - clock.now()
      )
    )
    const sentAt = clock.now()
    try {
      const answer = await this.options.transport(url, {
        headers: {
          Authorization: `Bearer ${this.options.apiKey}`,
          Accept: 'application/json',
          'User-Agent': `${ACTION_NAME}/${ACTION_VERSION}`
        },
        timeLimitMs,
        maxBodyBytes: MAX_BODY_BYTES,
        signal
      })
      this.stats.answered++
      this.host.resolved()
      this.options.onDate?.(answer.headers.date, sentAt)
      return answer
    } catch (error) {
      if (signal?.aborted || !(error instanceof TransportError)) throw error
      const detail = this.options.redactor.redact(error.detail)
      this.host.check(error, endpoint, detail)
      throw requestErrorOf(error, endpoint, detail, timeLimitMs)
    }
  }

  /**
   * Reading once (`wait: false`, a sweep), a request that got no usable answer within its window
   * is an error no retry within the run can fix (the command's exit code 3), not a timeout: the gate
   * did not wait, and `timeout` did not run out. When `timeout` ends first, it is the timeout.
   */
  private async readOnce<T>(
    endpoint: string,
    window: ReadWindow,
    request: () => Promise<T>
  ): Promise<T> {
    try {
      return await request()
    } catch (error) {
      if (!(error instanceof DeadlineExceededError) || !window.endedRead(error.lastError)) {
        throw error
      }
      const withinMs = this.options.readOnceWithinMs ?? 0
      const last = error.lastError ? `; last error: ${error.lastError.message}` : ''
      throw new UnrecoverableRequestError(
        endpoint,
        `no usable answer within ${formatDuration(withinMs)} (${RECOVERY_INTERVALS} intervals), as long as a read without waiting tries${last}`,
        'the API'
      )
    }
  }
}
