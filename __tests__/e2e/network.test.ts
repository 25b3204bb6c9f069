/*
 * The network between the runner and the API, over the real bundle: IPv6 loopback, certificates,
 * HTTPS proxies (stalled, refusing, working, with bad credentials), redirects, and a resolver that
 * fails for a moment or for good.
 */
import { describe, expect, it } from '@jest/globals'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { createServer as createTlsServer } from 'node:tls'
import { hostile, json, listen, proxy, TLS, tlsBehindProxy } from '../support/neon/hostile.js'
import { runAction, serve } from '../support/bundles/action.js'
import { runBundle } from '../support/bundles/run-bundle.ts'
import { KEYS, OP_A, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('a host name that does not resolve', () => {
  const resolverFails = (failures: string) => ({
    NODE_OPTIONS: `--import ${pathToFileURL(join(import.meta.dirname, '..', 'support', 'bundles', 'resolver-fails.mjs'))}`,
    RESOLVER_FAILURES: failures
  })

  it('for a moment: retried at the pace, and the gate goes on', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    const apiHost = server.apiHost.replace('127.0.0.1', 'localhost')
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, api_host: apiHost },
      { env: resolverFails('1') }
    )
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(
      run.stdout.match(/no answer \(getaddrinfo ENOTFOUND localhost\); retrying in/g)
    ).toHaveLength(1)
    expect(server.requests).toHaveLength(1)
  })

  it('for 3 intervals: an error naming api_host', async () => {
    const { server } = await serve()
    const apiHost = server.apiHost.replace('127.0.0.1', 'localhost')
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: OP_A, api_host: apiHost, timeout: '5m' },
      { env: resolverFails('all') }
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(
      /::error::GET \/projects\/.* failed: getaddrinfo ENOTFOUND localhost; the name has not resolved for \d+\.\d s; no retry can fix that: check api_host/
    )
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.requests).toHaveLength(0)
    // 3 intervals of 1 s, then at most one more retry: far within the 5 minutes of timeout.
    expect(run.runningMs).toBeLessThan(60_000)
  })
})

describe('addresses and certificates', () => {
  it('IPv6 loopback works as api_host', async () => {
    const { world, server } = await serve({ host: '::1' })
    const op = operationIn(world, 'finished')
    expect(server.apiHost).toMatch(/^http:\/\/\[::1\]:\d+\/api\/v2$/)
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(server.requests).toHaveLength(1)
  })

  it('a certificate that cannot be trusted is one clear error at once, naming api_host', async () => {
    const tlsServer = createTlsServer({
      key: readFileSync(join(TLS, 'key.pem')),
      cert: readFileSync(join(TLS, 'cert.pem'))
    })
    let handshakes = 0
    tlsServer.on('connection', () => handshakes++)
    const port = await listen(tlsServer)
    const run = await runAction({ apiHost: '' } as never, {
      project_id: PROJECT,
      operation_id: OP_A,
      api_host: `https://127.0.0.1:${port}/api/v2`,
      timeout: '2m'
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/::error::GET \/projects\/.* failed: .*(SELF_SIGNED|self-signed)/)
    expect(run.stdout).toContain('no retry can fix that: check api_host')
    // At once: one handshake, no retry, and far within the 2 minutes a retrying gate would take.
    expect(handshakes).toBe(1)
    expect(run.runningMs).toBeLessThan(20_000)
  })
})

describe('HTTPS proxies', () => {
  /** A CONNECT proxy on 127.0.0.1; `onConnect` decides what it does with each tunnel. */
  const remote = 'https://api.neon.test/api/v2'

  it.each([
    ['never answers CONNECT', () => undefined],
    [
      'answers CONNECT, then goes silent',
      (socket: Socket) => socket.write('HTTP/1.1 200 Connection established\r\n\r\n')
    ]
  ])('a proxy that %s: timeout, and the process exits by itself', async (_kind, onConnect) => {
    const stalled = await proxy(onConnect)
    const run = await runBundle(
      {
        api_key: KEYS.organization,
        project_id: PROJECT,
        operation_id: OP_A,
        api_host: remote,
        timeout: '2s',
        interval: '1s'
      },
      { env: { HTTPS_PROXY: stalled.url }, killAfterMs: 40_000 }
    )
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    // A 2 s timeout and its 1 s grace; a ceiling for a loaded machine (start-up not counted).
    expect(run.runningMs).toBeLessThan(15_000)
    expect(stalled.targets[0]).toBe('api.neon.test:443')
  })

  it('a proxy that refuses with 407 is one clear error at once, naming HTTPS_PROXY', async () => {
    const refusing = await proxy((socket) =>
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n')
    )
    const run = await runBundle(
      { api_key: KEYS.organization, project_id: PROJECT, operation_id: OP_A, api_host: remote },
      { env: { HTTPS_PROXY: `http://user:proxy-password@${refusing.url.slice(7)}` } }
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('answered CONNECT with HTTP 407')
    expect(run.stdout).toContain('check HTTPS_PROXY and NO_PROXY')
    expect(run.stdout).not.toContain('proxy-password')
    expect(refusing.targets).toHaveLength(1)
  })

  /**
   * A finished operation on the local API server, behind TLS with the certificate in `files`
   * (support/tls/) and a proxy in front; `ca`: that certificate, for NODE_EXTRA_CA_CERTS.
   */
  async function finishedBehindTls(files: { cert: string; key: string }) {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    const tunnel = await tlsBehindProxy(Number(new URL(server.url).port), files)
    return { server, op, tunnel, ca: join(TLS, files.cert) }
  }

  it('through a working proxy the key reaches only the API, over TLS', async () => {
    // TLS termination in front of the local API server, as api.neon.test.
    const {
      server,
      op,
      tunnel: working,
      ca
    } = await finishedBehindTls({
      cert: 'cert.pem',
      key: 'key.pem'
    })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, api_host: remote },
      { env: { HTTPS_PROXY: working.url, NODE_EXTRA_CA_CERTS: ca } }
    )
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(working.targets).toEqual(['api.neon.test:443'])
    expect(server.requests.map((request) => request.keyType)).toEqual(['organization'])
  })

  it('through a proxy, an IP api_host is checked against its own IP, not the proxy’s name', async () => {
    // TLS in front of it with a certificate that names only localhost, the proxy's name.
    const { server, op, tunnel, ca } = await finishedBehindTls({
      cert: 'localhost-cert.pem',
      key: 'localhost-key.pem'
    })
    const run = await runBundle(
      {
        api_key: KEYS.organization,
        project_id: PROJECT,
        operation_id: op.id,
        api_host: 'https://203.0.113.7/api/v2'
      },
      {
        env: {
          HTTPS_PROXY: tunnel.url.replace('127.0.0.1', 'localhost'),
          NODE_EXTRA_CA_CERTS: ca
        }
      }
    )
    expect(tunnel.targets).toEqual(['203.0.113.7:443'])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID|IP: 203\.0\.113\.7 is not in the cert/)
    expect(server.requests).toEqual([])
  })

  it('a bare % in the proxy password is an error naming HTTPS_PROXY, never its value', async () => {
    const tunnel = await proxy((socket) => socket.destroy())
    const run = await runBundle(
      {
        api_key: KEYS.organization,
        project_id: PROJECT,
        operation_id: OP_A,
        api_host: 'https://api.neon.test/api/v2'
      },
      { env: { HTTPS_PROXY: `http://user:100%secret@${tunnel.url.slice(7)}` } }
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('HTTPS_PROXY cannot be read')
    expect(run.stdout).not.toContain('URI malformed')
    expect(run.stdout + run.summary).not.toContain('100%secret')
    expect(tunnel.targets).toEqual([])
  })
})

describe('redirects', () => {
  it('a redirect is not followed: the key never goes to another port', async () => {
    const elsewhere = await hostile((_request, response) => json(response, 200, {}))
    const server = await hostile((_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/api/v2/steal` })
      response.end()
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP_A
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('answered with a redirect (HTTP 302')
    expect(run.stdout).toContain('which was not followed')
    expect(server.hits).toHaveLength(1)
    expect(elsewhere.hits).toHaveLength(0)
  })
})
