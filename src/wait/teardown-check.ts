/*
 * `before`: once the whole project is idle, one fresh read of the branch and of every branch of the
 * project decides whether the branch can be deleted or reset now (domain/teardown.ts has the
 * rules). A branch that is gone passes a delete, whose goal holds; a reset of it is an input error.
 */
import { ApiError } from '../domain/errors.js'
import type { BranchesReader } from '../api/resources/branches.js'
import type { Branch, TeardownBranch } from '../domain/schemas.js'
import { judgeTeardown, type TeardownAction, type TeardownJudgement } from '../domain/teardown.js'
import { NoSuchBranchError } from './branch-resolver.js'

export type TeardownCheck =
  | {
      action: TeardownAction
      preflight: 'clear' | 'blocked'
      /** The branch as the check read it. */
      branch: TeardownBranch
      judgement: TeardownJudgement
    }
  | {
      action: 'delete'
      preflight: 'gone'
      /** The branch as `branch_id` named it, or as it was last read before it went. */
      branch: Pick<Branch, 'name'> & Partial<Branch>
    }

/** What the check reads: the branch with its restrictions, and every branch with its parent. */
export type TeardownReader = Pick<BranchesReader, 'getTeardownBranch' | 'listBranches'>

/** Before a delete, a branch that `branch_id` names no more: nothing to delete. */
export function goneBeforeDelete(branch: TeardownCheck['branch']): TeardownCheck {
  return { action: 'delete', preflight: 'gone', branch }
}

/**
 * Reads `branch` anew, then every branch of the project (every page), and judges: `blocked` when
 * the API would refuse `action` now, else `clear`; `gone` when a branch to delete no longer exists.
 * A branch to reset that no longer exists is an input error, as it is when the gate starts.
 */
export async function checkTeardown(
  action: TeardownAction,
  branch: Branch,
  { reader, projectId }: { reader: TeardownReader; projectId: string }
): Promise<TeardownCheck> {
  let fresh: TeardownBranch
  try {
    fresh = await reader.getTeardownBranch(projectId, branch.id)
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error
    if (action === 'delete') return goneBeforeDelete(branch)
    throw new NoSuchBranchError(
      ({ label }) =>
        `${label('branch_id')}: project "${projectId}" has no branch "${branch.id}" any more (${branch.name} was deleted while the gate waited); there is nothing to reset`
    )
  }
  const judgement = judgeTeardown(action, fresh, await reader.listBranches(projectId))
  return {
    action,
    preflight: judgement.blockers.length > 0 ? 'blocked' : 'clear',
    branch: fresh,
    judgement
  }
}
