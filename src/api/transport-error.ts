/*
 * What a request that got no usable answer failed of, for the transport and the proxy tunnel alike,
 * and what that is to the request (api-core.ts): an error to retry or one that ends it.
 */
import { formatDuration } from '../domain/duration.js'
import { NetworkError, UnrecoverableRequestError } from '../domain/errors.js'

/**
 * Why a request got no usable answer. `retryable: false` means that sending it again cannot help
 * (a certificate that does not match, a body over the cap, a proxy that refuses us); `culprit`
 * names what to check. `unresolved`: the host name did not resolve, which a runner's resolver does
 * now and then for a moment, so it is retried, but only for a while (host-resolution.ts).
 */
export class TransportError extends Error {
  override name = 'TransportError'
  constructor(
    readonly detail: string,
    readonly retryable: boolean,
    readonly culprit: 'api_host' | 'HTTPS_PROXY' | 'the API' = 'api_host',
    readonly unresolved = false
  ) {
    super(detail)
  }
}

/** What a resolver answers for a name it cannot resolve (now, or at all). */
const UNRESOLVED_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN'])

/** Error codes of node:net, node:tls and node:http that no retry can fix. */
const UNRECOVERABLE_CODES = new Set([
  'EAFNOSUPPORT',
  'EADDRNOTAVAIL',
  'ERR_INVALID_URL',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_UNESCAPED_CHARACTERS',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
])

export function tooLarge(maxBytes: number): TransportError {
  return new TransportError(
    `the answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB; stopped reading`,
    false,
    'the API'
  )
}

/** Duck-typed: errors of node:http may come from another realm (e.g. under a test VM). */
export function classify(error: unknown): TransportError {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : String(error)
  const detail = typeof code === 'string' && !text.includes(code) ? `${code} (${text})` : text
  const known = typeof code === 'string' ? code : ''
  return new TransportError(
    detail,
    !UNRECOVERABLE_CODES.has(known),
    'api_host',
    UNRESOLVED_CODES.has(known)
  )
}

/**
 * What a transport failure is to a request of `endpoint` (its `detail` redacted): a NetworkError,
 * which the retry policy retries, or an UnrecoverableRequestError naming what to check.
 */
export function requestErrorOf(
  error: TransportError,
  endpoint: string,
  detail: string,
  timeLimitMs: number
): NetworkError | UnrecoverableRequestError {
  if (error.retryable) {
    const timedOut = detail.startsWith('no answer within')
    return new NetworkError(
      endpoint,
      timedOut ? `no answer within ${formatDuration(timeLimitMs)}` : detail
    )
  }
  return new UnrecoverableRequestError(endpoint, detail, error.culprit)
}
