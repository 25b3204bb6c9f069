/*
 * The command against a hostile server, a careless user and a CI system, where only a process shows
 * it (an outside review of #44 found each of these): a key with white space around it in the
 * environment, a standard output that cannot be written, a secret's pipe that nobody writes to or
 * that writes late, and signals before the first answer and during the database probe. The rest of
 * the review's cases run in process: command-run.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { COMMAND_BUNDLE, nodeWith, runCommandBundle } from '../support/bundles/run-bundle.ts'
import { serve, terminateOn } from '../support/bundles/action.js'
import { gateCommand, inTempDir, secretForms } from '../support/bundles/command.js'
import { KEYS, ORG, PROJECT } from '../support/neon/ids.js'
import { silentServer } from '../support/postgres/databases.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('the command, hostile: secrets', () => {
  // The other forms, and the files, are in command-run.test.ts: here, the variable as a process gets it.
  it.each([['a trailing new line', 'napi_review_secret_key_0001\n']])(
    'NEON_API_KEY with %s: a server that echoes the key cannot put it on any stream or file',
    async (_, raw) => {
      const key = raw.trim()
      const { world, server } = await serve()
      world.addKey({ token: key, type: 'organization', accountId: ORG, orgIds: [ORG] })
      // An operation in error whose text echoes the key the request carried.
      const op = operationIn(world, 'error')
      server.onRequest = (record) => {
        op.error = `the key was ${String(record.headers.authorization).replace(/^Bearer /, '')}`
      }
      await inTempDir(async (dir) => {
        const dotenv = join(dir, 'gate.env')
        const summary = join(dir, 'summary.md')
        const run = await gateCommand(
          server,
          ['--operation-id', op.id, '--dotenv', dotenv, '--summary', summary],
          { env: { NEON_API_KEY: raw } }
        )
        expect(run.code).toBe(1)
        const files = readFileSync(dotenv, 'utf8') + readFileSync(summary, 'utf8')
        for (const form of secretForms(key)) {
          expect(run.stdout + run.stderr + files).not.toContain(form)
        }
      })
    }
  )
})

describe('the command, hostile: streams and exit codes', () => {
  const shell = (command: string, env: Record<string, string>, program = 'sh') =>
    runCommandBundle([], env, { program: [program, '-c', command] })
  const commandLine = (apiHost: string) =>
    [...nodeWith(COMMAND_BUNDLE, {}), '--api-host', apiHost, '--interval', '1s'].join(' ')

  it('a standard output that cannot be written (disk full): no stack trace, exit 2, the dotenv file still written', async () => {
    const { server } = await serve()
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await shell(
        `${commandLine(server.apiHost)} --no-wait --dotenv ${dotenv} > /dev/full`,
        { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT }
      )
      expect(run.stderr).not.toContain('Unhandled')
      // Not 1 ("an operation failed"), never 0 with the result lost: 2 (command-files.test.ts).
      expect(run.code).toBe(2)
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
      expect(run.stderr).toContain('--api-key-file: nothing came from it within')
    })
  })

  it('--api-key-file <(…): a pipe whose writer is slow is read as its bytes come', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    // bash's process substitution: /dev/fd/N, a pipe whose writer sleeps before it writes the key.
    const run = await shell(
      `exec ${commandLine(server.apiHost)} --operation-id ${op.id} --api-key-file <(sleep 0.5; printf '%s\\n' "$KEY")`,
      { KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT },
      'bash'
    )
    expect([run.code, run.stderr]).toEqual([0, expect.stringContaining('outcome: success')])
  })

  it('--api-key-file <(…) whose writer ends without a byte: empty at once, never a wait for --timeout', async () => {
    const { server } = await serve()
    // Unlike a pipe made with mkfifo, whose writer may come later, this one's writer has come and gone.
    const run = await shell(
      `exec ${commandLine(server.apiHost)} --timeout 10m --api-key-file <(true)`,
      { NEON_PROJECT_ID: PROJECT },
      'bash'
    )
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--api-key-file: the file is empty')
  })

  it('SIGINT before the first answer: exit 130, outcome cancelled', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'slow', delayMs: 10_000 })
    const { onStart } = terminateOn((listener) => (server.onRequest = listener), 'SIGINT')
    const run = await gateCommand(server, ['--output', 'json'], { onStart })
    expect(run.code).toBe(130)
  })

  describe('a database that accepts connections and never answers', () => {
    /** A database URL whose server accepts connections and never says a word. */
    const silent = async () => {
      const { port } = await silentServer()
      return `postgresql://u:silent-pw-123@127.0.0.1:${port}/db?sslmode=disable`
    }

    it('timeout during the database probe: elapsed_ms and "timeout after …" count the probe', async () => {
      const { world, server } = await serve({ history: 0 })
      operationIn(world, 'finished', { action: 'start_compute' })
      const database = await silent()
      await inTempDir(async (dir) => {
        const summary = join(dir, 'summary.md')
        const run = await gateCommand(server, [
          '--database-url',
          database,
          '--timeout',
          '2s',
          '--output',
          'json',
          '--summary',
          summary
        ])
        expect(run.code).toBe(124)
        const result = JSON.parse(run.stdout) as { elapsed_ms: number; database_state: string }
        expect(result.database_state).toBe('unreachable')
        // The deadline counts from the command's start, and so does elapsed_ms.
        expect(result.elapsed_ms).toBeGreaterThanOrEqual(2000)
        expect(readFileSync(summary, 'utf8')).toMatch(/<b>⌛ timeout<\/b> after [2-9]\.\d s/)
        expect(run.stderr).toContain('control plane done; the database check comes next')
        expect(run.stderr).not.toContain('outcome: success')
      })
    })

    it('SIGTERM during the database probe: exit 143, promptly', async () => {
      const { server } = await serve()
      // Sent when the probe connects (an event, not a moment): the signal lands during the probe
      // however slowly a loaded machine starts the command.
      let connect: () => void = () => undefined
      const { port } = await silentServer(() => connect())
      const database = `postgresql://u:silent-pw-123@127.0.0.1:${port}/db?sslmode=disable`
      const { onStart, sentAt } = terminateOn((listener) => (connect = listener))
      const run = await gateCommand(server, ['--database-url', database, '--timeout', '1m'], {
        onStart
      })
      expect(sentAt()).toBeGreaterThan(0)
      expect(run.code).toBe(143)
      // A generous ceiling: the probe's 1 m timeout is far beyond it.
      expect(Date.now() - sentAt()).toBeLessThan(3500)
      expect(run.stdout + run.stderr).not.toContain('silent-pw-123')
    })
  })
})
