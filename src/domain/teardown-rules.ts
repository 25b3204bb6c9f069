/*
 * Whether a branch can be deleted or reset now, as the API decides it (Neon's OpenAPI document): a
 * root or default branch cannot be deleted, nor a protected one, nor one with child branches; a
 * reset needs a parent to reset to, and `preserve_under_name` when the branch has children; an
 * action the branch lists in `restricted_actions` is refused; and a reset (the API's restore) is of
 * a branch that exists: the document describes none of a branch still being created (`init`) or
 * reset (`resetting`), whose data is not there yet. A delete of one completes once its operations
 * finish. The rules as data: the report words them.
 */
import type { RelatedBranch, RestrictedAction, TeardownBranch } from './schemas.js'

/** A change the API may refuse on a branch: the teardown's `before`, and the sweep's delete. */
export type BranchChange = 'delete' | 'reset'

/**
 * One reason the API would refuse, with what a person needs to act on it: `root`, `default`,
 * `protected`, `children`, `restricted` or `state`.
 */
export type Blocker =
  | { reason: 'root' | 'default' | 'protected' }
  | { reason: 'children'; children: RelatedBranch[] }
  | { reason: 'restricted'; restrictions: RestrictedAction[] }
  | { reason: 'state'; state: string }

export interface TeardownJudgement {
  /** At most one a reason, in the order above; none: the teardown can go ahead. */
  blockers: Blocker[]
  /** Child branches before a reset: no blocker, but the reset must keep the state under a name. */
  childrenBeforeReset: RelatedBranch[]
  /** Entries of `restricted_actions` that cover neither a delete nor a reset: listed, never blocking. */
  otherRestrictions: RestrictedAction[]
}

/**
 * Whether an entry of `restricted_actions` stops `action`. The document names `restore` and
 * `delete-rw-endpoint` as examples: a name that starts with `delete` covers a delete (deleting a
 * branch deletes its read-write endpoint); one that starts with `restore` or `reset` covers a
 * reset (the API's restore endpoint resets a branch to its parent).
 */
export function restrictionCovers(name: string, action: BranchChange): boolean {
  const restricted = name.trim().toLowerCase()
  const prefixes = action === 'delete' ? ['delete'] : ['restore', 'reset']
  return prefixes.some((prefix) => restricted.startsWith(prefix))
}

/**
 * Whether `branch` is the project's default branch: `default: true`, or in older answers, which
 * lack `default`, `primary: true`.
 */
function isDefault(branch: Pick<TeardownBranch, 'default' | 'primary'>): boolean {
  return (branch.default ?? branch.primary) === true
}

/** What would make the API refuse `action` on `branch`, given every branch of its project. */
export function judgeTeardown(
  action: BranchChange,
  branch: TeardownBranch,
  projectBranches: RelatedBranch[]
): TeardownJudgement {
  const children = projectBranches.filter(
    (other) => other.parent_id === branch.id && other.id !== branch.id
  )
  const restrictions = branch.restricted_actions ?? []
  const covering = restrictions.filter((entry) => restrictionCovers(entry.name, action))
  const blockers: Blocker[] = []
  if (!branch.parent_id) blockers.push({ reason: 'root' })
  if (action === 'delete' && isDefault(branch)) blockers.push({ reason: 'default' })
  if (branch.protected === true) blockers.push({ reason: 'protected' })
  if (action === 'delete' && children.length > 0) blockers.push({ reason: 'children', children })
  if (covering.length > 0) blockers.push({ reason: 'restricted', restrictions: covering })
  const state = branch.current_state
  // A reset starts from ready, or archived (the API brings the branch back first).
  if (action === 'reset' && state && state !== 'ready' && state !== 'archived') {
    blockers.push({ reason: 'state', state })
  }
  return {
    blockers,
    childrenBeforeReset: action === 'reset' ? children : [],
    otherRestrictions: restrictions.filter((entry) => !covering.includes(entry))
  }
}
