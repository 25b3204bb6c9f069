/**
 * The Jest runtime that counts V8 coverage once per worker (script/build/coverage-runtime.mjs),
 * run by Jest itself, in one worker, over three test files in turn: each file's coverage holds what
 * that file ran, and only that; an end-to-end file holds none, and what it ran is not counted as the
 * next file's. A nested Jest run in a temp folder, since only Jest shows how it calls a runtime.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const RUNTIME = join(root, 'script', 'build', 'coverage-runtime.mjs')
const JEST = join(root, 'node_modules', 'jest', 'bin', 'jest.js')

/** What one test file's coverage says of src/choose.cjs: each copy of it, with its counts. */
interface FileCoverage {
  file: string
  copies: { calls: number; yes: number; no: number }[]
}

let dir: string
let files: FileCoverage[]
let run: ReturnType<typeof spawnSync>

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'coverage-runtime-'))
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  write(
    'src/choose.cjs',
    "exports.choose = function choose(yes) {\n  if (yes) return 'yes'\n  return 'no'\n}\n"
  )
  // Each file also says which process ran it.
  const test = (calls: string) =>
    `const { choose } = require('${join(dir, 'src', 'choose.cjs')}')\n` +
    `require('node:fs').appendFileSync('${join(dir, 'processes')}', ` +
    `require('node:path').basename(process.argv[1]) + ' ' + process.pid + '\\n')\n` +
    `test('calls', () => {\n${calls}})\n`
  write('__tests__/a.test.cjs', test('  choose(true)\n  choose(true)\n'))
  write('__tests__/e2e/b.test.cjs', test('  for (let i = 0; i < 5; i++) choose(false)\n'))
  write('__tests__/c.test.cjs', test('  choose(false)\n'))
  // Each file's coverage of choose.cjs: each function's count, and the count of the two returns.
  write(
    'reporter.cjs',
    `const { appendFileSync } = require('node:fs')
const { basename } = require('node:path')
module.exports = class {
  onTestResult(test, result) {
    const copies = (result.v8Coverage ?? [])
      .filter((entry) => entry.result.url.endsWith('choose.cjs'))
      .map((entry) => {
        const source = entry.codeTransformResult.code
        const choose = entry.result.functions.find((fn) => fn.functionName === 'choose')
        const at = (text) => {
          const offset = source.indexOf(text)
          const inner = choose.ranges.filter((r) => r.startOffset <= offset && offset < r.endOffset)
          return inner[inner.length - 1].count
        }
        return { calls: choose.ranges[0].count, yes: at("return 'yes'"), no: at("return 'no'") }
      })
    appendFileSync(${JSON.stringify(join(dir, 'coverage.jsonl'))}, JSON.stringify({ file: basename(test.path), copies }) + '\\n')
  }
}
`
  )
  write(
    'sequencer.cjs',
    `const Sequencer = require(${JSON.stringify(require.resolve('@jest/test-sequencer'))}).default
const { basename } = require('node:path')
module.exports = class extends Sequencer {
  sort(tests) { return [...tests].sort((a, b) => basename(a.path).localeCompare(basename(b.path))) }
}
`
  )
  write(
    'jest.config.cjs',
    `module.exports = ${JSON.stringify({
      rootDir: dir,
      testMatch: ['**/*.test.cjs'],
      transform: {},
      cache: false,
      collectCoverage: true,
      coverageProvider: 'v8',
      coverageReporters: ['none'],
      runtime: RUNTIME,
      testSequencer: join(dir, 'sequencer.cjs'),
      reporters: ['default', join(dir, 'reporter.cjs')]
    })}\n`
  )
  // One worker (a memory limit makes Jest run even one file in a worker, as the suite's are).
  const jestArgs = [
    '--config',
    join(dir, 'jest.config.cjs'),
    '-w',
    '1',
    '--workerIdleMemoryLimit=2GB'
  ]
  run = spawnSync(process.execPath, [JEST, ...jestArgs], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: dir }
  })
  files = readFileSync(join(dir, 'coverage.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as FileCoverage)
}, 60_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const createRequire = (await import('node:module')).createRequire
const require = createRequire(import.meta.url)

describe('the coverage runtime, under Jest', () => {
  it('runs the files in turn, in one worker, and they pass', () => {
    const processes = readFileSync(join(dir, 'processes'), 'utf8').trim().split('\n')
    expect(processes).toHaveLength(3)
    expect(new Set(processes).size).toBe(1)
    expect(processes[0]).toMatch(/^processChild\.js \d+$/)
    expect([run.status, String(run.stderr)]).toEqual([
      0,
      expect.stringMatching(/Tests: +3 passed, 3 total/)
    ])
    expect(files.map((file) => file.file)).toEqual(['a.test.cjs', 'b.test.cjs', 'c.test.cjs'])
  })

  it("gives each file the counts of its own copy of the module, not an earlier file's", () => {
    expect(files[0].copies).toEqual([{ calls: 2, yes: 2, no: 0 }])
    expect(files[2].copies).toEqual([{ calls: 1, yes: 0, no: 1 }])
  })

  it('counts nothing for an end-to-end file, and not what it ran as the next file', () => {
    expect(files[1].copies).toEqual([])
    expect(files[2].copies.map((copy) => copy.no)).toEqual([1])
  })
})
