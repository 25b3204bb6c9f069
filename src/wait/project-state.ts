/*
 * What stands for the project gate's history beyond its first read. That read goes back 24 h before
 * the newest operation listed (a bound on its cost, not on the verdict). Where it stopped short of
 * the list's end, or read more than one page (an operation tied with a page's last one may be on
 * neither page), the project's own state decides for what it may not have read, never its age: a
 * compute whose operations the read did not reach keeps the gate open until the API shows it idle
 * or active with nothing pending, and a branch keeps it open until it is ready (or archived) with
 * nothing pending. Work in flight for days shows there, whatever its operation's age.
 */
import type { PageWalkEnd } from '../api/paging.js'
import { newerThanPageEnd } from '../domain/api-time.js'
import { canBeQueried, computeSettled } from '../domain/branch-state.js'
import { branchStatePhrase, phraseText, plural } from '../domain/phrase.js'
import type { BranchListing } from '../api/resources/branches.js'
import type { Operation, ProjectCompute } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

/** What the state is read from: every compute of the project, and every branch. */
export interface ProjectStateReader {
  listProjectComputes(projectId: string): Promise<ProjectCompute[]>
  listBranches(projectId: string, reading: { unseen: string }): Promise<BranchListing>
}

export class ProjectState {
  /** The computes whose newest operation the first read surely reached: their history decides. */
  private readonly reached = new Set<Operation['endpoint_id']>()
  private firstPage: Operation[] = []
  private pages = 0
  /** Set by `ended`, before the first read anew: whether the state decides what the read missed. */
  private stateDecides?: boolean
  private read = false
  /** Why the gate cannot pass yet, from the state last read. */
  unsettled?: string
  /** Set when the branch list stopped at its cap: what the state check did not judge. */
  notJudged?: string

  /** `aside`: a branch whose state and computes decide nothing (the one a teardown is about to remove). */
  constructor(
    private readonly projectId: string,
    private readonly reader: ProjectStateReader,
    private readonly aside?: string
  ) {}

  /** The next page of the first read. */
  page(operations: Operation[]): void {
    if (this.pages++ === 0) this.firstPage = operations
  }

  /**
   * After the first read, `end` saying why it stopped. Read whole on one page, its history decides
   * every compute; otherwise only the computes of the first page's operations newer than its end.
   */
  ended(end: PageWalkEnd): void {
    const whole = end === 'last page' && this.pages === 1
    this.stateDecides = !whole
    for (const operation of whole ? this.firstPage : newerThanPageEnd(this.firstPage)) {
      this.reached.add(operation.endpoint_id)
    }
  }

  /**
   * Reads the state anew, once the operations read are final: the first time, and then while it
   * keeps the gate open. Nothing to read when the first read was the whole list, on one page.
   */
  async readAgain(): Promise<void> {
    if (!this.stateDecides || (this.read && !this.unsettled)) return
    this.read = true
    const computes = await this.reader.listProjectComputes(this.projectId)
    const compute = computes.find(
      (each) => each.branch_id !== this.aside && !this.reached.has(each.id) && !computeSettled(each)
    )
    if (compute) {
      const state = truncate(compute.current_state ?? 'of no state', 40)
      const pending = compute.pending_state
        ? `, pending ${truncate(compute.pending_state, 40)}`
        : ''
      this.unsettled = `compute ${truncate(compute.id, 80)} is ${state}${pending}, and its operations were older than the read: the gate waits until it is idle or active with nothing pending`
      return
    }
    const { branches, cut } = await this.reader.listBranches(this.projectId, {
      unseen: "branches beyond it are not judged: the project gate's state check covers those read"
    })
    this.notJudged = cut
      ? `Project gate: its state check read ${plural(branches.length, 'branch', 'branches')} and stopped there (${cut}): a branch beyond them still changing was not judged`
      : undefined
    const branch = branches.find((each) => each.id !== this.aside && !canBeQueried(each))
    this.unsettled = branch
      ? `branch ${truncate(branch.name, 80)} (${truncate(branch.id, 80)}) is ${phraseText(branchStatePhrase(branch))}, and the read of operations did not reach what it is doing: the gate waits until it is ready with nothing pending`
      : undefined
  }
}
