/** The branches of a project: one read by id, and the search, across every page. */
import { type ApiCore, strangerIn } from '../api-core.js'
import type { Logger } from '../../domain/logger.js'
import { walkPages } from '../paging.js'
import { type Branch, BranchListSchema, BranchResponseSchema } from '../../domain/schemas.js'

/** Branches a page of a search (the API accepts 1-10,000). */
export const BRANCH_PAGE_LIMIT = 100
/** At most this many pages of a search (5,000 branches), with a warning if reached. */
export const MAX_BRANCH_PAGES = 50

/** What the wait reads of branches: one by id, and the search. */
export type BranchReader = Pick<BranchesReader, 'getBranch' | 'searchBranches'>

export class BranchesReader {
  constructor(
    private readonly core: ApiCore,
    private readonly logger: Logger
  ) {}

  /** One branch by id; the answer must be that branch, of that project. */
  async getBranch(projectId: string, branchId: string): Promise<Branch> {
    const { branch } = await this.core.get({
      segments: ['projects', projectId, 'branches', branchId],
      schema: BranchResponseSchema,
      subject: `branch "${branchId}" of project "${projectId}"`,
      pacing: 'poll',
      mismatch: ({ branch }) =>
        branch.id !== branchId
          ? `the answer is branch "${branch.id}", not the one asked for`
          : strangerIn([branch], projectId, 'branch')
    })
    return branch
  }

  /**
   * Every branch of the project whose name or id contains `search` (the API's own partial match),
   * across every page: the one named exactly so can be on any of them.
   */
  async searchBranches(projectId: string, search: string): Promise<Branch[]> {
    const found = new Map<string, Branch>()
    const end = await walkPages(
      (cursor) =>
        this.core.get({
          segments: ['projects', projectId, 'branches'],
          query: { search, limit: String(BRANCH_PAGE_LIMIT), cursor },
          schema: BranchListSchema,
          subject: `the branches of project "${projectId}"`,
          pacing: 'poll',
          mismatch: (list) => strangerIn(list.branches, projectId, 'branch')
        }),
      {
        limit: BRANCH_PAGE_LIMIT,
        maxPages: MAX_BRANCH_PAGES,
        length: (page) => page.branches.length,
        nextCursor: (page) => page.pagination?.next,
        shortPageIsLast: false,
        // Pages may overlap at their edges: each branch counts once.
        onPage: (page) => {
          for (const branch of page.branches) found.set(branch.id, branch)
        }
      }
    )
    if (end === 'page cap' || end === 'repeated cursor') {
      this.logger.warning(
        `Looked at the first ${found.size} branches whose name or id contains "${search}" only (${end === 'page cap' ? `${MAX_BRANCH_PAGES} pages` : 'the API repeated a page cursor'})`
      )
    }
    return [...found.values()]
  }
}
