import { describe, expect, it } from '@jest/globals'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  checkFloor,
  checkSurvivors,
  FLOOR_PERCENT,
  originalText,
  scoreOf,
  SURVIVORS_FILE,
  type AcceptedSurvivor,
  type Report,
  type ReportMutant
} from '../../script/build/mutation-floor.ts'
import {
  BASELINE_FILE,
  normalizeBaseline,
  serializeBaseline,
  type Baseline
} from '../../script/build/mutation.ts'

type Status = Parameters<typeof scoreOf>[1][number]

/** checkSurvivors over every module of `report`, as if stryker.config.mjs mutated them all. */
const survivorsOf = (report: Report, accepted: AcceptedSurvivor[]) =>
  checkSurvivors(report, accepted, Object.keys(report.files))

const root = join(import.meta.dirname, '..', '..')
const strykerConfig = (
  (await import(pathToFileURL(join(root, 'stryker.config.mjs')).href)) as {
    default: { mutate: string[]; incremental?: boolean; incrementalFile?: string }
  }
).default

const at = (line: number, column: number, endColumn: number) => ({
  start: { line, column },
  end: { line, column: endColumn }
})

const mutants = (counts: Partial<Record<Status, number>>) => ({
  source: '',
  mutants: Object.entries(counts).flatMap(([status, count]) =>
    Array.from({ length: count }, (): ReportMutant => ({
      status: status as Status,
      mutatorName: 'BooleanLiteral',
      replacement: 'false',
      location: at(1, 1, 1)
    }))
  )
})

describe('the mutation floor (npm run mutation)', () => {
  it('scores as Stryker does: killed and timeout over those plus survived and no coverage; errors and ignored ones not counted', () => {
    const statuses = mutants({
      Killed: 80,
      Timeout: 10,
      Survived: 6,
      NoCoverage: 4,
      Ignored: 7,
      CompileError: 3,
      RuntimeError: 2
    }).mutants.map((mutant) => mutant.status)
    expect(scoreOf('src/a.ts', statuses)).toEqual({
      path: 'src/a.ts',
      killed: 80,
      timeout: 10,
      survived: 6,
      noCoverage: 4,
      score: 90
    })
    expect(scoreOf('src/b.ts', ['RuntimeError', 'Ignored']).score).toBeUndefined()
  })

  it('passes when every module is at the floor or above, with one line per module', () => {
    const report = {
      files: {
        'src/a.ts': mutants({ Killed: 9, Survived: 1 }),
        'src/b.ts': mutants({ Killed: 50 })
      }
    }
    expect(FLOOR_PERCENT).toBe(90)
    expect(checkFloor(report, ['src/a.ts', 'src/b.ts'])).toEqual({
      lines: [
        'src/a.ts: 90.00 % (killed 9, timeout 0, survived 1, no coverage 0)',
        'src/b.ts: 100.00 % (killed 50, timeout 0, survived 0, no coverage 0)'
      ],
      problems: []
    })
  })

  it('fails on each module under the floor, however strong the others, and on a module missing from the report', () => {
    const report = {
      files: {
        'src/strong.ts': mutants({ Killed: 1000 }),
        'src/weak.ts': mutants({ Killed: 17, Timeout: 1, NoCoverage: 2, Survived: 1 }),
        'src/none.ts': mutants({ RuntimeError: 3 })
      }
    }
    const { problems } = checkFloor(report, [
      'src/strong.ts',
      'src/weak.ts',
      'src/none.ts',
      'src/gone.ts'
    ])
    expect(problems).toEqual([
      'src/weak.ts: 85.71 % (killed 17, timeout 1, survived 1, no coverage 2) is below the floor of 90 %',
      'src/none.ts: no mutant counted (killed 0, timeout 0, survived 0, no coverage 0) is below the floor of 90 %',
      'src/gone.ts: not in the report'
    ])
  })
})

describe('survivors: none but the accepted ones (npm run mutation)', () => {
  // Two modules: a.ts with 200 killed mutants beside one survivor of its own guard, b.ts with the
  // same guard twice.
  const a = [
    'export function isOlder(created?: number, time = 0) {',
    '  return created !== undefined && created < time',
    '}'
  ].join('\n')
  const b = [
    'export const first = (created?: number) => created !== undefined && created < 1',
    'export const second = (created?: number) =>',
    '  created !== undefined && created < 2'
  ].join('\n')
  const guard = (line: number, column: number, status: Status): ReportMutant => ({
    status,
    mutatorName: 'ConditionalExpression',
    replacement: 'true',
    location: at(line, column, column + 'created !== undefined'.length)
  })
  const killed = (count: number) =>
    Array.from({ length: count }, (): ReportMutant => ({ ...guard(2, 10, 'Killed') }))
  const accepted = (file: string, original = 'created !== undefined'): AcceptedSurvivor => ({
    file,
    mutator: 'ConditionalExpression',
    original,
    replacement: 'true',
    why: '`undefined < time` is false anyway'
  })
  const report = (aMutants: ReportMutant[], bMutants: ReportMutant[] = []): Report => ({
    files: {
      'src/a.ts': { source: a, mutants: aMutants },
      'src/b.ts': { source: b, mutants: bMutants }
    }
  })

  it('cuts the original text from the source: lines and columns from 1, the end exclusive, across lines', () => {
    expect(originalText(a, at(2, 10, 31))).toBe('created !== undefined')
    expect(originalText(b, { start: { line: 2, column: 44 }, end: { line: 3, column: 24 } })).toBe(
      '\n  created !== undefined'
    )
  })

  it('fails on one new survivor among 200 killed mutants, naming its place, mutator, text and replacement, where the floor passes', () => {
    const oneAmongMany = report([...killed(200), guard(2, 10, 'Survived')])
    expect(checkFloor(oneAmongMany, ['src/a.ts']).problems).toEqual([])
    expect(survivorsOf(oneAmongMany, [])).toEqual([
      'src/a.ts:2:10 ConditionalExpression "created !== undefined" -> "true" survived'
    ])
  })

  it('judges only the modules stryker.config.mjs mutates: a module on its way in (run with --mutate) keeps its results in the baseline, unjudged', () => {
    const carried = report([...killed(20), guard(2, 10, 'Survived')])
    expect(checkSurvivors(carried, [], ['src/other.ts'])).toEqual([])
    expect(checkSurvivors(carried, [], ['src/a.ts'])).toHaveLength(1)
  })

  it('fails on a mutant no test reaches, even when an entry matches it (and then the entry is unused too)', () => {
    expect(survivorsOf(report([guard(2, 10, 'NoCoverage')]), [accepted('src/a.ts')])).toEqual([
      'src/a.ts:2:10 ConditionalExpression "created !== undefined" -> "true" is reached by no test',
      `${SURVIVORS_FILE}: src/a.ts ConditionalExpression "created !== undefined" -> "true" no longer survives; remove it`
    ])
  })

  it('accepts a listed survivor wherever it moved and however its text is wrapped; only killed, timed-out, ignored and broken mutants around it', () => {
    const moved = report([
      guard(2, 10, 'Survived'),
      ...(['Killed', 'Timeout', 'Ignored', 'CompileError', 'RuntimeError'] as Status[]).map(
        (status) => guard(2, 10, status)
      )
    ])
    expect(survivorsOf(moved, [accepted('src/a.ts', 'created  !==\n undefined')])).toEqual([])
    // The same survivor two lines further down (code added above it).
    const shifted = { ...moved.files['src/a.ts'], source: `\n\n${a}` }
    shifted.mutants = [guard(4, 10, 'Survived')]
    expect(survivorsOf({ files: { 'src/a.ts': shifted } }, [accepted('src/a.ts')])).toEqual([])
  })

  it('lets one entry accept one mutant: the same text surviving twice needs two entries', () => {
    const twice = report([], [guard(1, 44, 'Survived'), guard(3, 3, 'Survived')])
    expect(survivorsOf(twice, [accepted('src/b.ts')])).toEqual([
      'src/b.ts:3:3 ConditionalExpression "created !== undefined" -> "true" survived'
    ])
    expect(survivorsOf(twice, [accepted('src/b.ts'), accepted('src/b.ts')])).toEqual([])
  })

  it('accepts only the file, mutator and replacement listed', () => {
    const survivor = report([guard(2, 10, 'Survived')])
    const elsewhere = accepted('src/b.ts')
    const otherMutator = { ...accepted('src/a.ts'), mutator: 'EqualityOperator' }
    const otherReplacement = { ...accepted('src/a.ts'), replacement: 'false' }
    for (const entry of [elsewhere, otherMutator, otherReplacement]) {
      expect(survivorsOf(survivor, [entry])).toEqual([
        'src/a.ts:2:10 ConditionalExpression "created !== undefined" -> "true" survived',
        `${SURVIVORS_FILE}: ${entry.file} ${entry.mutator} "created !== undefined" -> "${entry.replacement}" no longer survives; remove it`
      ])
    }
  })

  it('fails on an entry that matches no survivor any more (killed now, or its code gone)', () => {
    expect(survivorsOf(report([guard(2, 10, 'Killed')]), [accepted('src/a.ts')])).toEqual([
      `${SURVIVORS_FILE}: src/a.ts ConditionalExpression "created !== undefined" -> "true" no longer survives; remove it`
    ])
  })

  it('keeps an entry whose survivor timed out (a busy machine), without ever taking a timeout for a survivor', () => {
    expect(survivorsOf(report([guard(2, 10, 'Timeout')]), [accepted('src/a.ts')])).toEqual([])
    expect(survivorsOf(report([guard(2, 10, 'Timeout')]), [])).toEqual([])
    // One timeout keeps one entry.
    expect(
      survivorsOf(report([guard(2, 10, 'Timeout')]), [accepted('src/a.ts'), accepted('src/a.ts')])
    ).toEqual([
      `${SURVIVORS_FILE}: src/a.ts ConditionalExpression "created !== undefined" -> "true" no longer survives; remove it`
    ])
  })

  it('the committed list of accepted survivors gives each entry its file, mutator, text, replacement and why', () => {
    const list = JSON.parse(readFileSync(join(root, SURVIVORS_FILE), 'utf8')) as AcceptedSurvivor[]
    for (const entry of list) {
      expect(Object.keys(entry).sort()).toEqual([
        'file',
        'mutator',
        'original',
        'replacement',
        'why'
      ])
      expect(strykerConfig.mutate).toContain(entry.file)
      expect(entry.why.length).toBeGreaterThan(20)
    }
  })
})

describe('the incremental baseline (stryker.incremental.json)', () => {
  const position = (line: number, column: number) => ({ line, column })
  /** A mutant no test covers, as the normalized baseline keeps it. */
  const uncovered = {
    id: '0',
    mutatorName: 'BooleanLiteral',
    replacement: 'false',
    location: { start: position(1, 18), end: position(1, 22) },
    status: 'NoCoverage'
  }
  // Stryker's own file, as it writes it: test ids in the order tests happened to finish, failure
  // messages with the sandbox's paths, the checkout's absolute path and the whole configuration.
  const raw = (order: 'first' | 'second') => {
    const [early, late] = order === 'first' ? ['0', '1'] : ['1', '0']
    return {
      schemaVersion: '1.0',
      thresholds: { high: 95, low: 90, break: 90 },
      projectRoot: '/home/someone/checkout',
      config: { incrementalFile: 'stryker.incremental.json', concurrency: 2 },
      framework: { name: 'StrykerJS', version: '10.0.0' },
      files: {
        'src/b.ts': {
          language: 'typescript',
          source: 'export const b = 1 > 0\n',
          mutants: [
            {
              id: '7',
              mutatorName: 'EqualityOperator',
              replacement: '1 >= 0',
              location: { start: position(1, 18), end: position(1, 23) },
              status: 'Survived',
              coveredBy: [early, late],
              testsCompleted: 2
            },
            {
              id: '3',
              mutatorName: 'ConditionalExpression',
              replacement: 'true',
              location: { start: position(1, 18), end: position(1, 23) },
              status: 'Killed',
              statusReason:
                'expected 1 at /home/someone/checkout/.stryker-tmp/sandbox-1/__tests__/b.test.ts:3',
              coveredBy: [late, early],
              killedBy: [late],
              testsCompleted: 1
            }
          ]
        },
        'src/a.ts': {
          language: 'typescript',
          source: 'export const a = true\n',
          mutants: [{ ...uncovered, static: false, coveredBy: [], killedBy: [] }]
        }
      },
      testFiles: {
        '__tests__/b.test.ts': {
          source: "it('is one', () => {})\nit('is two', () => {})\n",
          tests: [
            { id: late, name: 'is two', location: { start: position(2, 1) } },
            { id: early, name: 'is one', location: { start: position(1, 1) } }
          ]
        }
      }
    }
  }

  it('keeps what the next run reads, in a stable order: ids renumbered by place, coveredBy and killedBy following the tests (an empty list dropped)', () => {
    const normalized = normalizeBaseline(raw('first'))
    expect(normalized).toEqual({
      schemaVersion: '1.0',
      thresholds: { high: 95, low: 90, break: 90 },
      framework: { name: 'StrykerJS', version: '10.0.0' },
      files: {
        'src/a.ts': {
          language: 'typescript',
          source: 'export const a = true\n',
          mutants: [uncovered]
        },
        'src/b.ts': {
          language: 'typescript',
          source: 'export const b = 1 > 0\n',
          mutants: [
            {
              id: '1',
              mutatorName: 'ConditionalExpression',
              replacement: 'true',
              location: { start: position(1, 18), end: position(1, 23) },
              status: 'Killed',
              coveredBy: ['0', '1'],
              killedBy: ['1']
            },
            {
              id: '2',
              mutatorName: 'EqualityOperator',
              replacement: '1 >= 0',
              location: { start: position(1, 18), end: position(1, 23) },
              status: 'Survived',
              coveredBy: ['0', '1']
            }
          ]
        }
      },
      testFiles: {
        '__tests__/b.test.ts': {
          source: "it('is one', () => {})\nit('is two', () => {})\n",
          tests: [
            { id: '0', name: 'is one', location: { start: position(1, 1) } },
            { id: '1', name: 'is two', location: { start: position(2, 1) } }
          ]
        }
      }
    })
  })

  it('writes a mutant carried over from a run of another module as the one tested: Stryker adds its killing tests to coveredBy and drops static, which the next run does not read', () => {
    type Mutant = Baseline['files'][string]['mutants'][number]
    const withKilled = (change: Partial<Mutant>): Baseline => {
      const report: Baseline = raw('first')
      const mutants = report.files['src/b.ts'].mutants
      mutants[1] = { ...mutants[1], ...change }
      return report
    }
    const tested = withKilled({ coveredBy: ['0'], static: true })
    const carried = withKilled({ coveredBy: ['1', '0'], static: undefined })
    expect(serializeBaseline(normalizeBaseline(carried))).toBe(
      serializeBaseline(normalizeBaseline(tested))
    )
  })

  it('writes the same file whatever order the tests finished in, one mutant or test a line, and reads back as written', () => {
    const text = serializeBaseline(normalizeBaseline(raw('first')))
    expect(serializeBaseline(normalizeBaseline(raw('second')))).toBe(text)
    const parsed = JSON.parse(text) as Baseline
    expect(serializeBaseline(normalizeBaseline(parsed))).toBe(text)
    expect(text).not.toContain('/home/someone')
    expect(text).not.toContain('statusReason')
    const lines = text.split('\n')
    expect(lines.filter((line) => /^ {8}\{"id":/.test(line))).toHaveLength(5)
    expect(lines).toContain(
      '        {"id":"1","name":"is two","location":{"start":{"line":2,"column":1}}}'
    )
  })

  it('is committed, in its normalized form, with no path outside the checkout, and Stryker reads and writes it', () => {
    expect(strykerConfig).toMatchObject({ incremental: true, incrementalFile: BASELINE_FILE })
    // Present on a fresh clone: so it is committed, not git-ignored like reports/.
    expect(existsSync(join(root, BASELINE_FILE))).toBe(true)
    const text = readFileSync(join(root, BASELINE_FILE), 'utf8')
    const baseline = JSON.parse(text) as Baseline
    // The file is 600 kB: say what is wrong in a line, not in a diff of it.
    const form =
      serializeBaseline(normalizeBaseline(baseline)) === text
        ? 'normalized'
        : 'as Stryker wrote it: run npm run mutation, not npx stryker run'
    expect(form).toBe('normalized')
    const needles = ['.stryker-tmp', root, '"projectRoot"', '"statusReason"']
    expect(needles.filter((needle) => text.includes(needle))).toEqual([])
    const names = [...Object.keys(baseline.files), ...Object.keys(baseline.testFiles ?? {})]
    expect(names.filter((name) => !/^(src|__tests__|script)\//.test(name))).toEqual([])
  })
})
