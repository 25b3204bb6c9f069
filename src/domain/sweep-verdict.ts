/*
 * The sweep's verdict, from what was read: every branch of the project (the list, maybe cut at its
 * page cap), every compute of it with `last_active`, and the pull requests' states where `{pr}`
 * names them. A matching branch is stale when its last activity (the newest of its `updated_at` and
 * its computes' `last_active`) is older than `older_than`, or when its pull request is closed or
 * merged. The default branch, a protected one and a root one are never stale. A pull request that
 * could not be read is named, never guessed; so is a branch whose activity cannot be read.
 */
import { apiTime } from './api-time.js'
import { canBeQueried } from './branch-state.js'
import { type NeonId, NeonIdSchema, type ProjectCompute, type RelatedBranch } from './schemas.js'
import { matchBranch, type SweepPattern } from './sweep-pattern.js'
import { judgeTeardown } from './teardown-rules.js'

/** A pull request's state as GitHub gives it, or why it could not be read. */
export type PullRequestState = 'open' | 'closed' | 'merged' | { unreadable: string }

/** Reads the states of pull requests by number; each one that cannot be read says why. */
export type ReadPullRequests = (
  numbers: readonly number[],
  signal: AbortSignal
) => Promise<ReadonlyMap<number, PullRequestState>>

type StaleReason = 'inactive' | 'pr_closed' | 'pr_merged'

/** What the `stale` output lists of a branch: `blockers` stop a delete until dealt with. */
export interface StaleBranch {
  /** A Neon id, parsed: a recipe deletes by it. */
  id: NeonId
  name: string
  /** Its last activity (ISO 8601, UTC); null when the API gave no time that can be read. */
  last_active: string | null
  reason: StaleReason
  /** What the pre-flight of a delete would find: `children`, `restricted`. */
  blockers: ('children' | 'restricted')[]
}

/** A matching branch the sweep could not judge, and why: it is not listed as stale. */
interface UndecidedBranch {
  id: string
  name: string
  last_active: string | null
  /** `pull request #12 could not be read: HTTP 404`, `its activity cannot be read`. */
  why: string
}

export interface SweepFacts {
  branches: RelatedBranch[]
  computes: Pick<ProjectCompute, 'branch_id' | 'last_active' | 'current_state' | 'pending_state'>[]
  pattern: SweepPattern
  /** The wall clock (epoch ms): API timestamps are compared with it. */
  now: number
  olderThanMs: number
  /** By number, where `{pr}` names them and they were read; absent: only age decides. */
  pullRequests?: ReadonlyMap<number, PullRequestState>
}

export interface SweepVerdict {
  /** Newest activity first. */
  stale: StaleBranch[]
  undecided: UndecidedBranch[]
  /** How many branches match the pattern, those never stale included. */
  matched: number
}

/** Default (or `primary` in older answers), protected, or a root: never stale. */
function neverStale(branch: RelatedBranch): boolean {
  return (
    (branch.default ?? branch.primary) === true || branch.protected === true || !branch.parent_id
  )
}

/** A compute the API shows in use or changing (any state but idle, or a change pending). */
const inUse = (compute: SweepFacts['computes'][number]): boolean =>
  Boolean(compute.pending_state) || (!!compute.current_state && compute.current_state !== 'idle')

/**
 * A branch the API shows changing: not ready to query (being created or reset, a change pending,
 * or a state unknown); one with no state at all is judged by its times.
 */
const changing = (branch: RelatedBranch): boolean =>
  !canBeQueried(branch) && (branch.current_state != null || Boolean(branch.pending_state))

/**
 * The newest of the branch's `updated_at` and its computes' `last_active`; `now` while it or one of
 * its computes is in use. Undefined when there is none, or when one given cannot be read: such a branch
 * is named, never guessed stale from its other times.
 */
function lastActivity(
  branch: RelatedBranch,
  computes: SweepFacts['computes'],
  now: number
): number | undefined {
  const own = computes.filter((compute) => compute.branch_id === branch.id)
  if (changing(branch) || own.some(inUse)) return now
  const times = [branch.updated_at, ...own.map((compute) => compute.last_active)]
    .filter((text) => text !== undefined && text !== null)
    .map(apiTime)
  if (times.length === 0 || times.includes(undefined)) return undefined
  return Math.max(...(times as number[]))
}

/** Each matching branch that may be stale, with its pull request's number and its last activity. */
function candidates(facts: SweepFacts) {
  return facts.branches.flatMap((branch) => {
    const match = matchBranch(facts.pattern, branch.name)
    if (!match || neverStale(branch)) return []
    const active = lastActivity(branch, facts.computes, facts.now)
    const inactive = active !== undefined && facts.now - active > facts.olderThanMs
    // In use now outweighs its pull request: closed or merged, a recipe would delete it in use.
    const pr = active === facts.now ? undefined : match.pr
    return [{ branch, pr, active, inactive }]
  })
}

/**
 * The pull requests to read from GitHub: those `{pr}` names of matching branches that their age
 * alone does not already make stale.
 */
export function pullRequestsToRead(facts: Omit<SweepFacts, 'pullRequests'>): number[] {
  const numbers = candidates(facts).flatMap(({ pr, inactive }) =>
    pr !== undefined && !inactive ? [pr] : []
  )
  return [...new Set(numbers)].sort((a, b) => a - b)
}

/** Why a branch is stale by its pull request, or why that cannot be said; undefined: it is open. */
function byPullRequest(
  pr: number,
  state: PullRequestState | undefined
): StaleReason | { why: string } | undefined {
  if (state === 'open') return undefined
  if (state === 'closed') return 'pr_closed'
  if (state === 'merged') return 'pr_merged'
  return { why: `pull request #${pr} could not be read${state ? `: ${state.unreadable}` : ''}` }
}

/** What blocks a delete of a stale branch: its children, a restriction of deletes. */
function deleteBlockers(branch: RelatedBranch, branches: RelatedBranch[]): StaleBranch['blockers'] {
  return judgeTeardown('delete', branch, branches).blockers.flatMap((blocker) =>
    blocker.reason === 'children' || blocker.reason === 'restricted' ? [blocker.reason] : []
  )
}

/** Why a stale branch whose id a recipe could not pass safely is named, never listed. */
const NOT_A_NEON_ID =
  'its id is not a Neon id (^[a-z0-9-]{1,60}$), so it is not listed: a recipe deletes by id'

/** The sweep's verdict on every branch of `facts`. */
export function judgeSweep(facts: SweepFacts): SweepVerdict {
  const stale: { item: StaleBranch; at: number }[] = []
  const undecided: UndecidedBranch[] = []
  for (const { branch, pr, active, inactive } of candidates(facts)) {
    const last_active = active === undefined ? null : new Date(active).toISOString()
    const named = { id: branch.id, name: branch.name, last_active }
    let reason: StaleReason | { why: string } | undefined = inactive ? 'inactive' : undefined
    if (!reason && pr !== undefined && facts.pullRequests) {
      reason = byPullRequest(pr, facts.pullRequests.get(pr))
    }
    if (!reason && active === undefined) {
      reason = { why: 'its activity cannot be read (no updated_at or last_active it can read)' }
    }
    const id = NeonIdSchema.safeParse(branch.id)
    if (typeof reason === 'string' && !id.success) reason = { why: NOT_A_NEON_ID }
    if (typeof reason === 'object') undecided.push({ ...named, why: reason.why })
    if (typeof reason !== 'string' || !id.success) continue
    const item = { ...named, id: id.data, reason, blockers: deleteBlockers(branch, facts.branches) }
    stale.push({ item, at: active ?? -Infinity })
  }
  stale.sort(
    (a, b) =>
      b.at - a.at || a.item.name.localeCompare(b.item.name) || a.item.id.localeCompare(b.item.id)
  )
  const matched = facts.branches.filter((branch) => matchBranch(facts.pattern, branch.name)).length
  return { stale: stale.map(({ item }) => item), undecided, matched }
}
