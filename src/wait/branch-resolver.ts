/*
 * `branch_id` as users write it: a branch id (`br-wild-frost-123456`) or a branch name (`main`,
 * `preview/pr-12`). The gate filters operations by branch id, so a name that matches nothing would
 * make an empty gate that passes at once; the branch is resolved and checked before the first poll.
 * "No such branch" is said only after every branch of the project was read: the project answers,
 * has a branch at all, and none has that id or exactly that name, nor one near it (near-branch.ts:
 * `Preview/PR-12`, `team/preview/pr-12`, `preview/12` for `preview/pr-12`): an input error that
 * names it. A name that looks cut short (`preview/pr-`, a template whose variable was empty), unexpanded
 * (`preview/pr-$MR_IID`, `preview/pr-%CI_MR%`) or made of an empty value (`preview/pr-undefined`)
 * is an input error too: before a delete, "no such branch" would read `gone` and skip the delete
 * of the branch that was meant.
 */
import { ApiError, InputError } from '../domain/errors.js'
import { type BranchesReader, MAX_BRANCH_PAGES } from '../api/resources/branches.js'
import type { Branch } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'
import { nearBranches } from './near-branch.js'

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

/** A separator at either end: `preview/pr-${N}` or `${ENV}/pr-12` with N or ENV empty. */
const LOOSE_END = /^[/\\_.\p{Dash}]|[/\\_.\p{Dash}]$/u

/** A variable a shell, a CI system or a template left as text, not expanded. */
const UNEXPANDED = [
  /\$?\{\{.*?(?:\}\}|$)/u, // an expression or a template: `${{ github.event.number }}`, `{{ .N }}`
  /\$\[\[.*?(?:\]\]|$)/u, // a GitLab CI/CD component input: `$[[ inputs.mr ]]`
  /\$\{.*?(?:\}|$)/u, // `${MR}`
  /\$\(.*?(?:\)|$)/u, // an Azure Pipelines macro: `$(PR)`
  /\$(?:\w+|$)/u, // `$MR`, or a `$` at the end
  /%\w+%/u // cmd.exe, GitLab's Windows runners: `%CI_MR%`
]

/**
 * What a language or a template writes for an empty value: a word at either end of the name
 * (`preview/pr-undefined`; not `fix-null-check`), or a form no name holds (Go's `<no value>`).
 */
const EMPTY_WORD = '(?:undefined|null|None|nil|NaN)'
const EMPTY_VALUE = [
  /<nil>|<no value>|\(null\)|\[object Object\]/u,
  new RegExp(`^${EMPTY_WORD}(?![A-Za-z0-9])|(?<![A-Za-z0-9])${EMPTY_WORD}$`, 'u')
]

/** Why `input` looks unfinished, naming what was found; undefined when it does not. */
function unfinished(input: string): string | undefined {
  const name = input.normalize('NFKC')
  const firstMatch = (patterns: RegExp[]) =>
    patterns.map((pattern) => pattern.exec(name)?.[0]).find((text) => text !== undefined)
  const variable = firstMatch(UNEXPANDED)
  if (variable !== undefined) return `it holds "${variable}", a variable that was not expanded`
  const empty = firstMatch(EMPTY_VALUE)
  if (empty !== undefined) return `it holds "${empty}", what a template writes for an empty value`
  const end = LOOSE_END.exec(name)
  if (!end) return undefined
  return end.index === 0 ? `it starts with "${end[0]}"` : `it ends in "${end[0]}"`
}

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
  // The search and the whole list share one page cap: a name not found costs at most that.
  const budget = { pages: MAX_BRANCH_PAGES }
  const found = exactly(await reader.searchBranches(projectId, input, budget), projectId, input)
  if (found) return found
  if (budget.pages === 0) {
    throw new InputError(
      ({ label }) =>
        `${label('branch_id')}: project "${projectId}" has more branches whose name or id contains "${input}" than ${MAX_BRANCH_PAGES} pages hold, none of those read named so; give the branch id`
    )
  }
  // No exact match in the search: every branch of the project, which must answer and have some.
  const unseen = `a branch named "${input}" among the others is not seen`
  const { branches: every, cut } = await reader.listBranches(projectId, { budget, unseen })
  if (every.length === 0) {
    throw new InputError(
      ({ label, mention }) =>
        `${label('project_id')}: project "${projectId}" lists no branch at all, though every project has its root branch; check ${mention('project_id')}`
    )
  }
  return exactly(every, projectId, input) ?? noSuchBranch(every, projectId, input, cut)
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
 * `input` names none of `every` branch read: an input error that names the branches near it, if any,
 * or that says why the name looks unfinished, or, when the list was `cut` short, that the rest was
 * not read (never "no such branch", which before a delete reads `gone`); else NoSuchBranchError.
 */
function noSuchBranch(every: Branch[], projectId: string, input: string, cut?: string): never {
  const near = nearBranches(every, input)
  const none = BRANCH_ID.test(input)
    ? `with the id "${input}", and none is named so`
    : `named "${input}"`
  const why = near.length === 0 ? unfinished(input) : undefined
  if (why !== undefined) {
    throw new InputError(
      ({ label }) =>
        `${label('branch_id')}: project "${projectId}" has no branch ${none}, and the name looks unfinished (${why}), as a name made from an empty or unexpanded variable does; ${ACCEPTED}`
    )
  }
  if (near.length === 0 && cut !== undefined) {
    throw new InputError(
      ({ label }) =>
        `${label('branch_id')}: no branch ${none} among the ${every.length} branches of project "${projectId}" read before the list stopped (${cut}); the others were not read, so give the branch id`
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
      `${label('branch_id')}: project "${projectId}" has no branch ${none}, but has ${listed.join(', ')}: names are exact but for spaces around them (case, spaces within, quotes and separators count); give that name or the branch id`
  )
}
