/*
 * How far back the branch gate's first read goes, and what stands for what it did not reach. No age
 * decides a verdict: the read goes on until it has seen the newest operation of every compute of
 * the branch (as the API lists them), however old, and back to the branch's creation, so that its
 * actions without a compute are judged too. Where the page cap (or the list's end) comes first,
 * history gives way to state, never to a guess: a compute whose history was not read keeps the gate
 * open until the API shows it idle or active with nothing pending, and the branch's own state
 * stands for the rest (gated-branch.ts). A notice says how far back the read went. Where the API
 * stops the read first (a cursor handed out twice, a page without one), that history could not be
 * read at all, so the gate cannot judge the branch: an error, never a pass on state.
 */
import { apiTime, createdBefore, newerThanPageEnd } from '../domain/api-time.js'
import { computeSettled } from '../domain/branch-state.js'
import { type PageWalkEnd, SERVER_STOPS } from '../api/paging.js'
import type { Logger } from '../domain/logger.js'
import { plural } from '../domain/phrase.js'
import type { Branch, Compute, Operation } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

export class BranchHistory {
  /** The branch's computes as the API last listed them, by id. */
  private readonly computes = new Map<string, Compute>()
  /** The computes of which the read has listed no operation yet. */
  private readonly unseen = new Set<string>()
  /**
   * The computes whose newest operation the read surely listed: one on its first page, newer than
   * that page's end. The next page holds only operations older than that end, so one tied with it
   * may be on neither page.
   */
  private readonly newestListed = new Set<string>()
  private readonly createdAt: number | undefined
  private reachedCreation = false
  private pages = 0
  /** Set when the first read stopped short of the branch's history: how far back it went. */
  notJudged?: string

  constructor(
    private readonly branch: Branch,
    computes: Compute[],
    private readonly readComputes: () => Promise<Compute[]>,
    private readonly logger: Logger
  ) {
    for (const compute of computes) {
      this.computes.set(compute.id, compute)
      this.unseen.add(compute.id)
    }
    this.createdAt = apiTime(branch.created_at)
  }

  /** The next page of the list, newest first (any branch's operations: the list is the project's). */
  page(operations: Operation[]): void {
    if (this.pages++ === 0) {
      for (const id of this.ownComputes(newerThanPageEnd(operations))) this.newestListed.add(id)
    }
    for (const id of this.ownComputes(operations)) this.unseen.delete(id)
    const createdAt = this.createdAt
    if (createdAt !== undefined && operations.some((each) => createdBefore(each, createdAt))) {
      this.reachedCreation = true
    }
  }

  /** The computes of the branch that `operations` act on. */
  private ownComputes(operations: Operation[]): string[] {
    return operations.flatMap(({ branch_id, endpoint_id }) =>
      branch_id === this.branch.id && endpoint_id ? [endpoint_id] : []
    )
  }

  /**
   * Whether the read has got back to the branch's creation (before it, the branch has no operation:
   * a compute still unseen has none listed), or, when its creation time cannot be read, to the
   * newest operation of every compute.
   */
  get complete(): boolean {
    return this.reachedCreation || (this.createdAt === undefined && this.unseen.size === 0)
  }

  /**
   * After the first read: `end` says why it stopped, `oldest` is the oldest creation time it read.
   * Where it stopped at the page cap before the branch's history, says how far back it went. Where
   * the API stopped it there, returns why the history cannot be judged.
   */
  ended(end: PageWalkEnd, read: number, oldest: number): string | undefined {
    const serverStop = SERVER_STOPS[end]
    if ((end !== 'page cap' && !serverStop) || this.complete) return undefined
    const back = Number.isFinite(oldest) ? `, back to ${new Date(oldest).toISOString()}` : ''
    const creation = this.branch.created_at
      ? ` (created ${truncate(this.branch.created_at, 40)})`
      : ''
    const where = `read ${plural(read, 'operation')}${back}, and stopped there (${serverStop ?? 'the page cap'}), short of the branch's creation${creation}`
    if (serverStop) {
      return `the branch gate ${where}: its older history cannot be judged, and the gate does not pass on what it could not read`
    }
    const computes = [...this.unseen].map((id) => truncate(id, 80))
    const standing =
      computes.length > 0
        ? `the own state of ${plural(computes.length, 'compute')} whose operations it did not reach (${computes.join(', ')}) and the branch's stand for it`
        : "the branch's own state stands for it"
    this.notJudged = `Branch gate: ${where}: its older history was not judged; ${standing}`
    this.logger.notice(this.notJudged)
    return undefined
  }

  /** Reads anew the computes whose state decides, while one keeps the gate open. */
  async readAgain(): Promise<void> {
    if (!this.unsettled) return
    const computes = new Map((await this.readComputes()).map((compute) => [compute.id, compute]))
    for (const id of this.computes.keys()) {
      const compute = computes.get(id)
      // A compute no longer listed is gone: nothing of it can keep the gate open.
      if (compute) this.computes.set(id, compute)
      else this.computes.delete(id)
    }
  }

  /**
   * Why the gate cannot pass yet: a compute whose newest operation the read did not surely list
   * that the API does not show idle or active with nothing pending.
   */
  get unsettled(): string | undefined {
    const open = [...this.computes.values()].find(
      (compute) => !this.newestListed.has(compute.id) && !computeSettled(compute)
    )
    if (!open) return undefined
    const state = truncate(open.current_state ?? 'of no state', 40)
    const pending = open.pending_state ? `, pending ${truncate(open.pending_state, 40)}` : ''
    const read = this.unseen.has(open.id)
      ? 'its operations were not read'
      : "the list may not show its newest operation (tied in time with a page's end)"
    return `compute ${truncate(open.id, 80)} of the branch is ${state}${pending}, and ${read}: the gate waits until it is idle or active with nothing pending`
  }
}
