/**
 * The tests by tier (jest.config.js `projects`, docs/development.md "Tiers"): each test file in
 * exactly one tier, by its folder; mutation testing's selection built on them; the tier reporter's
 * lines, where a failure of tooling alone reads apart; the global teardown checking the coverage
 * floors only after a run of every tier; and a recipe test whose tool is missing, which fails under
 * CI=true. Nested Jest runs, since only Jest shows what its config selects.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { execFile } from 'node:child_process'
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, relative } from 'node:path'
import { promisify } from 'node:util'

const root = join(import.meta.dirname, '..', '..')
const JEST = join(root, 'node_modules', 'jest', 'bin', 'jest.js')
const TIERS = ['unit', 'simulated', 'e2e', 'tooling'] as const

/** The environment of a nested Jest run: ES modules on, nothing of this run's servers. */
const jestEnv = (env: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  TMPDIR: process.env.TMPDIR ?? '/tmp',
  NODE_OPTIONS: '--experimental-vm-modules --disable-warning=ExperimentalWarning',
  ...env
})

interface JestRun {
  code: number
  stdout: string
  stderr: string
}

async function jestRun(args: string[], env?: Record<string, string>): Promise<JestRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [JEST, ...args], {
      cwd: root,
      env: jestEnv(env),
      maxBuffer: 16 * 1024 * 1024
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** The test files a config selects (`--listTests`), from the root, sorted. */
const listed = async (args: string[]) =>
  (await jestRun(['--listTests', ...args])).stdout
    .split('\n')
    .filter((line) => line.endsWith('.test.ts'))
    .map((path) => relative(root, path))
    .sort()

const testFiles = readdirSync(join(root, '__tests__'), { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts'))
  .map((path) => join('__tests__', path))
  .sort()

/** A test file's tier by its folder: __tests__/<tier>/, or unit anywhere else in __tests__/. */
const folderTier = (path: string) =>
  TIERS.find((tier) => path.startsWith(join('__tests__', tier, ''))) ?? 'unit'

describe('the tiers', () => {
  let tiers: Record<string, string[]>
  let mutation: string[]
  beforeAll(async () => {
    const lists = await Promise.all(TIERS.map((tier) => listed(['--selectProjects', tier])))
    tiers = Object.fromEntries(TIERS.map((tier, index) => [tier, lists[index]]))
    mutation = await listed(['--config', 'jest.mutation.config.js'])
  }, 60_000)

  it.each(TIERS)('%s holds the test files of its folder, and only those', (tier) => {
    expect(tiers[tier]).toEqual(testFiles.filter((path) => folderTier(path) === tier))
    expect(tiers[tier].length).toBeGreaterThan(0)
  })

  it("each tier has its npm script (npm test's, no coverage: the floors need every tier) and its row in docs/development.md", () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    const development = readFileSync(join(root, 'docs', 'development.md'), 'utf8')
    for (const tier of TIERS) {
      const command = `${scripts.test} --selectProjects ${tier} --coverage=false`
      expect([tier, scripts[`test:${tier}`].startsWith(command)]).toEqual([tier, true])
      expect([tier, development.includes(`\n| \`${tier}\` `)]).toEqual([tier, true])
    }
  })

  it('every test file of __tests__/ is in exactly one tier', () => {
    expect(Object.values(tiers).flat().sort()).toEqual(testFiles)
  })

  it("mutation testing runs the unit and simulated tiers' files but those that need PostgreSQL", () => {
    const postgres = [
      '__tests__/command-properties.test.ts',
      '__tests__/database-probe.test.ts',
      '__tests__/simulated/contract.test.ts'
    ]
    expect(postgres.every((path) => testFiles.includes(path))).toBe(true)
    expect(mutation).toEqual(
      [...tiers.unit, ...tiers.simulated].filter((path) => !postgres.includes(path)).sort()
    )
  })
})

interface Reporter {
  onRunComplete(contexts: Set<unknown>, results: { testResults: object[] }): void
}
const reporterModule = (await import(join(root, 'script', 'build', 'tier-reporter.mjs'))) as {
  default: new (globalConfig: object, options: object) => Reporter
  TIERS_RAN: symbol
}
const teardownModule = (await import(join(root, '__tests__', 'global-teardown.mjs'))) as {
  partialRun: (globalConfig: object, ran?: string[]) => string | undefined
}

/** A test file's result as Jest hands it to reporters, as far as the tier reporter reads it. */
const result = (tier: string, file: string, failing = 0) => ({
  displayName: { name: tier, color: 'white' },
  testFilePath: join(root, file),
  numPassingTests: 2,
  numFailingTests: failing,
  numPendingTests: 1
})
const contexts = (...names: string[]) =>
  new Set(names.map((name) => ({ config: { displayName: { name } } })))

/** What the tier reporter writes at the end of a run of `names` with `results`. */
function reported(names: string[], results: object[]): string {
  const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true)
  try {
    const reporter = new reporterModule.default(
      { rootDir: root },
      { order: [...TIERS], apart: { tooling: 'the docs and the tools' } }
    )
    reporter.onRunComplete(contexts(...names), { testResults: results })
    return write.mock.calls.map(([text]) => String(text)).join('')
  } finally {
    write.mockRestore()
  }
}

describe('the tier reporter', () => {
  const passing = [
    result('unit', '__tests__/pace.test.ts'),
    result('unit', '__tests__/clock.test.ts'),
    result('e2e', '__tests__/e2e/gate.test.ts')
  ]

  it('gives a line a tier that ran a file, in their order: its files and tests, passed', () => {
    expect(reported(['e2e', 'simulated', 'unit'], passing)).toBe(
      [
        'By tier (docs/development.md, "Tiers"):',
        '  unit  2 files, 6 tests: passed',
        '  e2e   1 file, 3 tests: passed',
        ''
      ].join('\n')
    )
  })

  it('a failure of tooling alone reads apart: the product tiers that ran passed', () => {
    const text = reported(
      ['unit', 'e2e', 'tooling'],
      [...passing, result('tooling', '__tests__/tooling/docs.test.ts', 1)]
    )
    expect(text).toContain(
      '  tooling  1 file, 4 tests: 1 file failed: __tests__/tooling/docs.test.ts'
    )
    expect(text).toContain(
      "Only tooling (the docs and the tools) failed: the product's tiers passed (unit, e2e).\n"
    )
    expect(
      reported(['tooling'], [result('tooling', '__tests__/tooling/docs.test.ts', 1)])
    ).toContain('Only tooling (the docs and the tools) failed.\n')
  })

  it('a failure of the product is no failure apart, whatever else failed', () => {
    const text = reported(
      ['unit', 'tooling'],
      [
        result('unit', '__tests__/pace.test.ts', 2),
        { ...result('unit', '__tests__/clock.test.ts'), testExecError: { message: 'no load' } },
        result('tooling', '__tests__/tooling/docs.test.ts', 1)
      ]
    )
    expect(text).toContain(
      '  unit     2 files, 8 tests: 2 files failed: __tests__/pace.test.ts, __tests__/clock.test.ts'
    )
    expect(text).not.toContain('Only')
  })

  it('leaves the tiers selected for the global teardown', () => {
    reported(['unit', 'simulated'], passing)
    expect((globalThis as Record<symbol, unknown>)[reporterModule.TIERS_RAN]).toEqual([
      'unit',
      'simulated'
    ])
  })
})

describe('the coverage floors, checked after a run of every tier only', () => {
  const whole = {
    nonFlagArgs: [],
    testPathPatterns: { isSet: () => false },
    onlyChanged: false,
    onlyFailures: false,
    findRelatedTests: false
  }
  const { partialRun } = teardownModule

  it('a run of every tier, every file: checked', () => {
    expect(partialRun(whole, [...TIERS])).toBeUndefined()
  })

  it('npm run test:unit, or any tiers less than all: not checked, and the note says why', () => {
    expect(partialRun(whole, ['unit'])).toBe('not every tier ran (not simulated, e2e, tooling)')
    expect(partialRun(whole, ['unit', 'simulated', 'e2e'])).toBe('not every tier ran (not tooling)')
    expect(partialRun(whole, undefined)).toBe(
      'not every tier ran (not unit, simulated, e2e, tooling)'
    )
  })

  it.each([
    ['a file named', { nonFlagArgs: ['pace'] }],
    ['--testPathPatterns', { testPathPatterns: { isSet: () => true } }],
    ['-t', { testNamePattern: 'pace' }],
    ['--onlyChanged', { onlyChanged: true }],
    ['--onlyFailures', { onlyFailures: true }],
    ['--findRelatedTests', { findRelatedTests: true }],
    ['--shard', { shard: { shardIndex: 1, shardCount: 2 } }]
  ])('%s: not checked', (_, picked) => {
    expect(partialRun({ ...whole, ...picked }, [...TIERS])).toBe('only some tests ran')
  })
})

/** This PATH without its folders that hold `program`. */
const pathWithout = (program: string) =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => {
      try {
        accessSync(join(dir, program), constants.X_OK)
        return false
      } catch {
        return true
      }
    })
    .join(delimiter)

describe('a recipe test whose tool is missing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tiers-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  /** The Terraform recipe's `fmt -check` test, run with no terraform on the PATH: its status. */
  const recipe = async (name: string, env: Record<string, string>) => {
    const outputFile = join(dir, `${name}.json`)
    const run = await jestRun(
      [
        '--selectProjects',
        'e2e',
        '--coverage=false',
        '--json',
        `--outputFile=${outputFile}`,
        '-t',
        'terraform fmt -check',
        '__tests__/e2e/recipe-terraform.test.ts'
      ],
      { PATH: pathWithout('terraform'), ...env }
    )
    const { testResults } = JSON.parse(readFileSync(outputFile, 'utf8')) as {
      testResults: { assertionResults: { title: string; status: string }[] }[]
    }
    const statuses = testResults[0].assertionResults
      .filter((test) => test.title.startsWith('terraform fmt'))
      .map((test) => test.status)
    return { ...run, statuses }
  }
  let runs: (JestRun & { statuses: string[] })[]
  beforeAll(async () => {
    runs = await Promise.all([recipe('ci', { CI: 'true' }), recipe('local', {})])
  }, 60_000)

  it('fails under CI=true, saying what is missing', () => {
    const [ci] = runs
    expect([ci.code, ci.statuses]).toEqual([1, ['failed']])
    expect(ci.stderr).toContain(
      'terraform is not on the PATH, and under CI=true this test must run'
    )
  })

  it('is skipped elsewhere, with a note that says so', () => {
    const [, local] = runs
    expect([local.code, local.statuses]).toEqual([0, ['pending']])
    expect(local.stdout + local.stderr).toContain(
      'terraform is not on the PATH: its tests are skipped here (under CI=true they fail)'
    )
  })
})
