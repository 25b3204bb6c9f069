/*
 * `before`: once the whole project is idle, one fresh read of the branch and of every branch of the
 * project decides whether the branch can be deleted or reset now (domain/teardown-rules.ts has the
 * rules). A branch that is gone passes a delete, whose goal holds; a reset of it is an input error.
 * Gone means what resolving `branch_id` says (wait/branch-resolver.ts): the project answers, and
 * no branch has that id or exactly that name; a project that went (404) or hides (403) is an error.
 * While something is still in flight at the end (a timeout, or `wait: false`), the check never ran:
 * the branch is `busy`, and a teardown now would meet 423 Locked.
 */
import type { BranchesReader } from '../../api/resources/branches.js'
import { ApiError } from '../../domain/errors.js'
import type { Branch, TeardownBranch } from '../../domain/schemas.js'
import type { TeardownAction } from './teardown-action.js'
import {
  NoSuchBranchError,
  type ResolvingReader,
  resolveBranch
} from '../../wait/branch-resolver.js'
import { judgeTeardown, type TeardownJudgement } from '../../domain/teardown-rules.js'

export type TeardownCheck =
  | {
      action: TeardownAction
      preflight: 'clear' | 'blocked'
      /** The branch as the check read it. */
      branch: TeardownBranch
      judgement: TeardownJudgement
      /**
       * The branch list stopped before its end (its cap): why. A child beyond it went unseen; the
       * API refuses a delete (or a reset without `preserve_under_name`) of a branch with children,
       * so at worst the teardown is refused, never a wrong one.
       */
      unread?: string
    }
  | {
      action: 'delete'
      preflight: 'gone'
      /** The branch as `branch_id` named it, or as it was last read before it went. */
      branch: Pick<Branch, 'name'> & Partial<Branch>
    }
  | {
      action: TeardownAction
      preflight: 'busy'
      /** The branch as resolved before the wait: it was not checked. */
      branch: Branch
    }

/**
 * What the check reads: the branch with its restrictions, and every branch with its parent; what
 * resolving `branch_id` again reads when the branch went.
 */
export type TeardownReader = Pick<BranchesReader, 'getTeardownBranch'> & ResolvingReader

/** Before a delete, a branch that `branch_id` names no more: nothing to delete. */
export function goneBeforeDelete(branch: TeardownCheck['branch']): TeardownCheck {
  return { action: 'delete', preflight: 'gone', branch }
}

/**
 * Reads `branch` anew, then every branch of the project (every page), and judges: `blocked` when
 * the API would refuse `action` now, else `clear` (`unread` when the list stopped at its cap). When the branch went while the gate waited,
 * `branch_id` (`input`) is resolved again: a branch that has its name now is checked instead;
 * `gone` when it names none before a delete; an input error before a reset, as when the gate starts.
 */
export async function checkTeardown(
  action: TeardownAction,
  branch: Branch,
  { reader, projectId, input }: { reader: TeardownReader; projectId: string; input: string }
): Promise<TeardownCheck> {
  let fresh: TeardownBranch
  try {
    fresh = await reader.getTeardownBranch(projectId, branch.id)
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error
    const now = await resolvedAgain(action, branch, { reader, projectId, input })
    if (now === 'gone') return goneBeforeDelete(branch)
    fresh = await reader.getTeardownBranch(projectId, now.id)
  }
  const { branches, cut } = await reader.listBranches(projectId)
  const judgement = judgeTeardown(action, fresh, branches)
  return {
    action,
    preflight: judgement.blockers.length > 0 ? 'blocked' : 'clear',
    branch: fresh,
    judgement,
    ...(cut === undefined ? {} : { unread: cut })
  }
}

/**
 * `branch` answered 404: the branch `input` names now (another made under its name), or `gone`
 * before a delete; an error when the project itself does not answer.
 */
async function resolvedAgain(
  action: TeardownAction,
  branch: Branch,
  { reader, projectId, input }: { reader: TeardownReader; projectId: string; input: string }
): Promise<Branch | 'gone'> {
  try {
    return await resolveBranch(reader, projectId, input)
  } catch (error) {
    if (!(error instanceof NoSuchBranchError)) throw error
    if (action === 'delete') return 'gone'
    throw new NoSuchBranchError(
      ({ label }) =>
        `${label('branch_id')}: project "${projectId}" has no branch "${branch.id}" any more (${branch.name} was deleted while the gate waited); there is nothing to reset`
    )
  }
}
