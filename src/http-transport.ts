/*
 * The one place where bytes leave the process: a single GET over node:http/https with a hard time
 * limit, an abort signal, a cap on the body, no redirects, and an HTTPS proxy tunnel (CONNECT).
 * Every socket a request opens, the tunnel's included, is destroyed when the request ends, however
 * it ends, so a silent server or proxy can never keep the process alive.
 *
 * Whether to use a proxy, and which, is @actions/http-client's decision (its proxy rules). Carrying
 * the request is ours because its HttpClient cannot do what a gate needs: it has no abort signal and
 * no cap on the body, follows redirects (the key must go only to api_host), and its `tunnel` agent
 * sends CONNECT with no time limit, so a silent proxy would hold the step until the job times out.
 */
import * as http from 'node:http'
import * as https from 'node:https'
import { isIP, type Socket } from 'node:net'
import type { Transform } from 'node:stream'
import * as tls from 'node:tls'
import * as zlib from 'node:zlib'
import { checkBypass, getProxyUrl } from '@actions/http-client/lib/proxy'

export interface HttpAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

export interface HttpGetOptions {
  headers: Record<string, string>
  /** Connection, proxy tunnel, answer and body together. */
  timeLimitMs: number
  maxBodyBytes: number
  signal?: AbortSignal
}

/**
 * Why a request got no usable answer. `retryable: false` means that sending it again cannot help
 * (a host name that does not resolve, a certificate that does not match, a body over the cap, a
 * proxy that refuses us); `culprit` names what to check.
 */
export class TransportError extends Error {
  override name = 'TransportError'
  constructor(
    readonly detail: string,
    readonly retryable: boolean,
    readonly culprit: 'api_host' | 'HTTPS_PROXY' | 'the API' = 'api_host'
  ) {
    super(detail)
  }
}

/** Error codes of node:net, node:tls and node:http that no retry can fix. */
const UNRECOVERABLE_CODES = new Set([
  'ENOTFOUND',
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

/**
 * The proxy for `target`, by the toolkit's rules (@actions/http-client): https_proxy before
 * HTTPS_PROXY, NO_PROXY with `*`, leading dots and ports, loopback never proxied, credentials
 * URL-decoded. Plain http goes only to loopback, which is never proxied.
 */
export function proxyFor(target: URL): URL | undefined {
  if (target.protocol !== 'https:' || checkBypass(target)) return undefined
  const setting = process.env.https_proxy || process.env.HTTPS_PROXY
  if (!setting) return undefined
  let proxy: URL | undefined
  try {
    proxy = getProxyUrl(target)
  } catch {
    proxy = undefined
  }
  // The toolkit drops a proxy whose credentials are not valid percent-encoding (a bare `%`), and
  // throws on one that is not a URL: either way, say so rather than connect directly.
  if (!proxy) {
    throw new TransportError(
      'HTTPS_PROXY cannot be read: it is not a URL, or its user name or password is not valid percent-encoding (write % as %25)',
      false,
      'HTTPS_PROXY'
    )
  }
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
    throw new TransportError(
      'HTTPS_PROXY must start with http:// or https://; other proxies are not supported',
      false,
      'HTTPS_PROXY'
    )
  }
  return proxy
}

/** The proxy as `host:port`, never with its credentials. */
export function describeProxy(proxy: URL): string {
  return `${proxy.hostname}:${proxy.port || (proxy.protocol === 'https:' ? 443 : 80)}`
}

/**
 * One GET. Resolves with any HTTP status (redirects are returned, not followed); rejects with a
 * TransportError, or with `signal.reason` when the signal aborts.
 */
export async function httpGet(url: URL, options: HttpGetOptions): Promise<HttpAnswer> {
  const controller = new AbortController()
  const sockets = new Set<Socket>()
  const timer = setTimeout(
    () =>
      controller.abort(
        new TransportError(`no answer within ${Math.round(options.timeLimitMs)} ms`, true)
      ),
    options.timeLimitMs
  )
  const onOuterAbort = (): void => controller.abort(options.signal?.reason)
  if (options.signal?.aborted) onOuterAbort()
  options.signal?.addEventListener('abort', onOuterAbort, { once: true })
  const aborted = new Promise<never>((_, reject) => {
    const fail = (): void => reject(controller.signal.reason)
    if (controller.signal.aborted) fail()
    controller.signal.addEventListener('abort', fail, { once: true })
  })
  aborted.catch(() => undefined)
  try {
    const exchange = async (): Promise<HttpAnswer> => {
      const proxy = proxyFor(url)
      const tunnel = proxy ? await openTunnel(proxy, url, sockets, controller.signal) : undefined
      return await exchangeOnce(url, options, tunnel, sockets, controller.signal)
    }
    return await Promise.race([exchange(), aborted])
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onOuterAbort)
    for (const socket of sockets) socket.destroy()
  }
}

function exchangeOnce(
  url: URL,
  options: HttpGetOptions,
  tunnel: Socket | undefined,
  sockets: Set<Socket>,
  signal: AbortSignal
): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    const secure = url.protocol === 'https:'
    const hostname = url.hostname.replace(/^\[|\]$/g, '')
    const request = (secure ? https : http).request(url, {
      method: 'GET',
      headers: { ...options.headers, 'Accept-Encoding': 'gzip, br', Connection: 'close' },
      signal,
      // A fresh connection each time, never a pooled one; through a proxy, TLS over the tunnel
      // (Node uses createConnection only when no agent is given).
      ...(tunnel
        ? {
            // The certificate must name the API's host (name or IP), never the proxy's: without
            // `host`, Node checks it against the tunnel socket's host, which is the proxy.
            createConnection: () =>
              tls.connect({
                socket: tunnel,
                host: hostname,
                servername: isIP(hostname) ? undefined : hostname
              })
          }
        : { agent: false })
    })
    request.on('socket', (socket) => sockets.add(socket))
    request.on('error', (error) => reject(classify(error)))
    request.on('response', (response) => {
      const declared = Number(response.headers['content-length'])
      if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
        reject(tooLarge(options.maxBodyBytes))
        response.destroy()
        return
      }
      const decoded = decoder(response.headers['content-encoding'])
      if (decoded === undefined) {
        reject(
          new TransportError(
            'the answer is in a content encoding the action cannot read',
            false,
            'the API'
          )
        )
        response.destroy()
        return
      }
      const body = decoded ? response.pipe(decoded) : response
      // The cap counts decoded bytes: a small compressed answer can unpack to a huge one.
      const chunks: Buffer[] = []
      let size = 0
      body.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > options.maxBodyBytes) {
          reject(tooLarge(options.maxBodyBytes))
          response.destroy()
          decoded?.destroy()
        } else {
          chunks.push(chunk)
        }
      })
      response.on('error', (error) => reject(classify(error)))
      decoded?.on('error', (error) =>
        reject(new TransportError(`the compressed answer is corrupt (${error.message})`, true))
      )
      response.on('aborted', () => reject(new TransportError('the answer was cut off', true)))
      body.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8')
        })
      )
    })
    request.end()
  })
}

/** CONNECT through the proxy; resolves with the raw tunnel socket to the target. */
function openTunnel(
  proxy: URL,
  target: URL,
  sockets: Set<Socket>,
  signal: AbortSignal
): Promise<Socket> {
  const authority = `${target.hostname}:${target.port || 443}`
  const headers: Record<string, string> = { Host: authority }
  if (proxy.username || proxy.password) {
    // Already decoded by the toolkit's URL.
    const credentials = `${proxy.username}:${proxy.password}`
    headers['Proxy-Authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`
  }
  const via = describeProxy(proxy)
  return new Promise<Socket>((resolve, reject) => {
    const request = (proxy.protocol === 'https:' ? https : http).request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: authority,
      headers,
      agent: false,
      signal
    })
    request.on('socket', (socket) => sockets.add(socket))
    request.on('connect', (response, socket) => {
      sockets.add(socket)
      if (response.statusCode === 200) return resolve(socket)
      socket.destroy()
      const status = response.statusCode ?? 0
      const retryable = status >= 500 || status === 429 || status === 408
      reject(
        new TransportError(
          `the proxy ${via} (HTTPS_PROXY) answered CONNECT with HTTP ${status}`,
          retryable,
          'HTTPS_PROXY'
        )
      )
    })
    request.on('error', (error) => {
      const failure = classify(error)
      reject(
        new TransportError(
          `the proxy ${via} (HTTPS_PROXY): ${failure.detail}`,
          failure.retryable,
          'HTTPS_PROXY'
        )
      )
    })
    request.end()
  })
}

/**
 * The stream that decodes a Content-Encoding: null for none, undefined for one the action cannot
 * read. It asks for gzip or brotli (large listings shrink tenfold on the shared network), and
 * also reads deflate, which a server may send whatever was asked.
 */
function decoder(encoding: string | undefined): Transform | null | undefined {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case '':
    case 'identity':
      return null
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip()
    case 'deflate':
      return zlib.createInflate()
    case 'br':
      return zlib.createBrotliDecompress()
    default:
      return undefined
  }
}

function tooLarge(maxBytes: number): TransportError {
  return new TransportError(
    `the answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB; stopped reading`,
    false,
    'the API'
  )
}

/** Duck-typed: errors of node:http may come from another realm (e.g. under a test VM). */
function classify(error: unknown): TransportError {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : String(error)
  const detail = typeof code === 'string' && !text.includes(code) ? `${code} (${text})` : text
  return new TransportError(detail, !(typeof code === 'string' && UNRECOVERABLE_CODES.has(code)))
}
