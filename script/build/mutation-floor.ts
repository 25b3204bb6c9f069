/*
 * The floor of mutation testing: after `stryker run` (npm run mutation, script/build/mutation.ts),
 * reads its JSON report and fails on either of two things.
 *
 * 1. A mutated module scoring below FLOOR_PERCENT. Stryker's own `thresholds.break` holds the total
 *    only; a weak module can hide behind strong ones there. The score is Stryker's, counted the same
 *    way: (killed + timeout) / (killed + timeout + survived + no coverage), in percent. A timeout
 *    counts as detected (the mutant made a test hang); mutants that are ignored, or that did not
 *    compile or crashed the test runner, are not counted at all. Every module that
 *    stryker.config.mjs mutates must be in the report and have mutants to count: a module that
 *    drops out of the report fails too.
 * 2. Any mutant that survived or that no test reached, unless it is one of the accepted survivors
 *    (stryker.survivors.json: mutants no test can kill, each with why). A floor alone lets one new
 *    untested line hide among 200 killed mutants; this rule does not. An accepted survivor is
 *    known by its file, mutator, original text and replacement (whitespace squeezed), not by its
 *    line, so code moving around it keeps it accepted; an entry accepts one mutant, so the same
 *    text surviving a second time fails. A mutant no test reaches is never accepted (a test can
 *    always reach it), and an entry that matches nothing any more (the mutant killed now, or its
 *    code gone) fails too: it would otherwise wait there to let a new survivor with the same text
 *    through. A mutant that timed out still matches (on a busy machine a survivor can run past
 *    Stryker's time limit).
 *
 *   node script/build/mutation-floor.ts [report.json]    (default reports/mutation/mutation.json)
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = join(import.meta.dirname, '..', '..')
export const FLOOR_PERCENT = 90
export const SURVIVORS_FILE = 'stryker.survivors.json'

type Status =
  | 'Killed'
  | 'Timeout'
  | 'Survived'
  | 'NoCoverage'
  | 'Ignored'
  | 'CompileError'
  | 'RuntimeError'
  | 'Pending'

/** A place in a file as the report gives it: line and column both count from 1, end exclusive. */
interface Position {
  line: number
  column: number
}

export interface ReportMutant {
  status: Status
  mutatorName: string
  replacement?: string
  location: { start: Position; end: Position }
}

export interface Report {
  files: Record<string, { source: string; mutants: ReportMutant[] }>
}

export interface AcceptedSurvivor {
  file: string
  mutator: string
  original: string
  replacement: string
  why: string
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

/** The text a mutant replaces, cut from its file's source. */
export function originalText(source: string, { start, end }: ReportMutant['location']): string {
  const lines = source.split('\n')
  const offset = ({ line, column }: Position) =>
    lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + column - 1
  return source.slice(offset(start), offset(end))
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim()
const quote = (text: string) => JSON.stringify(squeeze(text))

function survivorKey(
  entry: Pick<AcceptedSurvivor, 'file' | 'mutator' | 'original' | 'replacement'>
) {
  return [entry.file, entry.mutator, squeeze(entry.original), squeeze(entry.replacement)].join('\n')
}

/**
 * Every mutant that survived or that no test reached, unless an accepted survivor takes it (one
 * entry, one mutant); then every accepted survivor that took none. Only in the modules `mutated`
 * (stryker.config.mjs's): the report also carries the baseline's results of modules run on their
 * own with `--mutate` on their way in, which are held to nothing yet.
 */
export function checkSurvivors(
  report: Report,
  accepted: AcceptedSurvivor[],
  mutated: string[]
): string[] {
  const unused = new Map<string, AcceptedSurvivor[]>()
  for (const entry of accepted) {
    const key = survivorKey(entry)
    unused.set(key, [...(unused.get(key) ?? []), entry])
  }
  const problems: string[] = []
  const timedOut: string[] = []
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    if (!mutated.includes(file)) continue
    for (const mutant of mutants) {
      if (!['Survived', 'NoCoverage', 'Timeout'].includes(mutant.status)) continue
      const original = originalText(source, mutant.location)
      const replacement = mutant.replacement ?? ''
      const key = survivorKey({ file, mutator: mutant.mutatorName, original, replacement })
      if (mutant.status === 'Timeout') {
        timedOut.push(key)
        continue
      }
      if (mutant.status === 'Survived' && unused.get(key)?.shift()) continue
      const { line, column } = mutant.location.start
      const what = mutant.status === 'Survived' ? 'survived' : 'is reached by no test'
      problems.push(
        `${file}:${line}:${column} ${mutant.mutatorName} ${quote(original)} -> ${quote(replacement)} ${what}`
      )
    }
  }
  // On a busy machine an accepted survivor can run past Stryker's time limit: still there, not
  // killed.
  for (const key of timedOut) unused.get(key)?.shift()
  for (const entry of [...unused.values()].flat()) {
    problems.push(
      `${SURVIVORS_FILE}: ${entry.file} ${entry.mutator} ${quote(entry.original)} -> ${quote(entry.replacement)} no longer survives; remove it`
    )
  }
  return problems
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
  const accepted = JSON.parse(
    readFileSync(join(ROOT, SURVIVORS_FILE), 'utf8')
  ) as AcceptedSurvivor[]
  const { lines, problems } = checkFloor(report, config.default.mutate)
  console.log(`Mutation score per module (floor ${FLOOR_PERCENT} %):`)
  for (const line of lines) console.log(`  ${line}`)
  const survivors = checkSurvivors(report, accepted, config.default.mutate)
  console.log(
    `Survivors: ${accepted.length} accepted (${SURVIVORS_FILE}), ${survivors.length} not accepted`
  )
  if (problems.length === 0 && survivors.length === 0) return
  for (const problem of problems) console.error(`mutation floor: ${problem}`)
  for (const survivor of survivors) console.error(`mutation survivor: ${survivor}`)
  if (survivors.length > 0) {
    console.error(
      `Kill each survivor with a test. A mutant that no test can kill (it changes nothing anyone ` +
        `can see) goes into ${SURVIVORS_FILE} with its file, mutator, original text, replacement ` +
        `and why; docs/development.md, "Mutation testing".`
    )
  }
  process.exitCode = 1
}

if (import.meta.main) await main()
