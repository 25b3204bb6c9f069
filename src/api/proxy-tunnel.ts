/*
 * The HTTPS proxy: whether to use one and which is @actions/http-client's decision (its proxy
 * rules); the CONNECT tunnel is ours, because the toolkit's `tunnel` agent sends CONNECT with no
 * time limit, so a silent proxy would hold the step until the job times out.
 */
import * as http from 'node:http'
import * as https from 'node:https'
import type { Socket } from 'node:net'
import { checkBypass, getProxyUrl } from '@actions/http-client/lib/proxy'
import { classify, TransportError } from './transport-error.js'

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

/** The CONNECT request's headers: the target, and the proxy's credentials when it has some. */
function connectHeaders(proxy: URL, authority: string): Record<string, string> {
  const headers: Record<string, string> = { Host: authority }
  if (proxy.username || proxy.password) {
    // Already decoded by the toolkit's URL.
    const credentials = `${proxy.username}:${proxy.password}`
    headers['Proxy-Authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`
  }
  return headers
}

/** CONNECT through the proxy; resolves with the raw tunnel socket to the target. */
export function openTunnel(
  proxy: URL,
  target: URL,
  sockets: Set<Socket>,
  signal: AbortSignal
): Promise<Socket> {
  const authority = `${target.hostname}:${target.port || 443}`
  const headers = connectHeaders(proxy, authority)
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
          'HTTPS_PROXY',
          failure.unresolved
        )
      )
    })
    request.end()
  })
}
