/*
 * Coverage of src/ from both kinds of test, checked against a threshold. Jest measures the unit
 * tests in-process (istanbul, coverage/unit); the e2e suites spawn `node dist/index.js` with
 * NODE_V8_COVERAGE (coverage/bundle-v8). Those V8 block counts are merged across processes and
 * mapped back to src/ line by line through dist/index.js.map (ncc maps each line of the bundle to
 * one line of a source). A line that holds a statement of src/ counts as covered when a unit test
 * or a bundle run ran it. Jest's global teardown runs this after a whole-suite `npm test`;
 * `node script/coverage.ts` runs it again on the last data (COVERAGE_DETAIL=1: per file).
 */
import { mergeProcessCovs, type ProcessCov } from '@bcoe/v8-coverage'
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = join(import.meta.dirname, '..')
export const BUNDLE_V8_DIR = join(ROOT, 'coverage', 'bundle-v8')
/** The merged share of lines of src/ covered; CI fails below it (measured 2026-11-22, less a little). */
export const LINE_THRESHOLD = 96

interface IstanbulFile {
  path: string
  statementMap: Record<string, { start: { line: number }; end: { line: number } }>
  s: Record<string, number>
}

/** Per file of src/: the lines that hold a statement, and those a test ran. */
function linesOf(report: Record<string, IstanbulFile>) {
  const files = new Map<string, { coverable: Set<number>; covered: Set<number> }>()
  for (const file of Object.values(report)) {
    const name = relative(ROOT, file.path)
    if (!name.startsWith('src/')) continue
    const entry = files.get(name) ?? { coverable: new Set<number>(), covered: new Set<number>() }
    for (const [id, range] of Object.entries(file.statementMap)) {
      for (let line = range.start.line; line <= range.end.line; line++) {
        entry.coverable.add(line)
        if (file.s[id] > 0) entry.covered.add(line)
      }
    }
    files.set(name, entry)
  }
  return files
}

function readJson(path: string): Record<string, IstanbulFile> {
  return existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, IstanbulFile>)
    : {}
}

/** Per source file (relative to the root), the lines of src/ that some bundle run executed. */
export function bundleLinesRun(): Map<string, Set<number>> {
  const run = new Map<string, Set<number>>()
  if (!existsSync(BUNDLE_V8_DIR)) return run
  const bundle = join(ROOT, 'dist', 'index.js')
  const url = pathToFileURL(bundle).href
  const processes: ProcessCov[] = readdirSync(BUNDLE_V8_DIR).map((name) => {
    const cov = JSON.parse(readFileSync(join(BUNDLE_V8_DIR, name), 'utf8')) as ProcessCov
    return { result: cov.result.filter((script) => script.url === url) }
  })
  const script = mergeProcessCovs(processes).result[0]
  if (!script) return run
  const code = readFileSync(bundle, 'utf8')
  // Where each line of the bundle starts (its first character that is not a space).
  const lineStarts: number[] = []
  for (let offset = 0; offset < code.length;) {
    const end = code.indexOf('\n', offset)
    const next = end < 0 ? code.length : end + 1
    const indent = /^[ \t]*/.exec(code.slice(offset, Math.min(next, offset + 200)))![0].length
    lineStarts.push(offset + indent)
    offset = next
  }
  // Each line's count is that of the innermost range around it: apply larger ranges first.
  const counts = new Array<number>(lineStarts.length).fill(0)
  const ranges = script.functions
    .flatMap((fn) => fn.ranges)
    .sort((a, b) => b.endOffset - b.startOffset - (a.endOffset - a.startOffset))
  const firstLineAtOrAfter = (offset: number): number => {
    let low = 0
    let high = lineStarts.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (lineStarts[middle] < offset) low = middle + 1
      else high = middle
    }
    return low
  }
  for (const range of ranges) {
    for (let line = firstLineAtOrAfter(range.startOffset); line < lineStarts.length; line++) {
      if (lineStarts[line] >= range.endOffset) break
      counts[line] = range.count
    }
  }
  const map = new TraceMap(readFileSync(`${bundle}.map`, 'utf8'))
  counts.forEach((count, index) => {
    if (count === 0) return
    const original = originalPositionFor(map, { line: index + 1, column: 0 })
    if (!original.source || original.line === null) return
    const name = relative(ROOT, resolve(ROOT, 'dist', original.source))
    if (!name.startsWith('src/')) return
    const lines = run.get(name) ?? new Set<number>()
    lines.add(original.line)
    run.set(name, lines)
  })
  return run
}

export function checkCoverage(): boolean {
  const unit = linesOf(readJson(join(ROOT, 'coverage', 'unit', 'coverage-final.json')))
  const bundle = bundleLinesRun()
  let coverable = 0
  let covered = 0
  let unitCovered = 0
  const rows: string[] = []
  for (const [name, lines] of [...unit.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const ranInBundle = bundle.get(name) ?? new Set<number>()
    const hit = [...lines.coverable].filter(
      (line) => lines.covered.has(line) || ranInBundle.has(line)
    ).length
    coverable += lines.coverable.size
    covered += hit
    unitCovered += lines.covered.size
    const share = (100 * hit) / Math.max(1, lines.coverable.size)
    rows.push(`  ${name.padEnd(28)} ${share.toFixed(1).padStart(5)} %`)
  }
  const percent = (part: number) => ((100 * part) / Math.max(1, coverable)).toFixed(1)
  const share = (100 * covered) / Math.max(1, coverable)
  const pass = share >= LINE_THRESHOLD
  if (!pass || process.env.COVERAGE_DETAIL) console.log(rows.join('\n'))
  console.log(
    `Coverage of src/: ${percent(covered)} % of lines, unit tests and bundle runs together (unit tests alone: ${percent(unitCovered)} %); threshold ${LINE_THRESHOLD} %`
  )
  return pass
}

if (import.meta.main && !checkCoverage()) process.exitCode = 1
