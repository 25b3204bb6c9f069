/*
 * The second adversarial pass, over the real bundle: what a hostile network, a stepped clock or a
 * mistyped input must not get through (TLS identity behind a proxy, the key in any encoding or cut,
 * monotonic deadlines, branch names, runner files, byte-counted limits, API text as table keys and
 * invisible characters, compressed answers, proxy credentials).
 */
import { describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { KEYS, PROJECT, runAction, serve } from '../fixtures/e2e.js'
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
import { runBundle } from '../../script/run-bundle.ts'

/** Whether `text` holds base64 (or base64url) that decodes, at any alignment, to the key's middle. */
function leaksBase64(text: string, key: string): boolean {
  const middle = key.slice(3, -3)
  for (const [run] of text.matchAll(/[A-Za-z0-9+/_-]{8,}/g)) {
    for (let offset = 0; offset < 4; offset++) {
      const decoded = Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      if (decoded.toString('latin1').includes(middle)) return true
    }
  }
  return false
}

/** Everything the run wrote where people or the runner read, less the one line that masks the key. */
function written(run: Awaited<ReturnType<typeof runBundle>>, key: string): string {
  return [
    run.stdout.replace(`::add-mask::${key}`, ''),
    run.summary,
    ...Object.values(run.outputs)
  ].join('\n')
}

describe('the key and TLS', () => {
  it('through a proxy, an IP api_host is checked against its own IP, not the proxy’s name', async () => {
    const received: string[] = []
    const api = createHttpServer((request, response) => {
      received.push(request.headers.authorization ?? '')
      json(response, 200, { operation: runningOp({ status: 'finished' }) })
    })
    const apiPort = await listen(api)
    // TLS in front of it with a certificate that names only localhost, the proxy's name.
    const tunnel = await tlsBehindProxy(apiPort, {
      cert: 'localhost-cert.pem',
      key: 'localhost-key.pem'
    })
    const run = await runBundle(
      {
        api_key: KEYS.organization,
        project_id: PROJECT,
        operation_id: OP,
        api_host: 'https://203.0.113.7/api/v2'
      },
      {
        env: {
          HTTPS_PROXY: tunnel.url.replace('127.0.0.1', 'localhost'),
          NODE_EXTRA_CA_CERTS: join(TLS, 'localhost-cert.pem')
        }
      }
    )
    expect(tunnel.targets).toEqual(['203.0.113.7:443'])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID|IP: 203\.0\.113\.7 is not in the cert/)
    expect(received).toEqual([])
  })

  it('the key base64-encoded after "Bearer " reaches no sink, the PR comment aside (pull-request suite)', async () => {
    const { world, server } = await serve()
    const key = KEYS.organization
    const echoes = [`Bearer ${key}`, `Authorization: Bearer ${key}`, `x${key}`, `xy${key}`]
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      error: echoes
        .flatMap((echo) => [
          Buffer.from(echo).toString('base64'),
          Buffer.from(echo).toString('base64url')
        ])
        .join(' '),
      timeline: [{ status: 'error' }]
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(1)
    expect(run.outputs.error).toContain('***')
    expect(leaksBase64(written(run, key), key)).toBe(false)
  })

  it('a long Location header is redacted before it is cut: no part of the key survives', async () => {
    const key = KEYS.organization
    const server = await hostile((_request, response) => {
      // The first 12 characters of the key fall within the first 200 of the header.
      response.writeHead(302, { location: `https://elsewhere.test/${'x'.repeat(162)}?k=${key}` })
      response.end()
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: OP })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('answered with a redirect')
    expect(written(run, key)).not.toContain(key.slice(0, 8))
  })
})

describe('time', () => {
  const stepped = (stepMs: number) => ({
    NODE_OPTIONS: `--import ${pathToFileURL(join(import.meta.dirname, '..', 'fixtures', 'clock-step.mjs'))}`,
    CLOCK_STEP_MS: String(stepMs),
    CLOCK_STEP_AFTER_MS: '300'
  })

  it('the wall clock stepping back an hour does not stretch timeout: 2s', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, timeout: '2s', interval: '1s' },
      { env: stepped(-3_600_000), killAfterMs: 12_000 }
    )
    expect(run.signal).toBeNull()
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.durationMs).toBeLessThan(6000)
  })

  it('the wall clock stepping forward an hour does not end a wait early', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      startOnFirstRead: true,
      timeline: [{ status: 'running', ms: 2500 }, { status: 'finished' }]
    })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, timeout: '30s', interval: '1s' },
      { env: stepped(3_600_000) }
    )
    expect(run.outputs.outcome).toBe('success')
    expect(run.code).toBe(0)
  })
})

describe('branch_id: an id or a name, never an empty gate', () => {
  it('a branch name resolves to its branch, and the gate waits for its operations', async () => {
    const { world, server } = await serve()
    world.createBranch(PROJECT, {
      branchId: 'br-preview-pr-12',
      branchName: 'preview/pr-12',
      createMs: 1500,
      startMs: 300,
      startOnFirstRead: true
    })
    const onMain = world.addOperation(PROJECT, {
      action: 'apply_config',
      startOnFirstRead: true,
      timeline: [{ status: 'running', ms: 1500 }, { status: 'finished' }]
    })
    const main = await runAction(server, { project_id: PROJECT, branch_id: 'main' })
    expect(main.code).toBe(0)
    expect(JSON.parse(main.outputs.operations).map((op: { id: string }) => op.id)).toEqual([
      onMain.id
    ])
    expect(main.stdout).toContain('Gating branch main (br-main-000001)')
    const preview = await runAction(server, { project_id: PROJECT, branch_id: 'preview/pr-12' })
    expect(preview.summary).toContain('branch preview/pr-12 <code>br-preview-pr-12</code>')
    expect(server.requests.filter((request) => request.route === 'branches')).toHaveLength(2)
  })

  it.each([
    ['a name that fits no branch', 'mian', 'has no branch named "mian"'],
    ['an id that names no branch', 'br-gone-123456', 'has no branch with the id "br-gone-123456"'],
    ['a name that fits several', 'twin', '2 branches of project']
  ])('%s is an input error before the first poll', async (_case, input, message) => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-twin-000001', name: 'twin' })
    world.addBranch(PROJECT, { id: 'br-twin-000002', name: 'twin' })
    world.addOperation(PROJECT, { action: 'apply_config', timeline: [{ status: 'running' }] })
    const run = await runAction(server, { project_id: PROJECT, branch_id: input })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`::error::input "branch_id": `)
    expect(run.stdout).toContain(message)
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.requests.some((request) => request.route === 'operations')).toBe(false)
  })
})

describe('runner files and outputs', () => {
  it('an unwritable GITHUB_OUTPUT is one clear error; the summary is still written', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
    const dir = mkdtempSync(join(tmpdir(), 'output-dir-'))
    try {
      const run = await runAction(
        server,
        { project_id: PROJECT, operation_id: op.id },
        { env: { GITHUB_OUTPUT: dir } }
      )
      expect(run.code).toBe(1)
      expect(run.stdout).toContain("::error::Could not write the step's outputs (GITHUB_OUTPUT)")
      expect(run.summary).toContain('✅ success')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('output limits count UTF-8 bytes: CJK text stays within 512 KiB', async () => {
    const cjk = '漢字テキスト'.repeat(700)
    const server = await hostile((_request, response) =>
      json(response, 200, {
        operations: Array.from({ length: 100 }, (_, i) =>
          runningOp({
            id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
            error: cjk,
            action: cjk
          })
        ),
        pagination: {}
      })
    )
    const run = await runAction(server, { project_id: PROJECT, wait: 'false' })
    expect(run.outputs.outcome).toBe('pending')
    expect(Buffer.byteLength(run.outputs.operations)).toBeLessThanOrEqual(512 * 1024)
    expect(JSON.parse(run.outputs.operations).length).toBeGreaterThan(0)
    expect(run.stdout).toContain('The operations output holds the first')
    expect(Buffer.byteLength(run.summary)).toBeLessThanOrEqual(512 * 1024)
  })

  it('a status named like a property of a plain object is an unknown status', async () => {
    const server = await hostile((_request, response) =>
      json(response, 200, { operation: runningOp({ status: 'constructor' }) })
    )
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP,
      wait: 'false'
    })
    expect(run.outputs.outcome).toBe('pending')
    expect(run.stdout).toContain('::warning::Unknown operation status "constructor"')
    expect(run.summary).not.toContain('native code')
    expect(run.summary).toContain('❔ constructor')
    expect(run.summary).not.toContain('undefined')
  })

  it('invisible characters are shown escaped in every sink', async () => {
    const invisible = 'finished\u2060\u200b\ufeff\u{e0041}'
    const server = await hostile((_request, response) =>
      json(response, 200, { operation: runningOp({ status: invisible, action: invisible }) })
    )
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP,
      wait: 'false'
    })
    expect(run.outputs.outcome).toBe('pending')
    expect(run.stdout).toContain('finished\\u2060\\u200b\\ufeff\\u{e0041}')
    for (const sink of [run.stdout, run.summary]) {
      expect(sink).not.toMatch(/[\u2060\u200b\ufeff]|\u{e0041}/u)
    }
  })
})

describe('transport details', () => {
  it('a gzip answer is decoded', async () => {
    const encodings: string[] = []
    const server = await hostile((request, response) => {
      encodings.push(String(request.headers['accept-encoding']))
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      response.end(gzipSync(JSON.stringify({ operation: runningOp({ status: 'finished' }) })))
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: OP })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(encodings[0]).toContain('gzip')
  })

  it('the body cap counts decoded bytes: a small gzip bomb is refused at once', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '))
    const server = await hostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      response.end(bomb)
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: OP })
    expect(bomb.length).toBeLessThan(1024 * 1024)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('the answer is larger than 8 MiB')
    expect(server.hits).toHaveLength(1)
  })

  it('a bare % in the proxy password is an error naming HTTPS_PROXY, never its value', async () => {
    const tunnel = await proxy((socket) => socket.destroy())
    const run = await runBundle(
      {
        api_key: KEYS.organization,
        project_id: PROJECT,
        operation_id: OP,
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
