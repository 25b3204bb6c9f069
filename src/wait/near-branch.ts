/*
 * The branches near a name that names none: what a hand or a template gets wrong. Before a delete,
 * "no such branch" reads `gone` and skips the delete, so a branch that is there under a near name
 * must be named instead. A branch is near when, with width, case, white space, quotes and
 * separators set aside (`Preview/PR-12`, `preview-pr-12`, `preview\pr‐12` for `preview/pr-12`):
 * - it is the name, or its id is;
 * - one name is the other's path suffix at a `/` (`pr-12` or `team/preview/pr-12`);
 * - both carry the same numbers, leading zeros aside, and the rest is at most three edits apart
 *   (`previews/pr-12`, `preview/12`, `preview/pr-012`). A different number is a different branch:
 *   `preview/pr-13` is not near `preview/pr-12`.
 */
import type { Branch } from '../domain/schemas.js'

/** Edits (a character inserted, deleted or replaced) in the rest of two names that are still near. */
const MAX_EDITS = 3

/**
 * Width and case set aside: upper case, where `ß` and `SS`, `ς` and `σ` are alike (lower case keeps
 * them apart).
 */
const folded = (text: string): string => text.normalize('NFKC').toUpperCase()

/**
 * A name or id with width, case, white space, quotes and separators set aside: `Preview/PR-12`,
 * `"preview-pr-12"`, `preview\pr‐12` (a Unicode hyphen) and `preview_pr_１２` are all `PREVIEWPR12`.
 */
function loosely(text: string): string {
  return folded(text).replace(/[\s\p{Quotation_Mark}`/\\_.\p{Dash}]/gu, '')
}

/** A name and its ends after each `/`, set aside as `loosely` says: `preview/pr-12`, `pr-12`. */
function looseEnds(name: string): string[] {
  const parts = name.split('/').map(loosely)
  return parts.map((_, index) => parts.slice(index).join('')).filter((end) => end !== '')
}

/** A name's numbers without their leading zeros, and the rest: `preview/pr-012` is 12 and `preview/pr-`. */
function numbersAndRest(name: string): { numbers: string; rest: string[] } {
  const text = folded(name)
  const numbers = [...text.matchAll(/\d+/g)].map(([digits]) => digits.replace(/^0+(?=\d)/, ''))
  return { numbers: numbers.join(' '), rest: Array.from(text.replace(/\d/g, '')) }
}

/** Whether `a` and `b` are at most `max` edits apart (Levenshtein, row by row). */
function withinEdits(a: string[], b: string[], max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const replace = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, replace)
    }
    previous = current
  }
  return previous[b.length] <= max
}

/** The branches near `input`, which is the id and the name of none of them. */
export function nearBranches(branches: Branch[], input: string): Branch[] {
  const key = loosely(input)
  const inputEnds = looseEnds(input)
  const given = numbersAndRest(input)
  const sameNumbersFewEdits = (name: string): boolean => {
    const other = numbersAndRest(name)
    return (
      given.numbers !== '' &&
      other.numbers === given.numbers &&
      withinEdits(given.rest, other.rest, MAX_EDITS)
    )
  }
  return branches.filter(
    (branch) =>
      loosely(branch.id) === key ||
      looseEnds(branch.name).includes(key) ||
      inputEnds.includes(loosely(branch.name)) ||
      sameNumbersFewEdits(branch.name)
  )
}
