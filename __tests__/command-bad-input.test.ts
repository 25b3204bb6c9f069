/*
 * The command's bad input in process (contract: "Command line (amended)" and "Bad input"): every
 * flag given an empty value, a secret where a flag or a value belongs (before and after the
 * secrets are read), the result files written on every exit whose paths are known, and which flags
 * keep NEON_PROJECT_ID. The bundle's own runs of the same: e2e/command*.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { EventEmitter } from 'node:events'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { type ApiServer, startApiServer } from './support/neon/server.ts'
import { demoWorld, NEAR_NAMES, operationIn } from './support/neon/scenarios.ts'
import type { World } from './support/neon/world.ts'
import { FAILING_BRANCH, failingBranch, inTempDir, secretForms } from './support/bundles/command.js'
import { commandInProcess, type InProcessOptions } from './support/bundles/command-in-process.js'
import { ORG, PROJECT } from './support/neon/ids.js'

/** A key in mixed case, as the console shows them: a value folded in case would slip past. */
const KEY = 'napi_Mixed_CASE_Key_4b7Q9zX2pL0w'

let world: World
let server: ApiServer
beforeAll(async () => {
  world = demoWorld()
  world.addKey({ token: KEY, type: 'organization', accountId: ORG, orgIds: [ORG] })
  failingBranch(world)
  server = await startApiServer(world)
})
afterAll(() => server.close())

const command = (args: string[], options: InProcessOptions = {}) =>
  commandInProcess(server, args, { ...options, env: { NEON_API_KEY: KEY, ...options.env } })

/** The key in any form, any letter case. */
function expectNoKey(...texts: string[]): void {
  const all = texts.join('\n')
  for (const form of secretForms(KEY)) {
    expect(all).not.toContain(form)
    expect(all.toLowerCase()).not.toContain(form.toLowerCase())
  }
}

/** Every flag that takes a value. */
const VALUE_FLAGS = [
  '--project-id',
  '--operation-id',
  '--branch-id',
  '--database-url',
  '--database-url-file',
  '--api-key-file',
  '--org-id',
  '--interval',
  '--timeout',
  '--api-host',
  '--output',
  '--summary',
  '--dotenv'
]

describe('every flag given an empty value: exit 2 naming the flag, no request', () => {
  it.each(VALUE_FLAGS)('%s', async (flag) => {
    for (const argv of [[flag, ''], [`${flag}=`], [flag, ' ']]) {
      const before = server.requests.length
      const run = await command(argv)
      expect([argv, run.code]).toEqual([argv, 2])
      expect(run.stderr).toContain(
        `error: ${flag}: an empty value (an unset variable?); give one, or leave the flag out`
      )
      expect(run.stdout).toBe('')
      expect(server.requests).toHaveLength(before)
    }
  })

  it('--database-url-file "" never skips the database check: the gate that would pass is not run', async () => {
    const op = operationIn(world, 'finished')
    expect((await command(['--operation-id', op.id])).code).toBe(0)
    const run = await command(['--operation-id', op.id, '--database-url-file', ''])
    expect(run.code).toBe(2)
  })
})

describe('no message quotes a secret, whenever it is found', () => {
  /** The key where a value or a flag belongs, and where it ends up. */
  const misplaced = (dir: string) => [
    ['--output', KEY],
    ['--dotenv', join(dir, 'no-such-folder', KEY)],
    ['--summary', join(dir, 'no-such-folder', KEY)],
    [`--${KEY}`],
    [`--${KEY}=x`],
    ['--timeout', KEY],
    ['--interval', KEY],
    ['--operation-id', KEY],
    ['--operation-id', `a,${KEY}`],
    ['--project-id', KEY],
    ['--branch-id', `${KEY}\u0007`],
    ['--org-id', `${KEY}!`],
    ['--api-host', `https://${KEY}@console.neon.tech/api/v2`],
    ['--api-host', KEY]
  ]

  it.each([
    ['in NEON_API_KEY (redacted from the start)', 'env'],
    ['in --api-key-file (not known until it is read)', 'file']
  ])('the key %s: exit 2, and not in any stream or file', async (_, source) => {
    await inTempDir(async (dir) => {
      const keyFile = join(dir, 'key')
      writeFileSync(keyFile, `${KEY}\n`)
      const dotenv = join(dir, 'gate.env')
      const summary = join(dir, 'summary.md')
      const fromFile = source === 'file'
      for (const args of misplaced(dir)) {
        writeFileSync(dotenv, '')
        writeFileSync(summary, '')
        // The files first: the misplaced flag, last, is the one that counts.
        const files = ['--dotenv', dotenv, '--summary', summary]
        const run = await command(
          [...files, ...(fromFile ? ['--api-key-file', keyFile] : []), ...args],
          { env: fromFile ? { NEON_API_KEY: '' } : {} }
        )
        expect([args, run.code]).toEqual([args, 2])
        expect(run.stderr).toMatch(/^error: /m)
        expectNoKey(run.stdout, run.stderr, readFileSync(dotenv, 'utf8'))
        expectNoKey(readFileSync(summary, 'utf8'))
      }
    })
  })

  it('--operation-id is quoted as given (redacted), not lower-cased', async () => {
    const run = await command(['--operation-id', KEY])
    expect(run.stderr).toContain('error: Invalid input: --operation-id: "***" is not a UUID')
  })

  it('a bad --timeout before a key from a file is read: named, the value not repeated', async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, 'key'), KEY)
      const run = await command(['--timeout', '10 min', '--api-key-file', join(dir, 'key')], {
        env: { NEON_API_KEY: '' }
      })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(
        'error: Invalid input: --timeout: the value is not a duration; use seconds (5)'
      )
      expect(run.stderr).not.toContain('10 min')
      // Found by the property test: no key anywhere (NEON_API_KEY empty), the same.
      const noKey = await command(['--timeout', KEY], { env: { NEON_API_KEY: '' } })
      expect(noKey.stderr).toContain('--timeout: the value is not a duration')
      expectNoKey(noKey.stderr)
      // With the key in NEON_API_KEY, redacted from the start, the value is quoted.
      expect((await command(['--timeout', '10 min'])).stderr).toContain(
        '--timeout: "10 min" is not a duration'
      )
    })
  })
})

describe('--timeout -5: a value given, and negative', () => {
  it.each([
    [['--timeout', '-5'], '--timeout: "-5" is negative; a duration is at least 1 second'],
    [['--interval', '-1m'], '--interval: "-1m" is negative'],
    [['--timeout=-5s'], '--timeout: "-5s" is negative']
  ])('%j', async (args, message) => {
    const run = await command(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`error: Invalid input: ${message}`)
  })
})

describe('the result files on every exit whose paths are known, bad input included', () => {
  /** An earlier run's files: a pass, which must not stay. */
  const earlierRun = (dotenv: string, summary: string) => {
    writeFileSync(dotenv, 'GATE_OUTCOME=success\nGATE_EXIT_CODE=0\n')
    writeFileSync(summary, '<h2>Neon operations gate</h2>\n✅ success\n')
  }

  it.each([
    ['an unknown flag', ['--projct-id', 'p'], {}, 'unknown flag --projct-id'],
    ['a flag without its value', ['--branch-id'], {}, '--branch-id needs a value'],
    [
      'no key (a protected variable on an unprotected branch)',
      ['--branch-id', 'main'],
      { NEON_API_KEY: '' },
      'NEON_API_KEY is not set'
    ],
    [
      'an input error',
      ['--interval', '0.5s'],
      {},
      'Invalid input: --interval: "0.5s" is below the minimum of 1 second'
    ],
    [
      'a file that cannot be read',
      ['--database-url-file', '/no/such/file'],
      {},
      '--database-url-file: cannot read the file (ENOENT)'
    ]
  ])('%s: exit 2, GATE_EXIT_CODE and GATE_MESSAGE, the summary says why', async (...cases) => {
    const [, args, env, message] = cases
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const summary = join(dir, 'summary.md')
      earlierRun(dotenv, summary)
      const run = await command([...args, '--dotenv', dotenv, '--summary', summary], { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(`error: ${message}`)
      const text = readFileSync(dotenv, 'utf8')
      expect(text).toMatch(/^GATE_EXIT_CODE=2$/m)
      expect(text).toContain(`\nGATE_MESSAGE=${message}`)
      expect(text).not.toMatch(/^GATE_OUTCOME=/m)
      const markdown = readFileSync(summary, 'utf8')
      expect(markdown).not.toContain('✅ success')
      expect(markdown).toContain(message.replace(/"/g, '&quot;'))
    })
  })

  it('flags before the bad one, or after it: the files are found either way', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      for (const args of [
        ['--dotenv', dotenv, '--bogus'],
        ['--bogus', `--dotenv=${dotenv}`],
        ['--dotenv', dotenv, 'napi_given_alone']
      ]) {
        writeFileSync(dotenv, 'GATE_EXIT_CODE=0\n')
        expect((await command(args)).code).toBe(2)
        expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_EXIT_CODE=2$/m)
      }
      // A value that starts with a dash is the next flag, not a file.
      const run = await command(['--dotenv', '--summary', join(dir, 's.md')])
      expect(run.code).toBe(2)
      expect(existsSync(join(dir, '--summary'))).toBe(false)
      expect(readFileSync(join(dir, 's.md'), 'utf8')).toContain('--dotenv needs a value')
    })
  })

  it('one file that cannot be written: the other still says why', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await command(['--dotenv', dotenv, '--summary', join(dir, 'none', 's.md')])
      expect(run.code).toBe(2)
      const message = '--summary: it cannot be opened for writing (ENOENT)'
      expect(run.stderr).toContain(`error: ${message}`)
      expect(readFileSync(dotenv, 'utf8')).toContain(`\nGATE_MESSAGE=${message}`)
    })
  })

  it('found by the property test (seed 48): a bad flag, and a --summary that cannot be written before --dotenv: the dotenv file is still written, and no path is quoted', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, KEY)
      const summary = join(dir, 'none', KEY)
      const run = await command(['--interval', '', '--dotenv', dotenv, '--summary', summary], {
        env: { NEON_API_KEY: '' }
      })
      expect(run.code).toBe(2)
      expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_EXIT_CODE=2$/m)
      expect(run.stderr).toContain('error: --summary: it cannot be opened for writing (ENOENT)')
      expectNoKey(run.stderr, readFileSync(dotenv, 'utf8'))
    })
  })

  it('found by the property test (seed 48): a key of 20,000 characters is exit 2, never a crash, and never shown', async () => {
    const huge = `napi_${'Qz'.repeat(10_000)}`
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const run = await command(['--operation-id', huge, '--dotenv', dotenv], {
        env: { NEON_API_KEY: huge }
      })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(
        'NEON_API_KEY: is longer than 1024 characters, which no API key is: a wrong file or variable?'
      )
      const written = (run.stdout + run.stderr + readFileSync(dotenv, 'utf8')).toLowerCase()
      for (const form of secretForms(huge)) expect(written).not.toContain(form.toLowerCase())
    })
  })

  it('a signal while a secret is read: its exit code in the file', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      const signals = new EventEmitter()
      // The signal comes as the key is first asked for, and the key never comes.
      const stdin = new Readable({
        read: () => void setImmediate(() => signals.emit('SIGTERM', 'SIGTERM'))
      })
      const run = await command(['--api-key-file', '-', '--dotenv', dotenv], {
        env: { NEON_API_KEY: '' },
        stdin,
        signals
      })
      expect(run.code).toBe(143)
      expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_EXIT_CODE=143$/m)
      expect(signals.listenerCount('SIGTERM')).toBe(0)
    })
  })
})

describe('NEON_PROJECT_ID is ignored only when --list-projects is alone', () => {
  it.each([
    ['--branch-id', FAILING_BRANCH],
    ['--operation-id', undefined]
  ])(
    '--list-projects %s: the gate runs, and fails on the failed operation',
    async (flag, value) => {
      const failed = operationIn(world, 'error', {
        action: 'start_compute',
        branchId: FAILING_BRANCH
      })
      const run = await command(['--list-projects', flag, value ?? failed.id, '--output', 'json'])
      expect(run.code).toBe(1)
      expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'failure', project_count: 3 })
    }
  )
})

describe('--api-host with a query, a fragment or credentials: exit 2 naming it, before any request', () => {
  it.each(['?', '#', '?x=1', '#top'])('ending in %s', async (tail) => {
    const before = server.requests.length
    const run = await command(['--api-host', `${server.apiHost}${tail}`, '--branch-id', 'main'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      'error: Invalid input: --api-host: must not carry a query or a fragment (?, #): every request would go to the wrong path'
    )
    expect(server.requests).toHaveLength(before)
  })

  it('with credentials, even empty ones: never repeated', async () => {
    const run = await command(['--api-host', server.apiHost.replace('//', '//:@')])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: Invalid input: --api-host: must not carry credentials')
  })
})

describe('NO_COLOR, as no-color.org has it', () => {
  it('set to something: no colour; set but empty: colour, as when it is not set', async () => {
    const run = (env: Record<string, string>) =>
      command(['--interval', '0'], { terminal: true, env })
    expect((await run({ NO_COLOR: '1' })).stderr).not.toContain('\x1b[')
    expect((await run({ NO_COLOR: '' })).stderr).toContain('\x1b[31merror:\x1b[39m')
  })
})

describe('a name near the branch before a delete: exit 2 naming what was found, never gone', () => {
  it.each(NEAR_NAMES)('$name, near $branch.name', async ({ branch, name, why }) => {
    const near = demoWorld()
    near.addBranch(PROJECT, branch)
    const nearServer = await startApiServer(near)
    try {
      await inTempDir(async (dir) => {
        const dotenv = join(dir, 'gate.env')
        const args = ['--branch-id', name, '--before', 'delete', '--dotenv', dotenv]
        const run = await commandInProcess(nearServer, args)
        expect(run.code).toBe(2)
        expect(run.stderr).toContain(
          `error: --branch-id: project "${PROJECT}" has no branch named "${name}", ${why}`
        )
        expect(readFileSync(dotenv, 'utf8')).toMatch(/^GATE_EXIT_CODE=2$/m)
        expect(readFileSync(dotenv, 'utf8')).not.toMatch(/^GATE_PREFLIGHT=/m)
        expect(run.stdout + run.stderr).not.toContain('is gone')
      })
    } finally {
      await nearServer.close()
    }
  })
})

describe('a branch the API shows wrong (review L1): exit 2, and the outputs say which gate ran', () => {
  it('the JSON holds gate and elapsed_ms; the dotenv file GATE_GATE, as docs/cli.md says', async () => {
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      for (const [args, gate] of [
        [['--branch-id', 'nosuch'], 'branch'],
        // Before a teardown, a branch not found is `gone`; one that only nearly matches is exit 2.
        [['--branch-id', 'MAIN', '--before', 'delete'], 'teardown']
      ] as const) {
        const run = await command([...args, '--output', 'json', '--dotenv', dotenv])
        expect(run.code).toBe(2)
        const json = JSON.parse(run.stdout) as Record<string, unknown>
        expect(Object.keys(json).sort()).toEqual(['elapsed_ms', 'gate'])
        expect(json.gate).toBe(gate)
        expect(readFileSync(dotenv, 'utf8')).toMatch(new RegExp(`^GATE_GATE=${gate}$`, 'm'))
      }
    })
  })
})
