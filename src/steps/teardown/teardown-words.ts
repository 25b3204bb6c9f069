/*
 * What the report says of the check before a teardown (`before`), once: whether the branch can be
 * deleted or reset now, what blocks it and what to do about it, what is only worth a warning or a
 * notice, and the `blockers` output (its section of the summary is teardown-section.ts).
 */
import { classifyStatus } from '../../domain/operation-status.js'
import { capitalized, type Phrase, phraseText, plural } from '../../domain/phrase.js'
import type { Operation, RelatedBranch, RestrictedAction } from '../../domain/schemas.js'
import type { TeardownAction } from './teardown-action.js'
import type { TeardownCheck } from './teardown-check.js'
import type { Blocker } from '../../domain/teardown-rules.js'
import { truncate } from '../../domain/untrusted-text.js'

/** Child branches a line names, then a count. */
const NAMED_CHILDREN = 10
/** Restrictions a line names, then a count. */
const NAMED_RESTRICTIONS = 5
/** Failures while the gate waited warned about one by one; the summary's table has them all. */
const MAX_FAILURE_WARNINGS = 5

const DONE: Record<TeardownAction, string> = { delete: 'deleted', reset: 'reset' }

/** Why a child the cut branch list did not show cannot make the teardown a wrong one. */
const UNREAD_CHILDREN: Record<TeardownAction, string> = {
  delete:
    'the API refuses to delete a branch that has children, so at worst the delete is refused, never a wrong one',
  reset:
    'the API refuses to reset a branch that has children without preserve_under_name, so at worst the reset is refused'
}

/** `preview/pr-7 (br-preview-pr-7)`, or the name alone when that is all there is. */
function branchNamed(branch: { name: string; id?: string }): Phrase {
  const id: Phrase = branch.id && branch.id !== branch.name ? [' (', { code: branch.id }, ')'] : []
  return [{ code: branch.name }, ...id]
}

/** The first few items, joined with `joint`, and how many more there are. */
function listed<T>(items: T[], named: number, joint: string, item: (value: T) => Phrase): Phrase {
  const phrase: Phrase = []
  items.slice(0, named).forEach((value, index) => {
    if (index > 0) phrase.push(joint)
    phrase.push(...item(value))
  })
  if (items.length > named) phrase.push(`${joint}and ${items.length - named} more`)
  return phrase
}

/** `preview/a (br-a), preview/b (br-b), and 3 more` */
function childrenList(children: RelatedBranch[]): Phrase {
  return listed(children, NAMED_CHILDREN, ', ', branchNamed)
}

/** `delete-rw-endpoint: “used by an integration”; restore: …` */
function restrictionsList(restrictions: RestrictedAction[]): Phrase {
  return listed(restrictions, NAMED_RESTRICTIONS, '; ', (entry) => [
    { code: entry.name },
    ...(entry.reason ? [': ', { quote: entry.reason }] : [])
  ])
}

/** What one blocker is, and what a person can do about it. */
function blockerPhrase(blocker: Blocker, action: TeardownAction): Phrase {
  switch (blocker.reason) {
    case 'root':
      return action === 'delete'
        ? ['it is a root branch (it has no parent_id), which the API does not delete']
        : ['it is a root branch (it has no parent_id): there is no parent to reset it to']
    case 'default':
      return ["it is the project's default branch; make another branch the default first"]
    case 'protected':
      return ['it is protected; remove its protection first']
    case 'children':
      return [
        `it has ${plural(blocker.children.length, 'child branch', 'child branches')}, to delete first: `,
        ...childrenList(blocker.children)
      ]
    case 'restricted':
      return [
        `its restricted_actions refuse a ${action}: `,
        ...restrictionsList(blocker.restrictions)
      ]
    case 'state':
      return [
        'it is ',
        { code: truncate(blocker.state, 40) },
        ", not ready: Neon's API resets (restores) a branch once it is ready, not while it is still being created or reset; wait until it is ready, then reset it"
      ]
  }
}

/**
 * The check in one line: `branch preview/pr-7 (br-…) cannot be deleted: it is protected; …`, `… can
 * be deleted now: nothing blocks it`, `branch preview/pr-7 is gone: nothing to delete`, or that it
 * was not checked, because work was still in flight (`busy`).
 */
export function teardownPhrase(check: TeardownCheck): Phrase {
  const branch = ['branch ', ...branchNamed(check.branch)]
  if (check.preflight === 'gone') return [...branch, ' is gone: nothing to delete']
  if (check.preflight === 'busy') {
    return [
      ...branch,
      ` was not checked: the project still has work in flight, so a ${check.action} now would meet 423 Locked`
    ]
  }
  const done = DONE[check.action]
  if (check.preflight === 'clear') return [...branch, ` can be ${done} now: nothing blocks it`]
  return [
    ...branch,
    ` cannot be ${done}: `,
    ...listed(check.judgement.blockers, Infinity, '; ', (blocker) =>
      blockerPhrase(blocker, check.action)
    )
  ]
}

/** Each blocker's reason, and what it is and what to do about it; none when nothing blocks. */
export function blockerDetails(check: TeardownCheck): { reason: string; detail: Phrase }[] {
  if (check.preflight === 'gone' || check.preflight === 'busy') return []
  return check.judgement.blockers.map((blocker) => ({
    reason: blocker.reason,
    detail: blockerPhrase(blocker, check.action)
  }))
}

/** The `blockers` output: `{reason, detail}` for each, `[]` when nothing blocks the branch. */
export function blockersOutput(check: TeardownCheck): { reason: string; detail: string }[] {
  return blockerDetails(check).map(({ reason, detail }) => ({ reason, detail: phraseText(detail) }))
}

/**
 * What is worth a warning or a notice beside the outcome: child branches before a reset (it must
 * keep the current state under another name), and restrictions that stop neither action; a branch
 * gone (a notice), or not checked while work was in flight (a warning: a teardown now meets 423).
 */
export function teardownNotes(check: TeardownCheck): { warnings: Phrase[]; notices: Phrase[] } {
  if (check.preflight === 'gone') return { warnings: [], notices: [teardownPhrase(check)] }
  if (check.preflight === 'busy') {
    const wayOut = `; let the gate wait until the project is idle, or retry the ${check.action} on 423`
    return { warnings: [[...capitalized(teardownPhrase(check)), wayOut]], notices: [] }
  }
  const branch = ['Branch ', ...branchNamed(check.branch)]
  const { childrenBeforeReset: children, otherRestrictions } = check.judgement
  const warnings: Phrase[] = []
  if (check.unread !== undefined && check.preflight === 'clear') {
    warnings.push([
      ...branch,
      `: the project's branch list stopped (${check.unread}) before its end, so its children among the branches beyond it were not read; `,
      UNREAD_CHILDREN[check.action]
    ])
  }
  if (children.length > 0) {
    warnings.push([
      ...branch,
      ` has ${plural(children.length, 'child branch', 'child branches')} (`,
      ...childrenList(children),
      '): the reset must keep its current state under another name (preserve_under_name), where the children move'
    ])
  }
  const notices: Phrase[] = []
  if (otherRestrictions.length > 0) {
    notices.push([
      ...branch,
      ` lists restricted actions that do not stop a ${check.action}: `,
      ...restrictionsList(otherRestrictions)
    ])
  }
  return { warnings, notices }
}

/**
 * Before a teardown the gate waits for the project to be idle, not for its operations to succeed:
 * a warning for each that ended in failure while it waited (the first few, then a count).
 */
export function failedWhileIdling(operations: Operation[], action: TeardownAction): Phrase[] {
  const failed = operations.filter((operation) => classifyStatus(operation.status) === 'failure')
  const warnings = failed
    .slice(0, MAX_FAILURE_WARNINGS)
    .map((operation): Phrase => [
      'Ended in failure while the gate waited: ',
      { code: operation.action ?? 'operation' },
      ' ',
      { code: operation.id },
      ' on ',
      { code: operation.branch_id ?? 'its branch' },
      ', ',
      { code: operation.status },
      ...(operation.error ? [': ', { quote: operation.error }] : []),
      `; before a ${action}, a failure is no reason to stop`
    ])
  if (failed.length > MAX_FAILURE_WARNINGS) {
    warnings.push([
      `… and ${plural(failed.length - MAX_FAILURE_WARNINGS, 'more operation')} ended in failure while the gate waited; the summary lists them`
    ])
  }
  return warnings
}
