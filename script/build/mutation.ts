/*
 * npm run mutation: Stryker, incremental against the committed baseline, then the floor.
 *
 * 1. `stryker run` with the arguments given (`--force` re-tests every mutant; `--mutate <file>`
 *    one module). stryker.config.mjs sets `incremental`: Stryker reads stryker.incremental.json,
 *    the results of the last run, re-tests only the mutants whose code or covering tests changed
 *    since, and writes the file again with the new results.
 * 2. The baseline is rewritten in its committed form (normalizeBaseline): Stryker's own file holds
 *    the absolute path of the checkout, its whole configuration, failure messages with the paths of
 *    its sandbox, and test ids in the order the tests happened to finish; a mutant it carries over
 *    from an earlier run (one outside `--mutate`) loses its static flag and gets its killing tests
 *    in its covering ones. None of that is read back; it would only make every run change the
 *    file. What is left is what the next run reads: each file's source and mutants, each test
 *    file's source and tests, with ids renumbered in a stable order, so a run that changed nothing
 *    leaves the file as it was.
 * 3. script/build/mutation-floor.ts checks the report: each module's floor, and no survivor that is
 *    not accepted.
 *
 *   node script/build/mutation.ts [stryker run arguments]    (through npm run, for Node 24)
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')
export const BASELINE_FILE = 'stryker.incremental.json'

interface Position {
  line: number
  column: number
}

interface BaselineMutant {
  id: string
  mutatorName: string
  replacement?: string
  location: { start: Position; end: Position }
  status: string
  static?: boolean
  coveredBy?: string[]
  killedBy?: string[]
}

interface BaselineTest {
  id: string
  name: string
  location?: { start: Position; end?: Position }
}

export interface Baseline {
  schemaVersion: string
  thresholds?: unknown
  framework?: unknown
  files: Record<string, { language: string; source: string; mutants: BaselineMutant[] }>
  testFiles?: Record<string, { source?: string; tests: BaselineTest[] }>
}

const byPosition = (a?: Position, b?: Position) =>
  (a?.line ?? 0) - (b?.line ?? 0) || (a?.column ?? 0) - (b?.column ?? 0)
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * What the next incremental run reads, in a stable order: files and test files by name, mutants
 * and tests by place, ids renumbered in that order (the tests' in coveredBy and killedBy too), a
 * mutant's killing tests among its covering ones.
 */
export function normalizeBaseline(report: Baseline): Baseline {
  const testFiles = Object.entries(report.testFiles ?? {})
    .sort(([a], [b]) => byName(a, b))
    .map(([name, file]) => ({
      name,
      source: file.source,
      tests: [...file.tests].sort(
        (a, b) => byPosition(a.location?.start, b.location?.start) || byName(a.name, b.name)
      )
    }))
  const testIds = new Map(
    testFiles.flatMap(({ tests }) => tests).map((test, index) => [test.id, String(index)])
  )
  // No list and an empty one read the same; a reused result has the one, a re-tested the other.
  const renumber = (ids?: string[]) => {
    const renumbered = (ids ?? [])
      .flatMap((id) => testIds.get(id) ?? [])
      .sort((a, b) => Number(a) - Number(b))
    return renumbered.length > 0 ? renumbered : undefined
  }
  let mutantId = 0
  return {
    schemaVersion: report.schemaVersion,
    thresholds: report.thresholds,
    framework: report.framework,
    files: Object.fromEntries(
      Object.entries(report.files)
        .sort(([a], [b]) => byName(a, b))
        .map(([name, { language, source, mutants }]) => [
          name,
          {
            language,
            source,
            mutants: [...mutants]
              .sort(
                (a, b) =>
                  byPosition(a.location.start, b.location.start) ||
                  byPosition(a.location.end, b.location.end) ||
                  byName(a.mutatorName, b.mutatorName) ||
                  byName(a.replacement ?? '', b.replacement ?? '')
              )
              .map((mutant) => ({
                id: String(mutantId++),
                mutatorName: mutant.mutatorName,
                replacement: mutant.replacement,
                location: mutant.location,
                status: mutant.status,
                // The killing tests covered it too (Stryker adds them when it carries a mutant
                // over); whether it was static is not read back.
                coveredBy: renumber([
                  ...new Set([...(mutant.coveredBy ?? []), ...(mutant.killedBy ?? [])])
                ]),
                killedBy: renumber(mutant.killedBy)
              }))
          }
        ])
    ),
    testFiles: Object.fromEntries(
      testFiles.map(({ name, source, tests }) => [
        name,
        {
          source,
          tests: tests.map((test) => ({
            id: testIds.get(test.id) ?? test.id,
            name: test.name,
            location: test.location
          }))
        }
      ])
    )
  }
}

/** JSON with one mutant or test a line, so that a change to the baseline reads as one. */
export function serializeBaseline(baseline: Baseline): string {
  const write = (value: unknown, depth: number): string => {
    if (depth === 4 || value === null || typeof value !== 'object') return JSON.stringify(value)
    const indent = '  '.repeat(depth + 1)
    const close = '  '.repeat(depth)
    const items = Array.isArray(value)
      ? value.map((item) => write(item, depth + 1))
      : Object.entries(value)
          .filter(([, item]) => item !== undefined)
          .map(([key, item]) => `${JSON.stringify(key)}: ${write(item, depth + 1)}`)
    if (items.length === 0) return Array.isArray(value) ? '[]' : '{}'
    const [open, end] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
    return `${open}\n${indent}${items.join(`,\n${indent}`)}\n${close}${end}`
  }
  return `${write(baseline, 0)}\n`
}

function main(): void {
  const report = join(ROOT, 'reports', 'mutation', 'mutation.json')
  // A report left by an earlier run must not be checked as this run's.
  rmSync(report, { force: true })
  const stryker = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'),
      'run',
      ...process.argv.slice(2)
    ],
    { cwd: ROOT, stdio: 'inherit' }
  )
  const baseline = join(ROOT, BASELINE_FILE)
  if (existsSync(baseline)) {
    const normalized = normalizeBaseline(JSON.parse(readFileSync(baseline, 'utf8')) as Baseline)
    writeFileSync(baseline, serializeBaseline(normalized))
  }
  const floor = spawnSync(
    process.execPath,
    [join(ROOT, 'script', 'build', 'mutation-floor.ts'), report],
    { cwd: ROOT, stdio: 'inherit' }
  )
  process.exitCode = stryker.status === 0 && floor.status === 0 ? 0 : 1
}

if (import.meta.main) main()
