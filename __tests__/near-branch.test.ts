/*
 * The branches near a name that names none (near-branch.ts): by example, each rule on both of its
 * sides, and by property, with oracles built from how the names were made, not from the code:
 * only case, width and separators changed is near; a path end at a `/` is near; letters
 * inserted beside the same numbers are near up to three and not from four; the same number with
 * leading zeros is near and a different number never is, 0 included. The teardown that refuses a
 * near miss: api-client.test.ts and e2e/teardown.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { nearBranches } from '../src/wait/near-branch.js'
import { propertyRuns } from './support/property-runs.js'

const branch = (name: string, id = 'br-green-sun-00000001') => ({ id, name })
const isNear = (name: string, input: string) => nearBranches([branch(name)], input).length === 1

describe('nearBranches: by example', () => {
  /** Names near preview/pr-12, each with why. */
  const near = [
    ['Preview/PR-12', 'case'],
    ['"preview-pr-12"', 'quotes and separators'],
    ['preview\\pr‐12', 'a backslash and a Unicode hyphen'],
    ['ＰＲＥＶＩＥＷ_pr_１２', 'width'],
    ['pr-12', 'a path end of the input'],
    ['team/preview/pr-12', 'the input as its path end'],
    ['previews/pr-12', 'one letter more'],
    ['preview/12', 'three letters fewer'],
    ['preview/pr-012', 'a leading zero'],
    ['preview/pr-0012', 'two leading zeros']
  ]
  /** Names not near it, each with why. */
  const notNear = [
    ['preview/pr-13', 'a different number'],
    ['preview/pr-01-2', 'two numbers for one'],
    ['previewssss/pr-12', 'four letters more'],
    ['pr-12/preview', 'the same parts in another order, more than three edits apart']
  ]
  it.each([
    ...near.map(([name, why]) => [name, 'near', why]),
    ...notNear.map(([name, why]) => [name, 'not near', why])
  ])('%s is %s preview/pr-12 (%s)', (name, verdict) => {
    expect(isNear(name, 'preview/pr-12')).toBe(verdict === 'near')
  })

  it('names without numbers are near only as the same name or a path end, not by edits', () => {
    expect(isNear('preview/bar', 'preview/foo')).toBe(false)
    expect(isNear('feature/foo', 'foo')).toBe(true)
  })

  it('case set aside where upper and lower case disagree: ß is SS, final ς is σ', () => {
    expect(isNear('PREVIEW/STRASSE', 'preview/straße')).toBe(true)
    expect(isNear('ssssss-pr-12', 'ßßß-pr-012')).toBe(true)
    expect(isNear('PREVIEW/ΣΟΦΟΣ', 'preview/σοφος')).toBe(true)
  })

  it('an id is near when it is the input with case and separators set aside', () => {
    expect(nearBranches([branch('other', 'br-green-sun-1')], 'BR_GREEN_SUN_1')).toHaveLength(1)
  })

  it('an input of separators alone is near nothing, not even a name that ends in a separator', () => {
    expect(isNear('preview/', '--')).toBe(false)
    expect(isNear('/', '/')).toBe(false)
  })
})

describe('nearBranches: the number 0 is a number', () => {
  it.each([
    ['preview/pr-00', 'near', 'preview/pr-0', 'a leading zero of the number 0'],
    ['preview/pr-0', 'near', 'preview/pr-000', 'the number 0 without its leading zeros'],
    ['db/shard-0', 'near', 'dbs/shard-0', 'one letter fewer beside the number 0'],
    ['preview/pr-10', 'not near', 'preview/pr-0', 'a different number'],
    ['preview/pr-1', 'not near', 'preview/pr-00', 'a different number']
  ])('%s is %s %s (%s)', (name, verdict, input) => {
    expect(isNear(name, input)).toBe(verdict === 'near')
  })
})

/** A number as a name writes it: 0 and leading zeros included. */
const numberText = fc.oneof(fc.constantFrom('0', '00', '007'), fc.stringMatching(/^\d{1,3}$/))
/** Name segments of letters a to p (never q: the letter the insertions use) and numbers. */
const segment = fc
  .tuple(fc.stringMatching(/^[a-p]{1,6}$/), fc.option(numberText))
  .map(([letters, digits]) => (digits === null ? letters : `${letters}-${digits}`))
const segments = fc.array(segment, { minLength: 1, maxLength: 3 })

/** `name` with `count` letters q inserted, never between two digits (that would split a number). */
function withInserted(name: string, positions: number[]): string {
  let text = name
  for (const at of positions) {
    const index = at % (text.length + 1)
    const between = /\d/.test(text[index - 1] ?? '') && /\d/.test(text[index] ?? '')
    text = between ? `q${text}` : `${text.slice(0, index)}q${text.slice(index)}`
  }
  return text
}

describe('nearBranches: by property', () => {
  it('a name changed only in case, width and separators is always near', () => {
    const separators = fc.constantFrom('/', '-', '_', '.', ' ', '‐', '\\')
    fc.assert(
      fc.property(segments, fc.array(fc.boolean()), separators, (parts, upper, separator) => {
        const input = parts.join('/')
        const changed = Array.from(parts.join(separator))
          .map((char, i) => (upper[i] ? char.toUpperCase() : char))
          .join('')
        expect(isNear(changed, input)).toBe(true)
      }),
      propertyRuns(6501, 200)
    )
  })

  it('a name that is the other’s path end at a `/` is near, either way round', () => {
    fc.assert(
      fc.property(segments, segments, (head, tail) => {
        const long = [...head, ...tail].join('/')
        const short = tail.join('/')
        expect(isNear(long, short)).toBe(true)
        expect(isNear(short, long)).toBe(true)
      }),
      propertyRuns(6502, 200)
    )
  })

  it('letters inserted beside the same numbers: near up to three, never from four', () => {
    const named = segments.filter((parts) => parts.some((part) => /\d/.test(part)))
    fc.assert(
      fc.property(named, fc.array(fc.nat(), { minLength: 1, maxLength: 7 }), (parts, positions) => {
        const input = parts.join('/')
        expect(isNear(withInserted(input, positions), input)).toBe(positions.length <= 3)
      }),
      propertyRuns(6503, 300)
    )
  })

  it('without numbers, a letter inserted is never near', () => {
    const plain = fc.array(fc.stringMatching(/^[a-p]{1,6}$/), { minLength: 1, maxLength: 3 })
    fc.assert(
      fc.property(plain, fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), (parts, positions) => {
        const input = parts.join('/')
        expect(isNear(withInserted(input, positions), input)).toBe(false)
      }),
      propertyRuns(6504, 200)
    )
  })
})

describe('nearBranches: by property, the numbers', () => {
  it('the same number with leading zeros is always near, 0 included', () => {
    const numberValue = fc.oneof(fc.constant(0), fc.nat(999))
    fc.assert(
      fc.property(segments, numberValue, fc.integer({ min: 1, max: 3 }), (parts, n, zeros) => {
        const name = (number: string) => [...parts, `pr-${number}`].join('/')
        expect(isNear(name('0'.repeat(zeros) + n), name(String(n)))).toBe(true)
        expect(isNear(name(String(n)), name('0'.repeat(zeros) + n))).toBe(true)
      }),
      propertyRuns(6506, 200)
    )
  })

  it('a different number is never near, whatever the rest', () => {
    fc.assert(
      fc.property(segments, fc.nat(999), fc.nat(999), fc.nat(3), (parts, n, m, zeros) => {
        fc.pre(n !== m)
        const name = (number: string) => [...parts, `pr-${number}`].join('/')
        expect(isNear(name('0'.repeat(zeros) + m), name(String(n)))).toBe(false)
      }),
      propertyRuns(6505, 300)
    )
  })
})
