/*
 * The floor of mutation testing, per module: after `stryker run` (npm run mutation), reads its JSON
 * report and fails when any mutated module scores below FLOOR_PERCENT. Stryker's own
 * `thresholds.break` holds the total only; a weak module can hide behind strong ones there.
 *
 * The score is Stryker's mutation score, counted the same way: (killed + timeout) / (killed +
 * timeout + survived + no coverage), in percent. A timeout counts as detected (the mutant made a
 * test hang); mutants that are ignored, or that did not compile or crashed the test runner, are not
 * counted at all. Every module that stryker.config.mjs mutates must be in the report and have
 * mutants to count: a module that drops out of the report fails too.
 *
 *   node script/build/mutation-floor.ts [report.json]    (default reports/mutation/mutation.json)
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = join(import.meta.dirname, '..', '..')
export const FLOOR_PERCENT = 90

type Status =
  | 'Killed'
  | 'Timeout'
  | 'Survived'
  | 'NoCoverage'
  | 'Ignored'
  | 'CompileError'
  | 'RuntimeError'
  | 'Pending'

interface Report {
  files: Record<string, { mutants: { status: Status }[] }>
}

export interface ModuleScore {
  path: string
  killed: number
  timeout: number
  survived: number
  noCoverage: number
  /** Percent, or undefined when no mutant of the module can be counted. */
  score?: number
}

export function scoreOf(path: string, statuses: Status[]): ModuleScore {
  const count = (status: Status) => statuses.filter((candidate) => candidate === status).length
  const [killed, timeout] = [count('Killed'), count('Timeout')]
  const [survived, noCoverage] = [count('Survived'), count('NoCoverage')]
  const valid = killed + timeout + survived + noCoverage
  const score = valid === 0 ? undefined : ((killed + timeout) / valid) * 100
  return { path, killed, timeout, survived, noCoverage, score }
}

function describe(module: ModuleScore): string {
  const score = module.score === undefined ? 'no mutant counted' : `${module.score.toFixed(2)} %`
  return `${module.path}: ${score} (killed ${module.killed}, timeout ${module.timeout}, survived ${module.survived}, no coverage ${module.noCoverage})`
}

/** One line per module, and the modules under the floor (or missing), each in one line. */
export function checkFloor(
  report: Report,
  mutated: string[]
): { lines: string[]; problems: string[] } {
  const modules = mutated.map((path) =>
    scoreOf(path, report.files[path]?.mutants.map((mutant) => mutant.status) ?? [])
  )
  const problems = modules.flatMap((module) => {
    if (!(module.path in report.files)) return [`${module.path}: not in the report`]
    if (module.score === undefined || module.score < FLOOR_PERCENT) {
      return [`${describe(module)} is below the floor of ${FLOOR_PERCENT} %`]
    }
    return []
  })
  return { lines: modules.map(describe), problems }
}

async function main(): Promise<void> {
  const reportPath = resolve(process.argv[2] ?? join(ROOT, 'reports', 'mutation', 'mutation.json'))
  if (!existsSync(reportPath)) {
    console.error(`mutation floor: no report at ${reportPath}; run "npm run mutation"`)
    process.exitCode = 1
    return
  }
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report
  const config = (await import(pathToFileURL(join(ROOT, 'stryker.config.mjs')).href)) as {
    default: { mutate: string[] }
  }
  const { lines, problems } = checkFloor(report, config.default.mutate)
  console.log(`Mutation score per module (floor ${FLOOR_PERCENT} %):`)
  for (const line of lines) console.log(`  ${line}`)
  if (problems.length === 0) return
  for (const problem of problems) console.error(`mutation floor: ${problem}`)
  process.exitCode = 1
}

if (import.meta.main) await main()
