import { formatDuration } from './duration.js'
import { CONTRACT_NAMING, type InputNaming } from './input-naming.js'

/**
 * An error whose message names inputs (`api_key`, `api_host`): as the contract does in its message,
 * and as a front end does in `worded` (the command's `NEON_API_KEY`, `--api-host`).
 */
export class WordedError extends Error {
  override name = 'WordedError'
  private readonly words: (naming: InputNaming) => string

  constructor(words: string | ((naming: InputNaming) => string)) {
    const wordsFor = typeof words === 'string' ? () => words : words
    super(wordsFor(CONTRACT_NAMING))
    this.words = wordsFor
  }

  worded(naming: InputNaming): string {
    return this.words(naming)
  }
}

/**
 * A bad input: found before any request, or by one (a branch that does not exist). Its message names
 * inputs as the contract does; `worded` names them as a front end does.
 */
export class InputError extends WordedError {
  override name = 'InputError'
}

export interface ApiErrorDetails {
  status: number
  endpoint: string
  code?: string
  apiMessage?: string
  requestId?: string
  retryAfter?: string
  /** Where a 3xx answer pointed. */
  location?: string
  /**
   * What the request was about, for messages: `project "x"`, `operation "y" of project "x"`; one
   * thing, a list too (`the branch list of project "x"`), since a message says `… was not found`.
   */
  subject: string
}

/** An HTTP error answer of the API. */
export class ApiError extends WordedError {
  override name = 'ApiError'
  readonly status: number
  readonly endpoint: string
  readonly code?: string
  readonly apiMessage?: string
  readonly requestId?: string
  readonly retryAfter?: string

  constructor(details: ApiErrorDetails) {
    super((naming) => describeApiError(details, naming))
    this.status = details.status
    this.endpoint = details.endpoint
    this.code = details.code
    this.apiMessage = details.apiMessage
    this.requestId = details.requestId
    this.retryAfter = details.retryAfter
  }
}

function describeApiError(details: ApiErrorDetails, { mention }: InputNaming): string {
  const { status, endpoint, subject } = details
  let text: string
  if (status === 401) {
    text = `The API rejected the key (HTTP 401 on ${endpoint}): ${mention('api_key')} is missing, invalid or revoked`
  } else if (status === 403) {
    text = `The key has no access to ${subject} (HTTP 403 on ${endpoint}); a project-scoped key reaches only its own project`
  } else if (status === 404) {
    text = `${capitalize(subject)} was not found (HTTP 404 on ${endpoint})`
  } else if (status >= 300 && status <= 399) {
    const target = details.location ? ` to ${details.location}` : ''
    const host = mention('api_host')
    text = `${endpoint} answered with a redirect (HTTP ${status}${target}), which was not followed: the API never redirects and the key goes only to ${host}; check ${host}`
  } else {
    text = `${endpoint} failed with HTTP ${status}`
  }
  const extras = [
    details.apiMessage ? `API says: "${details.apiMessage}"` : undefined,
    details.code ? `code ${details.code}` : undefined,
    details.requestId ? `request id ${details.requestId}` : undefined
  ].filter((part) => part !== undefined)
  return extras.length > 0 ? `${text}. ${extras.join('; ')}` : text
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** No answer: connection refused or reset, DNS failure, per-request time limit. */
export class NetworkError extends Error {
  override name = 'NetworkError'
  constructor(
    readonly endpoint: string,
    readonly detail: string
  ) {
    super(`${endpoint} got no answer: ${detail}`)
  }
}

/**
 * A 2xx answer whose body is not JSON at all (a proxy's or a gateway's HTML page, a body cut
 * short): no answer of the API's, retried as a request that got none.
 */
export class NotJsonError extends NetworkError {
  override name = 'NotJsonError'
  constructor(endpoint: string, detail: string) {
    super(endpoint, detail)
    this.message = `${endpoint} answered with a body that is not JSON: ${detail}`
  }
}

/**
 * A request that no retry can help: api_host's name does not resolve, its certificate does not
 * match, the proxy refuses us, or the answer is over the size cap. Fails the step at once.
 */
export class UnrecoverableRequestError extends WordedError {
  override name = 'UnrecoverableRequestError'
  constructor(endpoint: string, detail: string, culprit: 'api_host' | 'HTTPS_PROXY' | 'the API') {
    super(({ mention }) => {
      const check =
        culprit === 'the API'
          ? ''
          : culprit === 'HTTPS_PROXY'
            ? '; no retry can fix that: check HTTPS_PROXY and NO_PROXY'
            : `; no retry can fix that: check ${mention('api_host')}`
      return `${endpoint} failed: ${detail}${check}`
    })
  }
}

/** A 2xx answer whose body is not what the action needs. */
export class ResponseFormatError extends Error {
  override name = 'ResponseFormatError'
  constructor(
    readonly endpoint: string,
    detail: string
  ) {
    super(`Unexpected response from ${endpoint}: ${detail}`)
  }
}

/** A retry that would go out after the deadline: why, how long it would wait, what was left. */
export interface UnfittingRetry {
  /** `HTTP 429, Retry-After 30`, `HTTP 503`, `no answer (ECONNRESET)`. */
  reason: string
  delayMs: number
  /** Time left before the deadline when the retry was decided. */
  leftMs: number
}

/**
 * The overall `timeout` ran out while a request was still being retried, or no retry fits in the
 * time left before it (a Retry-After, or a back-off, longer than what is left): then
 * `noRetryFits` says so with the numbers, and nobody may say that the timeout ran out.
 */
export class DeadlineExceededError extends Error {
  override name = 'DeadlineExceededError'
  /** Why the retry did not fit, with the numbers, when time was still left; else undefined. */
  readonly noRetryFits?: string

  constructor(
    readonly lastError?: Error,
    retry?: UnfittingRetry
  ) {
    const noRetryFits =
      retry && retry.leftMs > 0
        ? `no retry fits before the deadline: the retry after ${retry.reason} would wait ${formatDuration(retry.delayMs)}, with ${formatDuration(retry.leftMs)} of the timeout left`
        : undefined
    const last = lastError ? `last error: ${lastError.message}` : undefined
    super(
      [noRetryFits, last].filter(Boolean).join('; ') ||
        'the deadline passed before the next request'
    )
    this.noRetryFits = noRetryFits
  }
}

/** The runner cancelled the job (SIGINT/SIGTERM). */
export class CancelledError extends Error {
  override name = 'CancelledError'
  constructor(signalName: string) {
    super(`Cancelled by ${signalName}`)
  }
}
