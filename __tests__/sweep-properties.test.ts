/*
 * The sweep never lists the default, a protected or a root branch, whatever the branch tree (issue
 * 69), and what it lists is exactly what the contract's rule makes stale. Generated trees: roots,
 * children of any branch before them, parents no longer listed, one default (or an older answer's
 * `primary`) or none, protected branches, names that match `preview/pr-{pr}` and names that do not;
 * ages of `updated_at` and of computes' `last_active` on both sides of `older_than` and exactly at
 * it, computes active recently on old branches, computes never active, computes in use now; branch
 * states ready, archived, changing or unknown, null or absent, each with a `pending_state` or
 * without one (null, or no field); pull requests open, closed, merged, unreadable or never read;
 * ids that are Neon ids (up to exactly 60 characters) and ids that are not (61 characters, upper
 * case, a line break, a shell's characters).
 *
 * The oracle works from what the generator chose (ages as numbers, which template made the name,
 * which state each pull request has), never from the code's parse of timestamps or names: a branch
 * is stale when it matches, is none of default, protected or root, nothing of it is in use now (a
 * compute running or changing; the branch changing: a `pending_state`, or a `current_state` neither
 * `ready` nor `archived` nor absent), and its newest activity is older than `older_than`, or its
 * pull request is closed or merged; it is listed only with an id the generator made a Neon id, else
 * named. Seeds are fixed in CI; FC_SEED runs others (support/property-runs.ts).
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import type { RelatedBranch } from '../src/domain/schemas.js'
import { sweepPatternInput } from '../src/domain/sweep-pattern.js'
import { judgeSweep, type PullRequestState } from '../src/domain/sweep-verdict.js'
import { propertyRuns } from './support/property-runs.js'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const NOW = Date.parse('2026-12-01T12:00:00.000Z')
const PATTERN = sweepPatternInput.parse('preview/pr-{pr}')

/** Ages that reach both sides of `older_than` and exactly it, and far from it. */
const age = (olderThan: number) =>
  fc.oneof(
    fc.constantFrom(olderThan, olderThan - 1, olderThan + 1),
    fc.integer({ min: olderThan - MINUTE, max: olderThan + MINUTE }),
    fc.integer({ min: 0, max: DAY }),
    fc.integer({ min: 0, max: 400 * DAY })
  )

type Template = 'matching' | 'deeper' | 'other'
/**
 * How its id is made: a Neon id (`br-7`, or exactly 60 characters), or one that is not (61
 * characters, upper case, a line break, a shell's characters, a space).
 */
type IdShape = 'short' | 'sixty' | 'sixty-one' | 'upper' | 'line-break' | 'shell' | 'space'
const NEON_SHAPES: readonly IdShape[] = ['short', 'sixty']
type PrState = 'open' | 'closed' | 'merged' | 'unreadable' | 'unread'
/** A compute in use now, as the API shows it: running, or idle with a change pending. */
type ComputeUse = 'no' | 'active' | 'pending'
/**
 * The branch's `current_state`: the API's states, one the gate does not know, null, or no field.
 */
type BranchState =
  'ready' | 'archived' | 'init' | 'resetting' | 'storage_migrating' | 'null' | 'absent'
/** The branch's `pending_state`: a change on its way, null, or no field. */
type BranchPending = 'set' | 'null' | 'absent'

interface Planned {
  template: Template
  /** `root`, the index of an earlier branch, or a parent no longer listed. */
  parent: 'root' | 'gone' | number
  isDefault: 'default' | 'primary' | 'primary-overridden' | 'no'
  protected: boolean
  /** Age of `updated_at`; undefined: absent. */
  updatedAge?: number
  /** Ages of its computes' `last_active`; undefined: never active. */
  computeAges: (number | undefined)[]
  pr: PrState
  restrictDelete: boolean
  idShape: IdShape
  computeUse: ComputeUse
  branchState: BranchState
  branchPending: BranchPending
}

const plan = (olderThan: number) =>
  fc.array(
    fc.record({
      template: fc.constantFrom<Template>('matching', 'matching', 'matching', 'deeper', 'other'),
      parent: fc.oneof(
        fc.constant<'root'>('root'),
        fc.constant<'gone'>('gone'),
        fc.nat({ max: 40 }),
        fc.nat({ max: 40 })
      ),
      isDefault: fc.constantFrom('default', 'primary', 'primary-overridden', 'no', 'no', 'no'),
      protected: fc.boolean(),
      updatedAge: fc.option(age(olderThan), { nil: undefined, freq: 8 }),
      computeAges: fc.array(fc.option(age(olderThan), { nil: undefined, freq: 4 }), {
        maxLength: 3
      }),
      pr: fc.constantFrom<PrState>('open', 'closed', 'merged', 'unreadable', 'unread'),
      restrictDelete: fc.boolean(),
      computeUse: fc.constantFrom<ComputeUse>(
        'no',
        'no',
        'no',
        'no',
        'no',
        'no',
        'active',
        'pending'
      ),
      branchState: fc.constantFrom<BranchState>(
        'ready',
        'ready',
        'ready',
        'archived',
        'init',
        'resetting',
        'storage_migrating',
        'null',
        'absent'
      ),
      branchPending: fc.constantFrom<BranchPending>('absent', 'absent', 'absent', 'null', 'set'),
      idShape: fc.constantFrom<IdShape>(
        'short',
        'short',
        'short',
        'sixty',
        'sixty-one',
        'upper',
        'line-break',
        'shell',
        'space'
      )
    }),
    { minLength: 1, maxLength: 40 }
  )

const names: Record<Template, (pr: number) => string> = {
  matching: (pr) => `preview/pr-${pr}`,
  deeper: (pr) => `preview/pr-${pr}/db`,
  other: (pr) => `feature/${pr}`
}

const ids: Record<IdShape, (index: number) => string> = {
  short: (index) => `br-${index}`,
  sixty: (index) => `br-${index}-`.padEnd(60, 'z'),
  'sixty-one': (index) => `br-${index}-`.padEnd(61, 'z'),
  upper: (index) => `BR-${index}`,
  'line-break': (index) => `br-${index}\nbr-main`,
  shell: (index) => `br-${index};rm`,
  space: (index) => `br-${index} x`
}

/** The branches, computes and pull requests of a plan, as the API and GitHub would give them. */
function world(planned: Planned[]) {
  const iso = (ageMs: number) => new Date(NOW - ageMs).toISOString()
  const branches: RelatedBranch[] = planned.map((each, index) => ({
    id: ids[each.idShape](index),
    name: names[each.template](index + 1),
    parent_id:
      each.parent === 'root'
        ? undefined
        : each.parent === 'gone' || each.parent >= index
          ? 'br-deleted'
          : ids[planned[each.parent].idShape](each.parent),
    ...(each.isDefault === 'default' ? { default: true } : {}),
    ...(each.isDefault === 'primary' ? { primary: true } : {}),
    ...(each.isDefault === 'primary-overridden' ? { default: false, primary: true } : {}),
    protected: each.protected,
    updated_at: each.updatedAge === undefined ? undefined : iso(each.updatedAge),
    restricted_actions: each.restrictDelete ? [{ name: 'delete', reason: 'kept' }] : [],
    ...(each.branchState === 'absent'
      ? {}
      : { current_state: each.branchState === 'null' ? null : each.branchState }),
    ...(each.branchPending === 'absent'
      ? {}
      : { pending_state: each.branchPending === 'null' ? null : 'archived' })
  }))
  const computes = planned.flatMap((each, index) => [
    ...each.computeAges.map((ageMs) => ({
      branch_id: ids[each.idShape](index),
      last_active: ageMs === undefined ? undefined : iso(ageMs),
      current_state: 'idle'
    })),
    ...(each.computeUse === 'no'
      ? []
      : [
          {
            branch_id: ids[each.idShape](index),
            last_active: iso(60 * DAY),
            current_state: each.computeUse === 'active' ? 'active' : 'idle',
            pending_state: each.computeUse === 'pending' ? 'active' : undefined
          }
        ])
  ])
  const pullRequests = new Map<number, PullRequestState>()
  planned.forEach((each, index) => {
    if (each.pr === 'unread') return
    pullRequests.set(index + 1, each.pr === 'unreadable' ? { unreadable: 'HTTP 500' } : each.pr)
  })
  return { branches, computes, pullRequests }
}

/** The contract's rule, from the plan. */
function oracle(planned: Planned[], olderThan: number, withPullRequests: boolean) {
  return planned.map((each, index) => {
    const neverStale =
      each.isDefault === 'default' ||
      each.isDefault === 'primary' ||
      each.protected ||
      each.parent === 'root'
    // The branch changing (docs/sweep.md): a change pending, or a state that is neither ready nor
    // archived (being created, reset, or one not known); with no state at all, its times decide.
    const changing =
      each.branchPending === 'set' ||
      !['ready', 'archived', 'null', 'absent'].includes(each.branchState)
    // In use now is activity now: age 0, and its pull request does not count.
    const inUse = each.computeUse !== 'no' || changing
    const ages = inUse ? [0] : [each.updatedAge, ...each.computeAges].filter((a) => a !== undefined)
    const newest = ages.length > 0 ? Math.min(...ages) : undefined
    const inactive = newest !== undefined && newest > olderThan
    const prDone = !inUse && withPullRequests && (each.pr === 'closed' || each.pr === 'merged')
    const eligible = each.template === 'matching' && !neverStale
    const hasChild = planned.some(
      (other, at) => at > index && typeof other.parent === 'number' && other.parent === index
    )
    const staleByRule = eligible && (inactive || prDone)
    const neonId = NEON_SHAPES.includes(each.idShape)
    return { eligible, neverStale, inactive, prDone, newest, hasChild, staleByRule, neonId }
  })
}

describe('the sweep, whatever the branch tree', () => {
  it('lists exactly the stale branches, never default, protected or root, never one whose id is no Neon id, each with a reason that holds and the right blockers', () => {
    const cases = fc
      .constantFrom(7 * DAY, 36 * 60 * MINUTE, 30 * DAY)
      .chain((olderThan) => fc.tuple(fc.constant(olderThan), fc.boolean(), plan(olderThan)))
    fc.assert(
      fc.property(cases, ([olderThan, withPullRequests, planned]) => {
        const { branches, computes, pullRequests } = world(planned)
        const verdict = judgeSweep({
          branches,
          computes,
          pattern: PATTERN,
          now: NOW,
          olderThanMs: olderThan,
          pullRequests: withPullRequests ? pullRequests : undefined
        })
        const expected = oracle(planned, olderThan, withPullRequests)
        const indexOf = new Map(branches.map((branch, index) => [branch.id, index]))
        const listed = new Map(verdict.stale.map((item) => [indexOf.get(item.id), item]))
        for (const [index, truth] of expected.entries()) {
          const item = listed.get(index)
          expect([index, item !== undefined]).toEqual([index, truth.staleByRule && truth.neonId])
          if (!item) continue
          expect(truth.neverStale).toBe(false)
          if (item.reason === 'inactive') expect(truth.inactive).toBe(true)
          if (item.reason === 'pr_closed') expect(planned[index].pr).toBe('closed')
          if (item.reason === 'pr_merged') expect(planned[index].pr).toBe('merged')
          expect(item.blockers.includes('children')).toBe(truth.hasChild)
          expect(item.blockers.includes('restricted')).toBe(planned[index].restrictDelete)
          expect(item.last_active).toBe(
            truth.newest === undefined ? null : new Date(NOW - truth.newest).toISOString()
          )
        }
        // Newest activity first; unknown activity last.
        const times = verdict.stale.map((item) =>
          item.last_active === null ? -Infinity : Date.parse(item.last_active)
        )
        expect(times).toEqual([...times].sort((a, b) => b - a))
        // Not judged: never listed, and only where neither age nor the pull request decided, or
        // where they did but the id is no Neon id; each of those is named.
        const named = verdict.undecided.map((undecided) => indexOf.get(undecided.id)!)
        for (const index of named) {
          const truth = expected[index]
          expect(listed.has(index)).toBe(false)
          const undecidable = truth.eligible && !truth.inactive && !truth.prDone
          expect(undecidable || (truth.staleByRule && !truth.neonId)).toBe(true)
        }
        for (const [index, truth] of expected.entries()) {
          if (truth.staleByRule && !truth.neonId) expect(named).toContain(index)
        }
      }),
      propertyRuns(6900, 400)
    )
  })
})
