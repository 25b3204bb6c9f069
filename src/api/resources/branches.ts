/** The branches of a project: one read by id, the search, and every branch, across every page. */
import type { z } from 'zod'
import type { ApiCore } from '../api-core.js'
import { strangerIn } from '../answers.js'
import type { Logger } from '../../domain/logger.js'
import { plural } from '../../domain/phrase.js'
import { type PageWalkEnd, walkPages } from '../paging.js'
import {
  type Branch,
  type Compute,
  ComputeListSchema,
  BranchFamilyListSchema,
  BranchListSchema,
  BranchResponseSchema,
  type RelatedBranch,
  type TeardownBranch,
  TeardownBranchResponseSchema
} from '../../domain/schemas.js'

/** Branches a page of a search (the API accepts 1-10,000). */
export const BRANCH_PAGE_LIMIT = 100
/** At most this many pages of a search (5,000 branches), with a warning if reached. */
export const MAX_BRANCH_PAGES = 50

/**
 * Pages left to several walks of the branch list together (resolving a name: the search, then every
 * branch), so that their sum stays within MAX_BRANCH_PAGES; each walk takes what it reads.
 */
export interface PageBudget {
  pages: number
}

/** What the wait reads of branches: one by id, and its computes. */
export type BranchReader = Pick<BranchesReader, 'getBranch' | 'listComputes'>

/** A page of a branch list: the branches, and the next page's cursor in `pagination.next`. */
interface BranchPage<B> {
  branches: B[]
  pagination?: { next?: string | null } | null
}

/**
 * How `listBranches` reads: within a budget shared with other walks, what a cut list misses, and
 * whether least recently updated first (`sort_by=updated_at`, `sort_order=asc`): then a cut
 * leaves out the newest, not the oldest (the API lists the most recently updated first).
 */
interface ListReading {
  budget?: PageBudget
  unseen?: string
  oldestFirst?: boolean
}

/** What the walk of every page asks for beside the project: a search, an order, within a budget. */
interface BranchQuery {
  search?: string
  oldestFirst?: boolean
  budget?: PageBudget
}

/** Every branch read, and why the walk stopped short of the last page, if it did. */
export interface BranchListing {
  branches: RelatedBranch[]
  cut?: string
}

export class BranchesReader {
  constructor(
    private readonly core: ApiCore,
    private readonly logger: Logger
  ) {}

  /** One branch by id; the answer must be that branch, of that project. */
  async getBranch(projectId: string, branchId: string): Promise<Branch> {
    return this.readBranch(projectId, branchId, BranchResponseSchema)
  }

  /**
   * The same, with what decides whether it can be deleted or reset: its parent, `default`,
   * `protected` and `restricted_actions`.
   */
  async getTeardownBranch(projectId: string, branchId: string): Promise<TeardownBranch> {
    return this.readBranch(projectId, branchId, TeardownBranchResponseSchema)
  }

  /**
   * The computes of a branch, as the API lists them (one list, not paged); each must be of that
   * branch and project.
   */
  async listComputes(projectId: string, branchId: string): Promise<Compute[]> {
    const { endpoints } = await this.core.get({
      segments: ['projects', projectId, 'branches', branchId, 'endpoints'],
      schema: ComputeListSchema,
      subject: `the compute list of branch "${branchId}" of project "${projectId}"`,
      pacing: 'poll',
      mismatch: (list) =>
        list.endpoints.find((compute) => compute.branch_id && compute.branch_id !== branchId)
          ? `a compute of another branch than "${branchId}" is listed`
          : strangerIn(list.endpoints, projectId, 'compute')
    })
    return endpoints
  }

  /**
   * Every branch of the project whose name or id contains `search` (the API's own partial match),
   * across every page: the one named exactly so can be on any of them.
   */
  async searchBranches(projectId: string, search: string, budget?: PageBudget): Promise<Branch[]> {
    const { branches, end } = await this.everyBranch(projectId, BranchListSchema, {
      search,
      budget
    })
    if (end) {
      this.logger.warning(
        `Looked at the first ${branches.length} branches whose name or id contains "${search}" only (${end})`
      )
    }
    return branches
  }

  /**
   * Every branch of the project with its parent, across every page (within `budget`, when given):
   * whose parent is whose. `unseen` says what a list cut short may miss.
   */
  async listBranches(
    projectId: string,
    {
      budget,
      unseen = 'a child branch among the others is not seen',
      oldestFirst
    }: ListReading = {}
  ): Promise<BranchListing> {
    const { branches, end } = await this.everyBranch(projectId, BranchFamilyListSchema, {
      budget,
      oldestFirst
    })
    if (end) {
      this.logger.warning(
        `Read ${plural(branches.length, 'branch', 'branches')} of project "${projectId}" and stopped there (${end}): ${unseen}`
      )
    }
    return { branches, cut: end }
  }

  private async readBranch<B extends Branch>(
    projectId: string,
    branchId: string,
    schema: z.ZodType<{ branch: B }>
  ): Promise<B> {
    const { branch } = await this.core.get({
      segments: ['projects', projectId, 'branches', branchId],
      schema,
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
   * The branches of every page (those `search` matches, when given), each once however many pages
   * show it; `end` says why the walk stopped short of the last page, if it did.
   */
  private async everyBranch<B extends Branch>(
    projectId: string,
    schema: z.ZodType<BranchPage<B>>,
    { search, oldestFirst, budget = { pages: MAX_BRANCH_PAGES } }: BranchQuery
  ): Promise<{ branches: B[]; end?: string }> {
    const found = new Map<string, B>()
    const maxPages = budget.pages
    const order = oldestFirst ? { sort_by: 'updated_at', sort_order: 'asc' } : {}
    const end: PageWalkEnd = await walkPages(
      (cursor) =>
        this.core.get({
          segments: ['projects', projectId, 'branches'],
          query: { search, ...order, limit: String(BRANCH_PAGE_LIMIT), cursor },
          schema,
          subject: `the branch list of project "${projectId}"`,
          pacing: 'poll',
          mismatch: (list) => strangerIn(list.branches, projectId, 'branch')
        }),
      {
        limit: BRANCH_PAGE_LIMIT,
        maxPages,
        length: (page) => page.branches.length,
        nextCursor: (page) => page.pagination?.next,
        lastPage: 'next',
        // Pages may overlap at their edges: each branch counts once.
        onPage: (page) => {
          budget.pages--
          for (const branch of page.branches) found.set(branch.id, branch)
        }
      }
    )
    const why =
      end === 'page cap'
        ? `${maxPages} pages`
        : end === 'repeated cursor'
          ? 'the API repeated a page cursor'
          : undefined
    return { branches: [...found.values()], end: why }
  }
}
