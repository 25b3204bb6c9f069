/*
 * `branch_id` as users write it: a branch id (`br-wild-frost-123456`) or a branch name (`main`,
 * `preview/pr-12`). The gate filters operations by branch id, so a name that matches nothing would
 * make an empty gate that passes at once; the branch is resolved and checked before the first poll.
 */
import { ApiError, InputError } from '../domain/errors.js'
import type { BranchReader } from '../api/resources/branches.js'
import type { Branch } from '../domain/schemas.js'

/** Every branch id the API hands out starts with `br-`. */
const BRANCH_ID = /^br-[a-z0-9-]+$/
/** How many candidates an ambiguity error lists. */
const MAX_LISTED = 5

const ACCEPTED = 'give a branch id (br-…) or the exact name of one branch of the project'

/** `branch_id` names no branch of the project (before a delete, the teardown's goal holds). */
export class NoSuchBranchError extends InputError {
  override name = 'NoSuchBranchError'
}

/**
 * The branch `input` names in `projectId`: an id is read directly (one request); a name, or an input
 * shaped like an id that is no branch's id (a branch may be named `br-hotfix-7`), is searched for
 * across every page of the search and must match exactly one branch's name or id. Throws an
 * InputError naming `branch_id` when it names no branch or several.
 */
export async function resolveBranch(
  reader: BranchReader,
  projectId: string,
  input: string
): Promise<Branch> {
  const shapedLikeId = BRANCH_ID.test(input)
  if (shapedLikeId) {
    try {
      return await reader.getBranch(projectId, input)
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error
    }
  }
  const found = await reader.searchBranches(projectId, input)
  const byId = found.find((branch) => branch.id === input)
  if (byId) return byId
  const byName = found.filter((branch) => branch.name === input)
  if (byName.length === 1) return byName[0]
  if (byName.length === 0) {
    throw new NoSuchBranchError(
      ({ label }) =>
        `${label('branch_id')}: project "${projectId}" has no branch ${shapedLikeId ? `with the id "${input}", and none is named so` : `named "${input}"`}; ${ACCEPTED}`
    )
  }
  const listed = byName.slice(0, MAX_LISTED).map((branch) => branch.id)
  if (byName.length > MAX_LISTED) listed.push(`and ${byName.length - MAX_LISTED} more`)
  throw new InputError(
    ({ label }) =>
      `${label('branch_id')}: ${byName.length} branches of project "${projectId}" are named "${input}" (${listed.join(', ')}); give the branch id instead`
  )
}
