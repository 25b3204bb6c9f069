/*
 * The one place where bytes leave the process: a single GET over node:http/https with a hard time
 * limit, an abort signal, a cap on the body, no redirects, and an HTTPS proxy tunnel (CONNECT).
 * Every socket a request opens, the tunnel's included, is destroyed when the request ends, however
 * it ends, so a silent server or proxy can never keep the process alive.
 *
 * Whether to use a proxy, and which, is @actions/http-client's decision (proxy-tunnel.ts). Carrying
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
import { openTunnel, proxyFor } from './proxy-tunnel.js'
import { classify, tooLarge, TransportError } from './transport-error.js'

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

/** How the request core sends a GET: `httpGet` for the action, a simulated network for the fleet. */
export type HttpGet = (url: URL, options: HttpGetOptions) => Promise<HttpAnswer>

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
      readAnswer(response, options.maxBodyBytes).then(resolve, reject)
    })
    request.end()
  })
}

/**
 * The answer's status, headers and body, read up to `maxBodyBytes` of decoded bytes (a small
 * compressed answer can unpack to a huge one).
 */
function readAnswer(response: http.IncomingMessage, maxBodyBytes: number): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      reject(tooLarge(maxBodyBytes))
      response.destroy()
      return
    }
    const decoded = decoder(response.headers['content-encoding'])
    if (decoded === undefined) {
      const unreadable = 'the answer is in a content encoding the action cannot read'
      reject(new TransportError(unreadable, false, 'the API'))
      response.destroy()
      return
    }
    const body = decoded ? response.pipe(decoded) : response
    const chunks: Buffer[] = []
    let size = 0
    body.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) {
        reject(tooLarge(maxBodyBytes))
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
