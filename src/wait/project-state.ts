/*
 * What stands for the project gate's history beyond its first read. That read goes back 24 h before
 * the newest operation listed (a bound on its cost, not on the verdict). Where it stopped short of
 * the list's end, the project's own state decides for what it did not read, never its age: a
 * compute whose operations the read did not reach keeps the gate open until the API shows it idle
 * or active with nothing pending, and a branch keeps it open until it is ready (or archived) with
 * nothing pending. Work in flight for days shows there, whatever its operation's age.
 */
import { canBeQueried, computeSettled } from '../domain/branch-state.js'
import { branchStatePhrase, phraseText } from '../domain/phrase.js'
import type { BranchListing } from '../api/resources/branches.js'
import type { Operation, ProjectCompute } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

/** What the state is read from: every compute of the project, and every branch. */
export interface ProjectStateReader {
  listProjectComputes(projectId: string): Promise<ProjectCompute[]>
  listBranches(projectId: string, reading: { unseen: string }): Promise<BranchListing>
}

/** What a cut branch list leaves out of the project's state. */
const UNSEEN = "branches beyond it are not judged: the project gate's state check covers those read"

export class ProjectState {
  /** The computes whose newest operation the first read reached: their history decides. */
  private readonly reached = new Set<Operation['endpoint_id']>()
  /** Set by `ended`, before the first read anew. */
  private shortOfEnd?: boolean
  private read = false
  /** Why the gate cannot pass yet, from the state last read. */
  unsettled?: string

  constructor(
    private readonly projectId: string,
    private readonly reader: ProjectStateReader
  ) {}

  /** The next operation of the first read. */
  note(operation: Operation): void {
    this.reached.add(operation.endpoint_id)
  }

  /** After the first read: whether it stopped before the list's end (at its 24 h, or its cap). */
  ended(shortOfEnd: boolean): void {
    this.shortOfEnd = shortOfEnd
  }

  /**
   * Reads the state anew, once the operations read are final: the first time, and then while it
   * keeps the gate open. Nothing to read when the first read got to the list's end.
   */
  async readAgain(): Promise<void> {
    if (!this.shortOfEnd || (this.read && !this.unsettled)) return
    this.read = true
    const computes = await this.reader.listProjectComputes(this.projectId)
    const compute = computes.find((each) => !this.reached.has(each.id) && !computeSettled(each))
    if (compute) {
      const state = truncate(compute.current_state ?? 'of no state', 40)
      const pending = compute.pending_state
        ? `, pending ${truncate(compute.pending_state, 40)}`
        : ''
      this.unsettled = `compute ${truncate(compute.id, 80)} is ${state}${pending}, and its operations were older than the read: the gate waits until it is idle or active with nothing pending`
      return
    }
    const { branches } = await this.reader.listBranches(this.projectId, { unseen: UNSEEN })
    const branch = branches.find((each) => !canBeQueried(each))
    this.unsettled = branch
      ? `branch ${truncate(branch.name, 80)} (${truncate(branch.id, 80)}) is ${phraseText(branchStatePhrase(branch))}, and the read of operations did not reach what it is doing: the gate waits until it is ready with nothing pending`
      : undefined
  }
}
