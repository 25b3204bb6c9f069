/*
 * `older_than`: how long a branch matching `sweep` may go without activity before it is stale. A
 * number with a unit, `m` (minutes), `h` (hours), `d` (days) or `w` (weeks): `7d`, `36h`, `2w`,
 * `1.5d`. Without a unit it is refused: a bare `7` would be seven seconds elsewhere, and every
 * branch would be stale.
 */
import { z } from 'zod'

const UNIT_MS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000
}
const AGE = /^(\d+(?:\.\d+)?)\s*(m|h|d|w)$/
/** Less than an hour of quiet says nothing of a preview branch: its pull request may be open. */
const MIN_OLDER_THAN_MS = UNIT_MS.h
/** Ten years: a longer age is a typo. */
const MAX_OLDER_THAN_MS = 3650 * UNIT_MS.d
/** `older_than` when not given: `7d`. */
export const DEFAULT_OLDER_THAN_MS = 7 * UNIT_MS.d

/** `7d` in milliseconds; undefined when it is not a number with one of the units. */
function parseAge(text: string): number | undefined {
  const match = AGE.exec(text.toLowerCase())
  return match ? Math.round(Number(match[1]) * UNIT_MS[match[2]]) : undefined
}

/**
 * The input `older_than` as given, in milliseconds. Not given, it is DEFAULT_OLDER_THAN_MS; given
 * empty, an input error (the catalog's entry reads it with refusingEmpty).
 */
export const olderThanInput = z.string().transform((raw, ctx) => {
  const text = raw.trim()
  const ms = parseAge(text)
  const problem =
    ms === undefined
      ? 'is not an age; use a number with a unit: m (minutes), h (hours), d (days) or w (weeks), as in 7d, 36h, 2w'
      : ms < MIN_OLDER_THAN_MS
        ? 'is below the minimum of 1 hour'
        : ms > MAX_OLDER_THAN_MS
          ? 'is above the maximum of 3650 days'
          : undefined
  if (problem === undefined) return ms!
  ctx.addIssue({ code: 'custom', message: `"${text}" ${problem}` })
  return z.NEVER
})
