/*
 * The real bundle against hostile and broken servers and proxies on 127.0.0.1: it must never hang
 * or overrun `timeout`, never pass a gate falsely, never let API text become a runner command or
 * Markdown, and never leak the key.
 */
import { describe, expect, it } from '@jest/globals'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { createServer as createTlsServer } from 'node:tls'
import {
  hostile,
  json,
  listen,
  OP,
  proxy,
  runningOp,
  TLS,
  tlsBehindProxy
} from '../fixtures/hostile-servers.js'
import {
  KEYS,
  PROJECT,
  runAction,
  serve,
  terminateOnFirstRequest,
  withoutTimeline
} from '../fixtures/e2e.js'
import { runBundle } from '../../script/run-bundle.ts'

/** Full pages of 400 projects, each with a new cursor, forever; each page after `delayMs`. */
function endlessProjectPages(delayMs: number) {
  let page = 0
  return hostile((_request, response) => {
    setTimeout(
      () =>
        json(response, 200, {
          projects: Array.from({ length: 400 }, (_, i) => ({ id: `p-${page}-${i}` })),
          pagination: { cursor: `c-${++page}` }
        }),
      delayMs
    )
  })
}

describe('never hang, never overrun timeout', () => {
  it('listing projects: endless new cursors stop at the deadline', async () => {
    // 250 ms a page: the 50-page cap would take 12 s, so only the deadline can end it in time.
    const server = await endlessProjectPages(250)
    const run = await runAction(server, {
      list_projects: 'true',
      timeout: '2s'
    })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    // Well under the 12 s the page cap would take, with room for a loaded machine's start-up.
    expect(run.durationMs).toBeLessThan(9000)
    expect(server.hits.length).toBeLessThanOrEqual(50)
  })

  it('listing projects: a cursor handed out before ends the walk with a warning', async () => {
    let page = 0
    const server = await hostile((_request, response) =>
      json(response, 200, {
        projects: Array.from({ length: 400 }, (_, i) => ({ id: `p-${i}` })),
        pagination: { cursor: page++ % 2 === 0 ? 'a' : 'b' }
      })
    )
    const run = await runAction(server, {
      list_projects: 'true'
    })
    expect(run.code).toBe(0)
    expect(run.outputs.project_count).toBe('400')
    expect(run.stdout).toContain('::warning::The API handed out a page cursor it had given before')
    expect(server.hits).toHaveLength(3)
  })

  it('listing projects: the number of pages is capped, with a warning', async () => {
    const server = await endlessProjectPages(0)
    const run = await runAction(server, {
      list_projects: 'true',
      timeout: '2m'
    })
    expect(run.code).toBe(0)
    expect(server.hits).toHaveLength(50)
    expect(run.stdout).toContain('::warning::Listed the first 50 pages of projects only')
    expect(run.outputs.project_count).toBe('20000')
  })

  it('10 operation ids against a server that answers in 0.9 s: timeout 2s still ends in time', async () => {
    const { world, server } = await serve()
    const ids = Array.from(
      { length: 10 },
      () =>
        world.addOperation(PROJECT, { action: 'apply_config', timeline: [{ status: 'running' }] })
          .id
    )
    server.addFault({ kind: 'slow', delayMs: 900 })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: ids.join(','),
      timeout: '2s'
    })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    // A 2 s timeout, its 1 s grace, and the start of a process on a loaded machine.
    expect(run.durationMs).toBeLessThan(6000)
    expect(server.requests.length).toBeLessThanOrEqual(4)
  })

  it('a request without an answer is cut after 3 intervals (10 s at least) and retried at once', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
    server.addFault({ kind: 'slow', delayMs: 15_000, times: 1 })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '25s'
    })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('(no answer within 10.0 s); retrying now, the wait spent on it')
    const [first, second] = server.requests.map((request) => request.at)
    // The server sees the first request a little after the action sent it (more on a loaded
    // machine); a retry that waited again after the cut would come 10 s later still.
    expect(second - first).toBeGreaterThanOrEqual(9000)
    expect(second - first).toBeLessThan(20_000)
  })

  it('an endless body fails at once, saying the answer was too large', async () => {
    const server = await hostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 'x')
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump)
      }
      response.write('{"operation": {"id": "')
      pump()
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP,
      timeout: '30s'
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('the answer is larger than 8 MiB; stopped reading')
    expect(run.durationMs).toBeLessThan(10_000)
    expect(server.hits).toHaveLength(1)
  })

  it('a declared Content-Length over the cap fails before reading', async () => {
    const server = await hostile((_request, response) => {
      response.writeHead(200, { 'content-length': String(500 * 1024 * 1024) })
      response.write('{')
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('the answer is larger than 8 MiB')
    expect(server.hits).toHaveLength(1)
  })

  it('IPv6 loopback works as api_host', async () => {
    const { world, server } = await serve({ host: '::1' })
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
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
    const started = Date.now()
    const run = await runAction({ apiHost: '' } as never, {
      project_id: PROJECT,
      operation_id: OP,
      api_host: `https://127.0.0.1:${port}/api/v2`
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/::error::GET \/projects\/.* failed: .*(SELF_SIGNED|self-signed)/)
    expect(run.stdout).toContain('no retry can fix that: check api_host')
    expect(handshakes).toBe(1)
    expect(Date.now() - started).toBeLessThan(5000)
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
  ])(
    'a proxy that %s: timeout, and the process exits within about a second',
    async (_kind, onConnect) => {
      const stalled = await proxy(onConnect)
      const run = await runBundle(
        {
          api_key: KEYS.organization,
          project_id: PROJECT,
          operation_id: OP,
          api_host: remote,
          timeout: '2s',
          interval: '1s'
        },
        { env: { HTTPS_PROXY: stalled.url }, killAfterMs: 20_000 }
      )
      expect(run.code).toBe(1)
      expect(run.outputs.outcome).toBe('timeout')
      // A 2 s timeout, its 1 s grace, and the start of a process on a loaded machine.
      expect(run.durationMs).toBeLessThan(6000)
      expect(stalled.targets[0]).toBe('api.neon.test:443')
    }
  )

  it('a proxy that refuses with 407 is one clear error at once, naming HTTPS_PROXY', async () => {
    const refusing = await proxy((socket) =>
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n')
    )
    const run = await runBundle(
      { api_key: KEYS.organization, project_id: PROJECT, operation_id: OP, api_host: remote },
      { env: { HTTPS_PROXY: `http://user:proxy-password@${refusing.url.slice(7)}` } }
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('answered CONNECT with HTTP 407')
    expect(run.stdout).toContain('check HTTPS_PROXY and NO_PROXY')
    expect(run.stdout).not.toContain('proxy-password')
    expect(refusing.targets).toHaveLength(1)
  })

  it('through a working proxy the key reaches only the API, over TLS', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
    // TLS termination in front of the local API server, as api.neon.test.
    const working = await tlsBehindProxy(Number(new URL(server.url).port), {
      cert: 'cert.pem',
      key: 'key.pem'
    })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, api_host: remote },
      {
        env: {
          HTTPS_PROXY: working.url,
          NODE_EXTRA_CA_CERTS: join(TLS, 'cert.pem')
        }
      }
    )
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(working.targets).toEqual(['api.neon.test:443'])
    expect(server.requests.map((request) => request.keyType)).toEqual(['organization'])
  })
})

describe('never pass a gate falsely', () => {
  it('an answer for another operation does not count as the one asked for', async () => {
    const other = '0f0e0d0c-0b0a-4909-8807-060504030201'
    const server = await hostile((_request, response) =>
      json(response, 200, { operation: runningOp({ id: other, status: 'finished' }) })
    )
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP
    })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBeUndefined()
    expect(run.stdout).toContain(`the answer is operation "${other}", not the one asked for`)
  })

  it('50 running operations with unreadable created_at keep the gate closed', async () => {
    const operations = Array.from({ length: 50 }, (_, i) =>
      runningOp({
        id: `5a1f2c3d-4e5f-4a6b-8c7d-${String(i).padStart(12, '0')}`,
        created_at: 'yesterday-ish'
      })
    )
    const server = await hostile((_request, response) =>
      json(response, 200, { operations, pagination: {} })
    )
    const run = await runAction(server, {
      project_id: PROJECT,
      wait: 'false'
    })
    expect(run.outputs.outcome).toBe('pending')
    expect(JSON.parse(run.outputs.operations)).toHaveLength(50)
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.stdout).toContain('has no readable created_at')
  })

  it('a redirect is not followed: the key never goes to another port', async () => {
    const elsewhere = await hostile((_request, response) => json(response, 200, {}))
    const server = await hostile((_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/api/v2/steal` })
      response.end()
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('answered with a redirect (HTTP 302')
    expect(run.stdout).toContain('which was not followed')
    expect(server.hits).toHaveLength(1)
    expect(elsewhere.hits).toHaveLength(0)
  })
})

/** Carriage returns, ANSI escapes and right-to-left overrides: none may reach a sink. */
const hasUnsafeText = (text: string): boolean =>
  ['\r', '\u001b', '\u202e'].some((c) => text.includes(c))

describe('never inject, never leak', () => {
  const injection = [
    'apply_config',
    '::set-output name=outcome::success',
    '::add-mask::br-main-000001',
    '::error title=Pwned::owned',
    '::stop-commands::abc123',
    '\u001b[31mred\u001b[0m \u202egnp.exe'
  ].join('\n')

  /** Lines the runner would read as workflow commands; only the action's own may appear. */
  function commands(stdout: string): string[] {
    return stdout.split(/\r?\n|\r/).filter((line) => line.trimStart().startsWith('::'))
  }

  it('API text cannot become a workflow command, an ANSI escape or a reversed line', async () => {
    const server = await hostile((_request, response) => {
      if (server.hits.length === 1) {
        json(response, 500, { message: injection, code: injection, request_id: 'r\n::endgroup::' })
      } else {
        json(response, 200, {
          operation: runningOp({ action: injection, status: `running\r::set-env name=X::1` })
        })
      }
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP,
      wait: 'false'
    })
    for (const line of commands(run.stdout)) {
      expect(line).toMatch(
        /^::(add-mask::napi_local_organization_83b1e4c7$|debug::|warning::|error::)/
      )
    }
    expect(hasUnsafeText(run.stdout)).toBe(false)
    expect(run.stdout).toContain('apply_config\\n::set-output name=outcome::success')
    expect(hasUnsafeText(run.summary)).toBe(false)
    expect(withoutTimeline(run.summary)).not.toMatch(/\n\s*\n/)
    // In the timeline, API text keeps only characters Mermaid reads as a name.
    const timeline = /```mermaid\n([\s\S]*?)\n```/.exec(run.summary)![1]
    const names = timeline
      .split('\n')
      .filter((line) => /^ {4}(section |▸ )/.test(line))
      .map((line) => line.replace(/^ {4}(section |▸ )/, '').replace(/ :[a-z, ]+\d+, \d+$/, ''))
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_. -]+$/)
    expect(timeline).toContain('section apply_config___set-output name_outcome')
  })

  it('the key echoed by the server, in plain and escaped forms, reaches no sink', async () => {
    const key = `napi_k&y"<x>'${'Z'.repeat(20)}`
    const raw = await hostile((_request, response) => {
      // JSON escapes of the key's first letter and of its quote, as a server could send them.
      const escaped = JSON.stringify(key).slice(1, -1).replace('n', '\\u006e')
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        `{"operation": {"id": "${OP}", "status": "cancelled", "action": "${escaped}", "error": "key ${escaped} & ${Buffer.from(key).toString('base64')}"}}`
      )
    })
    const run = await runAction(raw, { api_key: key, project_id: PROJECT, operation_id: OP })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::An operation ended in failure')
    expect(run.outputs.error).toContain('key *** &')
  })

  it('an api_host with credentials is not repeated in the error', async () => {
    const { server } = await serve()
    const run = await runAction(server, {
      project_id: PROJECT,
      api_host: 'ftp://admin:hunter2-secret@example.com/api'
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('input "api_host": must not carry credentials')
    expect(run.stdout + run.summary).not.toContain('hunter2-secret')
    expect(server.requests).toHaveLength(0)
  })
})

describe('stay within GitHub limits; say what is known', () => {
  it('a 5 MB operation error gives small outputs and a small summary', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'error' }],
      error: 'E'.repeat(5_000_000)
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.outputs.outcome).toBe('failure')
    expect(run.outputs.error.length).toBeLessThan(5000)
    expect(run.outputs.error).toMatch(/… \[\d+ more characters\]$/)
    const outputBytes = Object.values(run.outputs).reduce((sum, value) => sum + value.length, 0)
    expect(outputBytes).toBeLessThan(64 * 1024)
    expect(run.summary.length).toBeLessThan(64 * 1024)
    expect(run.stdout.length).toBeLessThan(64 * 1024)
  })

  it('10,000 operations in flight: the summary stays far below 1 MiB', async () => {
    const { world, server } = await serve({ history: 0 })
    for (let i = 0; i < 10_000; i++) {
      world.addOperation(PROJECT, {
        action: 'apply_config',
        createdAt: world.now() - i * 1000,
        timeline: [{ status: 'running' }]
      })
    }
    const run = await runAction(server, { project_id: PROJECT, wait: 'false' })
    expect(run.outputs.outcome).toBe('pending')
    expect(run.summary.length).toBeLessThan(256 * 1024)
    expect(run.summary).toContain('<h3>Operations (10000)</h3>')
    expect(run.summary).toContain('… and 9950 more operations not shown')
    expect(run.outputs.operations.length).toBeLessThanOrEqual(512 * 1024)
    expect(run.stdout).toContain('The operations output holds the first')
  })

  it('an error before anything was read does not claim that nothing is in flight', async () => {
    const { server } = await serve()
    const run = await runAction(server, { api_key: KEYS.revoked, project_id: PROJECT })
    expect(run.code).toBe(1)
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.summary).toContain('Nothing could be read before the error')
  })

  it('cancelled while listing projects: outcome cancelled', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'slow', delayMs: 20_000 })
    const run = await runAction(
      server,
      { list_projects: 'true' },
      { onStart: terminateOnFirstRequest(server).onStart }
    )
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('cancelled')
    expect(run.summary).toContain('🚫 cancelled')
  })
})
