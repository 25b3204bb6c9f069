/*
 * The command's files and streams where only a process shows them (contract: "Command line",
 * amended turn 9): a job killed mid-wait (SIGKILL) leaves no stale `GATE_OUTCOME=success`, and a
 * standard output on a full disk is exit 2 with the dotenv file saying so; and, over both bundles,
 * a read without waiting gives up on an API that does not answer after 3 intervals, not after
 * the whole timeout. The rest runs in process: command-files-streams.test.ts, and
 * simulated/read-once.test.ts for the timing.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runAction, serve, serveRunning, terminateOn } from '../support/bundles/action.js'
import { gateCommand, inTempDir } from '../support/bundles/command.js'
import { COMMAND_BUNDLE, nodeWith, runCommandBundle } from '../support/bundles/run-bundle.ts'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('the command killed mid-wait', () => {
  it('SIGKILL at the first request: neither file still claims the earlier run’s success', async () => {
    const { server, op } = await serveRunning()
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const summary = join(dir, 'summary.md')
      writeFileSync(dotenv, 'GATE_OUTCOME=success\nGATE_EXIT_CODE=0\n')
      writeFileSync(summary, '<h2>Neon operations gate</h2>\n\n✅ success\n')
      const { onStart } = terminateOn((listener) => (server.onRequest = listener), 'SIGKILL')
      const args = ['--operation-id', op.id, '--dotenv', dotenv, '--summary', summary]
      const run = await gateCommand(server, args, { onStart })
      expect(run.signal).toBe('SIGKILL')
      const env = readFileSync(dotenv, 'utf8')
      expect(env).toMatch(/^GATE_OUTCOME=running$/m)
      expect(env).not.toMatch(/success|GATE_EXIT_CODE/)
      expect(readFileSync(summary, 'utf8')).not.toContain('success')
    })
  })
})

describe('--dotenv or --summary given twice (review M1)', () => {
  it('exit 2 naming the flag, and every path named says so: none keeps an earlier success', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    await inTempDir(async (dir) => {
      const [old, fresh] = [join(dir, 'old.env'), join(dir, 'new.env')]
      const [oldMd, freshMd] = [join(dir, 'old.md'), join(dir, 'new.md')]
      for (const [flag, args] of [
        ['--dotenv', ['--dotenv', old, '--dotenv', fresh]],
        ['--dotenv', ['--dotenv', old, `--dotenv=${fresh}`, '--summary', oldMd]],
        ['--summary', ['--summary', oldMd, '--summary', freshMd, '--dotenv', old]]
      ] as const) {
        for (const path of [old, fresh])
          writeFileSync(path, 'GATE_OUTCOME=success\nGATE_EXIT_CODE=0\n')
        for (const path of [oldMd, freshMd]) writeFileSync(path, '✅ success\n')
        const before = server.requests.length
        const run = await gateCommand(server, ['--operation-id', op.id, ...args])
        expect(run.code).toBe(2)
        expect(run.stderr).toContain(`error: ${flag} is given twice`)
        expect(server.requests).toHaveLength(before)
        for (const path of [old, fresh, oldMd, freshMd].filter(
          (p) => args.includes(p) || args.includes(`--dotenv=${p}`)
        )) {
          const text = readFileSync(path, 'utf8')
          expect([path, text]).not.toEqual([path, expect.stringContaining('success')])
          expect(text).toContain(`${flag} is given twice`)
        }
      }
      // An empty second value is an error too, and the first path still says so.
      writeFileSync(old, 'GATE_OUTCOME=success\nGATE_EXIT_CODE=0\n')
      const run = await gateCommand(server, ['--operation-id', op.id, '--dotenv', old, '--dotenv='])
      expect(run.code).toBe(2)
      expect(readFileSync(old, 'utf8')).toMatch(/^GATE_EXIT_CODE=2$/m)
    })
  })
})

describe('the command with a standard output on a full disk', () => {
  it('> /dev/full: an error on standard error, exit 2, and the dotenv file says 2', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const command = [
        ...nodeWith(COMMAND_BUNDLE, {}),
        ...['--api-host', server.apiHost, '--operation-id', op.id, '--dotenv', dotenv]
      ].join(' ')
      for (const output of ['text', 'json']) {
        const run = await runCommandBundle(
          [],
          { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT },
          { program: ['sh', '-c', `${command} --output ${output} > /dev/full`] }
        )
        expect([output, run.code]).toEqual([output, 2])
        expect(run.stderr).toContain('error: Could not write standard output (ENOSPC)')
        expect(run.stderr).not.toContain('Unhandled')
        const env = readFileSync(dotenv, 'utf8')
        expect(env).toMatch(/^GATE_OUTCOME=success$/m)
        expect(env).toMatch(/^GATE_EXIT_CODE=2$/m)
      }
    })
  })
})

describe('a read without waiting, against an API that answers only 503', () => {
  it('the command, --no-wait: exit 3 after 3 intervals (3 s), not after --timeout (60 s)', async () => {
    const { server, op } = await serveRunning({ kind: 'status', status: 503 })
    const args = ['--operation-id', op.id, '--no-wait', '--timeout', '60s']
    const run = await gateCommand(server, args, { killAfterMs: 30_000 })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain('no usable answer within 3.0 s (3 intervals)')
    expect(run.durationMs).toBeLessThan(20_000)
  })

  it('the action, wait: false: the same error, not a timeout', async () => {
    const { server, op } = await serveRunning({ kind: 'status', status: 503 })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, wait: 'false', timeout: '60s' },
      { killAfterMs: 30_000 }
    )
    expect(run.code).toBe(1)
    expect(run.outputs.outcome ?? '').toBe('')
    expect(run.stdout).toContain('no usable answer within 3.0 s (3 intervals)')
    expect(run.durationMs).toBeLessThan(20_000)
  })
})
