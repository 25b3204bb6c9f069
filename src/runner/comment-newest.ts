/*
 * Which results of one workflow run the sticky comment keeps (comment-results.ts): every leg's of
 * one attempt, each leg run marking its own with an id of its own; and of the earlier attempts,
 * those that no later result of the same leg takes the place of. A leg is the same across attempts
 * only when its name (key) is the only one of its attempt.
 */

/** What a result says of its leg and attempt (comment-results.ts's LegResult). */
export interface Attempted {
  leg: string
  key?: string
  attempt?: string
  at: string
  replaces?: string
}

export const attemptOf = (result: Attempted): number => Number(result.attempt ?? 0) || 0

/** Whether `a` is a newer result of its leg than `b`: a later attempt, then a later time. */
function isNewer(a: Attempted, b: Attempted): boolean {
  return attemptOf(a) - attemptOf(b) > 0 || (attemptOf(a) === attemptOf(b) && a.at > b.at)
}

/** The results of `key` in `attempt`, of `all`. */
const ofKey = (all: Attempted[], key: string, attempt: number) =>
  all.filter((result) => result.key === key && attemptOf(result) === attempt)

/**
 * The earlier results that `result` takes the place of: the one it `replaces`, and its leg's
 * result of each earlier attempt, when the leg is told apart uniquely (its key is the only one of
 * its attempt, and was the only one of that attempt). Two legs that share a name keep both.
 */
function replacedBy(result: Attempted, all: Attempted[]): Attempted[] {
  const earlier = all.filter((old) => attemptOf(old) < attemptOf(result))
  const { key } = result
  const unique = key !== undefined && ofKey(all, key, attemptOf(result)).length === 1
  return earlier.filter(
    (old) =>
      old.leg === result.replaces ||
      (unique && old.key === key && ofKey(all, key, attemptOf(old)).length === 1)
  )
}

/**
 * Each leg's newest result, in the order they were written (attempt, then time): a result of a
 * later attempt takes the place of the ones it replaces (replacedBy). Every leg's result of one
 * attempt stays. Of two results with the same identity, the one seen first stays (a leg's own,
 * with its line uncut).
 */
export function newestOfEachLeg<T extends Attempted>(results: T[]): T[] {
  const byLeg = new Map<string, T>()
  for (const result of results) {
    const held = byLeg.get(result.leg)
    if (!held || isNewer(result, held)) byLeg.set(result.leg, result)
  }
  const all = [...byLeg.values()]
  const replaced = new Set(all.flatMap((result) => replacedBy(result, all).map((old) => old.leg)))
  return all
    .filter((result) => !replaced.has(result.leg))
    .sort((a, b) => attemptOf(a) - attemptOf(b) || a.at.localeCompare(b.at))
}

/**
 * The earlier attempts' one result that a result of a later attempt takes the place of, when its
 * leg cannot be told apart: only when those attempts left exactly one result, of a leg that could
 * not be told apart either (a gate of one leg, re-run). Several: none, and they stay.
 */
export function replacing(own: Attempted, results: Attempted[]): string | undefined {
  // A leg told apart replaces by its name alone (replacedBy), never an untold leg's result.
  if (own.key) return undefined
  const earlier = new Map(
    results
      .filter((result) => attemptOf(result) < attemptOf(own))
      .map((result) => [result.leg, result])
  )
  const [only] = earlier.values()
  return earlier.size === 1 && !only.key && only.leg !== own.leg ? only.leg : undefined
}
