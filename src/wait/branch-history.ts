/*
 * How far back the branch gate's first read goes, and what stands for what it did not reach. No age
 * decides a verdict: the read goes on until it has seen the newest operation of every compute of
 * the branch (as the API lists them), however old, and back to the branch's creation, so that its
 * actions without a compute are judged too. Where the page cap (or the list's end) comes first,
 * history gives way to state, never to a guess: a compute whose history was not read keeps the gate
 * open until the API shows it idle or active with nothing pending, and the branch's own state
 * stands for the rest (gated-branch.ts). A notice says how far back the read went.
 */
import { apiTime, createdBefore } from '../domain/api-time.js'
import { computeSettled } from '../domain/branch-state.js'
import type { PageWalkEnd } from '../api/paging.js'
import type { Logger } from '../domain/logger.js'
import { plural } from '../domain/phrase.js'
import type { Branch, Compute, Operation } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

/** The ends of the first read short of the list's end, as the notice says them. */
const STOPPED_SHORT: Partial<Record<PageWalkEnd, string>> = {
  'page cap': 'the page cap',
  'repeated cursor': 'a page cursor handed out twice'
}

export class BranchHistory {
  /** The branch's computes whose newest operation the read has not reached yet, by id. */
  private readonly unseen = new Map<string, Compute>()
  private readonly createdAt: number | undefined
  private reachedCreation = false
  /** Set when the first read stopped short of the branch's history: how far back it went. */
  notJudged?: string

  constructor(
    private readonly branch: Branch,
    computes: Compute[],
    private readonly readComputes: () => Promise<Compute[]>,
    private readonly logger: Logger
  ) {
    for (const compute of computes) this.unseen.set(compute.id, compute)
    this.createdAt = apiTime(branch.created_at)
  }

  /** The next operation of the list, newest first (any branch's: the list is the project's). */
  note(operation: Operation): void {
    if (operation.branch_id === this.branch.id && operation.endpoint_id) {
      this.unseen.delete(operation.endpoint_id)
    }
    if (this.createdAt !== undefined && createdBefore(operation, this.createdAt)) {
      this.reachedCreation = true
    }
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
   * Where it stopped short of the list's end (the page cap, or a cursor handed out twice) before
   * the branch's history, says how far back it went.
   */
  ended(end: PageWalkEnd, read: number, oldest: number): void {
    const stop = STOPPED_SHORT[end]
    if (!stop || this.complete) return
    const back = Number.isFinite(oldest) ? `, back to ${new Date(oldest).toISOString()}` : ''
    const creation = this.branch.created_at
      ? ` (created ${truncate(this.branch.created_at, 40)})`
      : ''
    const computes = [...this.unseen.keys()].map((id) => truncate(id, 80))
    const standing =
      computes.length > 0
        ? `the own state of ${plural(computes.length, 'compute')} whose operations it did not reach (${computes.join(', ')}) and the branch's stand for it`
        : "the branch's own state stands for it"
    this.notJudged = `Branch gate: read ${plural(read, 'operation')}${back}, and stopped there (${stop}), short of the branch's creation${creation}: its older history was not judged; ${standing}`
    this.logger.notice(this.notJudged)
  }

  /** Reads anew the computes whose history was not read, while one keeps the gate open. */
  async readAgain(): Promise<void> {
    if (!this.unsettled) return
    const computes = new Map((await this.readComputes()).map((compute) => [compute.id, compute]))
    for (const id of this.unseen.keys()) {
      const compute = computes.get(id)
      // A compute no longer listed is gone: nothing of it can keep the gate open.
      if (compute) this.unseen.set(id, compute)
      else this.unseen.delete(id)
    }
  }

  /**
   * Why the gate cannot pass yet: a compute whose history was not read that the API does not show
   * idle or active with nothing pending.
   */
  get unsettled(): string | undefined {
    const open = [...this.unseen.values()].find((compute) => !computeSettled(compute))
    if (!open) return undefined
    const state = truncate(open.current_state ?? 'of no state', 40)
    const pending = open.pending_state ? `, pending ${truncate(open.pending_state, 40)}` : ''
    return `compute ${truncate(open.id, 80)} of the branch is ${state}${pending}, and its operations were not read: the gate waits until it is idle or active with nothing pending`
  }
}
