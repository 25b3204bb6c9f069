/*
 * `sweep`: which branches a sweep looks at, by name. `*` stands for any characters within one part
 * of a name (never a `/`), `{pr}` for a pull-request number (1 to 999,999,999, no leading zero),
 * which it captures; everything else stands for itself, case included, and the whole name must
 * match. `preview/*`, `preview/pr-{pr}`. A `*` right beside `{pr}` is refused: it would take some
 * of the number's digits (`pr*{pr}` would read `pr123` as #3).
 */
import { z } from 'zod'
import { UNSAFE_CHARACTER_CLASS } from './untrusted-text.js'

const PR = '{pr}'
/** A branch name is at most 256 characters: a longer pattern matches none. */
const MAX_PATTERN_CHARS = 256
const UNSAFE = new RegExp(`[${UNSAFE_CHARACTER_CLASS}]`, 'u')

export interface SweepPattern {
  /** As given (trimmed). */
  text: string
  /** Whether it holds `{pr}`: then a branch's pull request can make it stale. */
  capturesPr: boolean
  matcher: RegExp
}

/** A part of the pattern that stands for itself, as a RegExp source. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

/** The pattern `text` stands for, or what is wrong with it. */
function compile(text: string): SweepPattern | string {
  if (text.length > MAX_PATTERN_CHARS) {
    return `is ${text.length} characters long; a branch name has at most ${MAX_PATTERN_CHARS}`
  }
  if (UNSAFE.test(text)) return 'holds a control or invisible character, which no branch name has'
  const prs = text.split(PR).length - 1
  if (prs > 1) return `holds ${PR} ${prs} times; a branch stands for one pull request`
  const rest = text.split(PR).join('')
  if (/[{}]/.test(rest)) {
    return `holds a brace that is not ${PR}; ${PR} (in lower case) is the only placeholder`
  }
  if (text.includes(`*${PR}`) || text.includes(`${PR}*`)) {
    return `has a * right beside ${PR}, which would take some of its digits; put a character that is no digit between them (preview/pr-${PR})`
  }
  const source = text
    .split(PR)
    .map((part) => part.split('*').map(literal).join('[^/]*'))
    .join('([1-9][0-9]{0,8})')
  return { text, capturesPr: prs === 1, matcher: new RegExp(`^${source}$`, 'u') }
}

/**
 * Whether `name` matches: undefined when it does not; else what it captured (the pull request's
 * number, with `{pr}`).
 */
export function matchBranch(pattern: SweepPattern, name: string): { pr?: number } | undefined {
  const found = pattern.matcher.exec(name)
  if (!found) return undefined
  return pattern.capturesPr ? { pr: Number(found[1]) } : {}
}

/** The input `sweep`: a pattern, checked as every input is (its problems name it). */
export const sweepPatternInput = z.string().transform((raw, ctx) => {
  const text = raw.trim()
  if (text === '') {
    ctx.addIssue({
      code: 'custom',
      message: 'is empty; give a branch-name pattern (preview/*, preview/pr-{pr})'
    })
    return z.NEVER
  }
  const compiled = compile(text)
  if (typeof compiled === 'string') {
    ctx.addIssue({ code: 'custom', message: `"${text}" ${compiled}` })
    return z.NEVER
  }
  return compiled
})
