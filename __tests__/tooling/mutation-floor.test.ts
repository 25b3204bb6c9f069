import { describe, expect, it } from '@jest/globals'
import { checkFloor, FLOOR_PERCENT, scoreOf } from '../../script/build/mutation-floor.ts'

type Status = Parameters<typeof scoreOf>[1][number]

const mutants = (counts: Partial<Record<Status, number>>) => ({
  mutants: Object.entries(counts).flatMap(([status, count]) =>
    Array.from({ length: count }, () => ({ status: status as Status }))
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
