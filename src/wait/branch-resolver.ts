/*
 * `branch_id` as users write it: a branch id (`br-wild-frost-123456`) or a branch name (`main`,
 * `preview/pr-12`). The gate filters operations by branch id, so a name that matches nothing would
 * make an empty gate that passes at once; the branch is resolved and checked before the first poll.
 * "No such branch" is said only after every branch of the project was read: the project answers,
 * has a branch at all, and none has that id or exactly that name, nor one set apart from it only
 * by case, spaces, quotes or separators (`Preview/PR-12` or `preview-pr-12` for `preview/pr-12`),
 * or only the last part of its name (`pr-12`): an input error that names it. A name that looks cut short (`preview/pr-`, a template whose
 * variable was empty) or unexpanded (`preview/pr-$MR_IID`) is an input error too: before a delete,
 * "no such branch" would read `gone` and skip the delete of the branch that was meant.
 */
import { ApiError, InputError } from '../domain/errors.js'
import type { BranchesReader } from '../api/resources/branches.js'
import type { Branch } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

/** Every branch id the API hands out starts with `br-`. */
const BRANCH_ID = /^br-[a-z0-9-]+$/
/** How many candidates an ambiguity error lists. */
const MAX_LISTED = 5
/** A branch name (the server's text) an error quotes is cut here. */
const MAX_NAME_CHARS = 80

const ACCEPTED = 'give a branch id (br-…) or the exact name of one branch of the project'

/**
 * `branch_id` names no branch of a project that answers and has branches, nor one near it (before
 * a delete, the teardown's goal holds).
 */
export class NoSuchBranchError extends InputError {
  override name = 'NoSuchBranchError'
}

/** What resolving reads: a branch by id, the search, and every branch of the project. */
export type ResolvingReader = Pick<BranchesReader, 'getBranch' | 'searchBranches' | 'listBranches'>

/**
 * A name or id with case, white space, quotes and separators set aside: `Preview/PR-12`,
 * `"preview-pr-12"` and `preview_pr_12` are all `previewpr12`.
 */
function loosely(text: string): string {
  return text.toLowerCase().replace(/[\s"'`/_.-]+/gu, '')
}

/**
 * A name whose end or placeholder says it was made from a template whose variable was empty or
 * never expanded: `preview/pr-`, `preview/pr-$CI_MERGE_REQUEST_IID`, `preview/pr-${{ … }}`.
 */
const UNFINISHED = /[/_.-]$|\$[A-Za-z_{]|\{\{/u

/**
 * The branch `input` names in `projectId`: an id is read directly (one request); a name, or an input
 * shaped like an id that is no branch's id (a branch may be named `br-hotfix-7`), is searched for
 * across every page of the search and must match exactly one branch's name or id. Throws an
 * InputError naming `branch_id` when it names no branch or several.
 */
export async function resolveBranch(
  reader: ResolvingReader,
  projectId: string,
  input: string
): Promise<Branch> {
  if (BRANCH_ID.test(input)) {
    try {
      return await reader.getBranch(projectId, input)
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error
    }
  }
  const found = exactly(await reader.searchBranches(projectId, input), projectId, input)
  if (found) return found
  // No exact match in the search: every branch of the project, which must answer and have some.
  const every = await reader.listBranches(projectId)
  if (every.length === 0) {
    throw new InputError(
      ({ label, mention }) =>
        `${label('project_id')}: project "${projectId}" lists no branch at all, though every project has its root branch; check ${mention('project_id')}`
    )
  }
  return exactly(every, projectId, input) ?? noSuchBranch(every, projectId, input)
}

/** The one branch with the id or exactly the name `input`; undefined when none; throws for several. */
function exactly(branches: Branch[], projectId: string, input: string): Branch | undefined {
  const byId = branches.find((branch) => branch.id === input)
  if (byId) return byId
  const byName = branches.filter((branch) => branch.name === input)
  if (byName.length <= 1) return byName[0]
  const listed = byName.slice(0, MAX_LISTED).map((branch) => branch.id)
  if (byName.length > MAX_LISTED) listed.push(`and ${byName.length - MAX_LISTED} more`)
  throw new InputError(
    ({ label }) =>
      `${label('branch_id')}: ${byName.length} branches of project "${projectId}" are named "${input}" (${listed.join(', ')}); give the branch id instead`
  )
}

/**
 * `input` names none of `every` branch of the project: an input error that names the branches set
 * apart from it only by case, spaces, quotes or separators, if any, or that says the name looks
 * unfinished; else NoSuchBranchError.
 */
function noSuchBranch(every: Branch[], projectId: string, input: string): never {
  const near = every.filter(
    (branch) =>
      loosely(branch.name) === loosely(input) ||
      loosely(branch.id) === loosely(input) ||
      // The last part of a name (`pr-42` for `preview/pr-42`): a prefix left out on one side.
      branch.name.toLowerCase().endsWith(`/${input.toLowerCase()}`)
  )
  const none = BRANCH_ID.test(input)
    ? `with the id "${input}", and none is named so`
    : `named "${input}"`
  if (near.length === 0 && UNFINISHED.test(input)) {
    throw new InputError(
      ({ label }) =>
        `${label('branch_id')}: project "${projectId}" has no branch ${none}, and the name looks unfinished (it ends in a separator, or holds a variable that was not expanded), as a name made from an empty variable does; ${ACCEPTED}`
    )
  }
  if (near.length === 0) {
    throw new NoSuchBranchError(
      ({ label }) =>
        `${label('branch_id')}: project "${projectId}" has no branch ${none}; ${ACCEPTED}`
    )
  }
  const listed = near
    .slice(0, MAX_LISTED)
    .map((branch) => `${truncate(branch.name, MAX_NAME_CHARS)} (${branch.id})`)
  if (near.length > MAX_LISTED) listed.push(`and ${near.length - MAX_LISTED} more`)
  throw new InputError(
    ({ label }) =>
      `${label('branch_id')}: project "${projectId}" has no branch ${none}, but has ${listed.join(', ')}: names are exact (case, spaces, quotes and separators count); give that name or the branch id`
  )
}
