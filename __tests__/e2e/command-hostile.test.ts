/*
 * The command against a hostile server, a careless user and a CI system (an outside review of #44
 * found each of these): keys with white space around them, secrets given where a path belongs,
 * dotenv files a server tries to blow past GitLab's limits, standard output that cannot be written,
 * a secret file nobody writes to, white space that the runner trims before it reads a command,
 * wide characters on a terminal, and exit codes at every stage.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, type Socket } from 'node:net'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { COMMAND_BUNDLE, nodeWith, runCommandBundle } from '../../script/runner/run-bundle.ts'
import { KEYS, PROJECT, serve, terminateOn } from '../fixtures/e2e.js'
import { gateCommand, inTempDir, secretForms } from '../fixtures/command.js'

const OP = '11111111-1111-4111-8111-111111111111'

/** A hostile API on 127.0.0.1: `handler` answers every request. */
const hostile: Server[] = []
afterEach(async () => {
  await Promise.all(hostile.splice(0).map((s) => new Promise((r) => s.close(r))))
})
async function hostileApi(
  handler: (request: IncomingMessage, response: ServerResponse) => void
): Promise<{ apiHost: string }> {
  const server = createServer(handler)
  hostile.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { apiHost: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** One operation in error whose fields are what `fields` makes of the request's key. */
const oneOperation = (fields: (key: string) => Record<string, unknown>) =>
  hostileApi((request, response) => {
    const key = (request.headers.authorization ?? '').replace(/^Bearer /, '')
    response.setHeader('content-type', 'application/json')
    response.end(
      JSON.stringify({
        operation: {
          id: OP,
          project_id: 'p1',
          status: 'error',
          action: 'apply_config',
          branch_id: 'br-x',
          created_at: '2026-01-01T00:00:00Z',
          updated_at: '2026-01-01T00:00:01Z',
          ...fields(key)
        }
      })
    )
  })

describe('the command, hostile: secrets', () => {
  it.each([
    ['a trailing new line', 'napi_review_secret_key_0001\n'],
    ['leading spaces', '  napi_review_secret_key_0001'],
    ['a trailing CRLF', 'napi_review_secret_key_0001\r\n']
  ])(
    'NEON_API_KEY with %s: a server that echoes the key cannot put it on any stream or file',
    async (_, raw) => {
      const key = raw.trim()
      const server = await oneOperation((sent) => ({ error: `the key was ${sent}` }))
      await inTempDir(async (dir) => {
        const dotenv = join(dir, 'gate.env')
        const summary = join(dir, 'summary.md')
        const run = await gateCommand(
          server,
          ['--operation-id', OP, '--dotenv', dotenv, '--summary', summary],
          { env: { NEON_API_KEY: raw, NEON_PROJECT_ID: 'p1' } }
        )
        expect(run.code).toBe(1)
        const files = readFileSync(dotenv, 'utf8') + readFileSync(summary, 'utf8')
        for (const form of secretForms(key)) {
          expect(run.stdout + run.stderr + files).not.toContain(form)
        }
      })
    }
  )

  it('the same from --api-key-file with a blank line after the key', async () => {
    const key = 'napi_review_secret_key_0002'
    const server = await oneOperation((sent) => ({ error: `the key was ${sent}` }))
    const run = await gateCommand(server, ['--operation-id', OP, '--api-key-file', '-'], {
      env: { NEON_API_KEY: '', NEON_PROJECT_ID: 'p1' },
      stdin: `${key}\n\n`
    })
    expect(run.code).toBe(1)
    expect(run.stdout + run.stderr).not.toContain(key)
  })

  it('--database-url-file given the URL itself (a GitLab "Variable" instead of a "File"): the password is not echoed', async () => {
    const { server } = await serve()
    const url = 'postgresql://app:S3cret-db-pw-9f2c@ep-x.example.com/db?sslmode=require'
    const run = await gateCommand(server, ['--database-url-file', url])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--database-url-file')
    for (const form of secretForms('S3cret-db-pw-9f2c')) expect(run.stderr).not.toContain(form)
  })

  it('--api-key-file given the key itself: the key is not echoed', async () => {
    const { server } = await serve()
    const run = await gateCommand(server, ['--api-key-file', KEYS.organization])
    expect(run.code).toBe(2)
    expect(run.stderr).not.toContain(KEYS.organization)
  })

  it('the key passed as an argument by mistake (neon-gate "$NEON_API_KEY"): not echoed', async () => {
    const { server } = await serve()
    const run = await gateCommand(server, [KEYS.organization])
    expect(run.code).toBe(2)
    expect(run.stderr).not.toContain(KEYS.organization)
  })
})

describe('the command, hostile: the dotenv file', () => {
  it('stays within GitLab 5 KB whatever the server sends', async () => {
    const junk = (n: number) => '\u0085'.repeat(n)
    const server = await oneOperation(() => ({
      status: 'error',
      action: junk(300),
      branch_id: junk(300),
      endpoint_id: junk(300),
      created_at: junk(300),
      updated_at: junk(300),
      error: junk(5000)
    }))
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await gateCommand(server, ['--operation-id', OP, '--dotenv', dotenv], {
        env: { NEON_PROJECT_ID: 'p1' }
      })
      expect(run.code).toBe(1)
      const text = readFileSync(dotenv, 'utf8')
      expect(text.split('\n').length - 1).toBeLessThanOrEqual(20)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(5 * 1024)
    })
  })

  it('a gate that ended in an error (HTTP 404) still says why, and with what code, for the gate-failed job', async () => {
    const { server } = await serve()
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await gateCommand(server, ['--project-id', 'no-such-project', '--dotenv', dotenv])
      expect(run.code).toBe(3)
      // A later job reads why the gate failed: the error line, and the exit code.
      const env = readFileSync(dotenv, 'utf8')
      expect(env).toMatch(/^GATE_MESSAGE=Project "no-such-project" was not found \(HTTP 404/m)
      expect(env).toMatch(/^GATE_EXIT_CODE=3$/m)
    })
  })
})

describe('the command, hostile: streams and exit codes', () => {
  const shell = (command: string, env: Record<string, string>, program = 'sh') =>
    runCommandBundle([], env, { program: [program, '-c', command] })
  const commandLine = (apiHost: string) =>
    [...nodeWith(COMMAND_BUNDLE, {}), '--api-host', apiHost, '--interval', '1s'].join(' ')

  it('a standard output that cannot be written (disk full): no stack trace, not exit 1, the dotenv file still written', async () => {
    const { server } = await serve()
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await shell(
        `${commandLine(server.apiHost)} --no-wait --dotenv ${dotenv} > /dev/full`,
        { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT }
      )
      expect(run.stderr).not.toContain('Unhandled')
      expect(run.code).not.toBe(1) // 1 says "an operation failed"; none did
      expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_OUTCOME=/m)
    })
  })

  it('a standard output whose reader is gone (| true): no stack trace, not exit 1', async () => {
    const { server } = await serve()
    const run = await shell(
      `${commandLine(server.apiHost)} --no-wait --output json | (exec 0<&-; sleep 1); exit 0`,
      { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT }
    )
    expect(run.stderr).not.toMatch(/Unhandled 'error' event|EPIPE/)
  })

  it('--api-key-file naming a FIFO nobody writes to does not hang past --timeout', async () => {
    const { server } = await serve()
    await inTempDir(async (dir) => {
      const fifo = join(dir, 'key')
      execFileSync('mkfifo', [fifo])
      const started = Date.now()
      const run = await gateCommand(server, ['--api-key-file', fifo, '--timeout', '2s'], {
        killAfterMs: 15_000
      })
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(run.code).toBe(2)
    })
  })

  it('--api-key-file <(…): a pipe whose writer is slow is read as its bytes come', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
    // bash's process substitution: /dev/fd/N, a pipe whose writer sleeps before it writes the key.
    const run = await shell(
      `exec ${commandLine(server.apiHost)} --operation-id ${op.id} --api-key-file <(sleep 0.5; printf '%s\\n' "$KEY")`,
      { KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT },
      'bash'
    )
    expect([run.code, run.stderr]).toEqual([0, expect.stringContaining('outcome: success')])
  })

  it('timeout while the branch search answers 503: exit 124', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'status', status: 503, route: 'branches' })
    const run = await gateCommand(server, ['--branch-id', 'main-ish', '--timeout', '2s'])
    expect(run.code).toBe(124)
  })

  it('SIGINT before the first answer: exit 130, outcome cancelled', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'slow', delayMs: 10_000 })
    const { onStart } = terminateOn((listener) => (server.onRequest = listener), 'SIGINT')
    const run = await gateCommand(server, ['--output', 'json'], { onStart })
    expect(run.code).toBe(130)
  })

  describe('a database that accepts connections and never answers', () => {
    const sockets: Socket[] = []
    const silent = async () => {
      const tcp = createTcpServer((socket) => sockets.push(socket))
      await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
      const port = (tcp.address() as AddressInfo).port
      return {
        url: `postgresql://u:silent-pw-123@127.0.0.1:${port}/db?sslmode=disable`,
        close: () => {
          for (const socket of sockets.splice(0)) socket.destroy()
          tcp.close()
        }
      }
    }

    it('timeout in the database probe: exit 124, promptly', async () => {
      const { server } = await serve()
      const database = await silent()
      try {
        const started = Date.now()
        const run = await gateCommand(server, ['--database-url', database.url, '--timeout', '3s'])
        expect(run.code).toBe(124)
        expect(Date.now() - started).toBeLessThan(8000)
      } finally {
        database.close()
      }
    })

    it('SIGTERM during the database probe: exit 143, promptly', async () => {
      const { server } = await serve()
      const database = await silent()
      try {
        let child: { kill(signal: NodeJS.Signals): boolean } | undefined
        const timer = setTimeout(() => child?.kill('SIGTERM'), 2500)
        const started = Date.now()
        const run = await gateCommand(server, ['--database-url', database.url, '--timeout', '1m'], {
          onStart: (started) => (child = started)
        })
        clearTimeout(timer)
        expect(run.code).toBe(143)
        expect(Date.now() - started).toBeLessThan(6000)
        expect(run.stdout + run.stderr).not.toContain('silent-pw-123')
      } finally {
        database.close()
      }
    })
  })
})

describe('the command, hostile: untrusted text on standard output', () => {
  it.each([
    ['NBSP', '\u00a0'],
    ['ideographic space', '\u3000'],
    ['en quad', '\u2000']
  ])(
    'no line of the text report is a workflow command once the runner trims its leading white space (%s)',
    async (_, space) => {
      const server = await oneOperation(() => ({
        id: OP,
        error: `${space}::warning title=pwned::injected by the API`
      }))
      const run = await gateCommand(server, ['--operation-id', OP], {
        env: { NEON_PROJECT_ID: 'p1' }
      })
      expect(run.code).toBe(1)
      // actions/runner, ActionCommand.TryParseV2: `message = message.TrimStart()` (.NET: Unicode white space).
      for (const line of (run.stdout + run.stderr).split('\n')) {
        expect(line.replace(/^\s+/u, '').startsWith('::')).toBe(false)
      }
    }
  )
})

describe('the command, hostile: progress on a terminal', () => {
  it('a progress line never wraps (a wrapped line cannot be rewritten in place): wide characters count twice', async () => {
    let reads = 0
    const server = await oneOperation(() => ({
      action: '界'.repeat(100),
      status: ++reads < 3 ? 'running' : 'finished'
    }))
    const run = await gateCommand(server, ['--operation-id', OP], {
      terminal: true,
      env: { NEON_PROJECT_ID: 'p1' }
    })
    expect(run.code).toBe(0)
    const columns = (text: string) =>
      [...text].reduce((sum, c) => sum + (/\p{Script=Han}/u.test(c) ? 2 : 1), 0)
    // Each piece that a progress write puts after clearing the line (the terminal is 120 wide).
    const progress = run.stderr
      .split('\r\x1b[2K')
      .map((piece) => piece.split(/\r?\n/)[0])
      // eslint-disable-next-line no-control-regex -- warnings and errors stand on lines of their own
      .filter((piece) => !/^(\x1b\[3\dm)?(error|warning):/.test(piece))
    expect(progress.some((line) => line.includes('界'))).toBe(true)
    for (const line of progress) {
      expect(columns(line)).toBeLessThan(120)
    }
  })
})

describe('the command, hostile: more exit codes (expected to pass)', () => {
  it('timeout while listing projects answers 503: exit 124', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'status', status: 503, route: 'projects' })
    const started = Date.now()
    const run = await gateCommand(server, ['--list-projects', '--timeout', '2s'], {
      noProject: true
    })
    expect(run.code).toBe(124)
    expect(Date.now() - started).toBeLessThan(6000)
  })

  it('--no-wait with nothing in flight: exit 0', async () => {
    const { server } = await serve({})
    const run = await gateCommand(server, ['--no-wait', '--branch-id', 'main'])
    expect(run.code).toBe(0)
  })
})

describe('the command, hostile: NEON_PROJECT_ID and --list-projects (design)', () => {
  it("neon-gate --list-projects (the help's own usage line) only lists, even with NEON_PROJECT_ID exported as the README does", async () => {
    const { world, server } = await serve()
    world.addOperation(PROJECT, { action: 'apply_config', timeline: [{ status: 'running' }] })
    const run = await gateCommand(server, ['--list-projects', '--no-wait'])
    expect(run.code).toBe(0)
  })
})
