/*
 * Where the wait loop gets operations from: the operations named by `operation_id`, here, and the
 * project gate (project-gate-source.ts).
 */
import type { OperationsReader } from '../api/resources/operations.js'
import type { Branch, Operation } from '../domain/schemas.js'
import type { RecentFailure } from './recent-failures.js'

/** Where the wait loop gets operations from: given ids, or the project gate. */
export interface OperationSource {
  /** Reads whatever is not final yet; `operations` then holds the last-seen state. */
  poll(): Promise<void>
  /** Every operation being waited on, in output order, as last seen. */
  readonly operations: Operation[]
  /** Polls that read everything they meant to; 0 means the state is unknown. */
  readonly completedPolls: number
  /**
   * The gated branch as last read, when the gate is narrowed to one: once every operation is final,
   * the gate stays open while it cannot be queried.
   */
  readonly branch?: Branch
  /** What had ended in failure just before the gate started (the project gate only). */
  readonly recentFailures?: RecentFailure[]
  /**
   * Set while part of the list is still unread (the project gate: a poll stopped at its page cap
   * before it got back to what earlier polls had seen): the gate cannot pass; says why.
   */
  readonly behind?: string
  /**
   * The branch gate's first read stopped at its page cap, short of the branch's creation: how far
   * back it went, and that the older history was not judged; or the project gate's state check
   * stopped at the branch list's cap.
   */
  readonly historyNotJudged?: string
}

/** What the wait reads of operations: one by id, and the list. */
export type OperationsReading = Pick<OperationsReader, 'getOperation' | 'listOperations'>
export type IsDone = (operation: Operation) => boolean

/** The operations named by `operation_id`, read one by one until each is final. */
export class OperationIdsSource implements OperationSource {
  private readonly states = new Map<string, Operation>()
  completedPolls = 0

  constructor(
    private readonly reader: OperationsReading,
    private readonly projectId: string,
    private readonly ids: string[],
    private readonly isDone: IsDone
  ) {}

  async poll(): Promise<void> {
    for (const id of this.ids) {
      const known = this.states.get(id)
      if (known && this.isDone(known)) continue
      this.states.set(id, await this.reader.getOperation(this.projectId, id))
    }
    this.completedPolls++
  }

  get operations(): Operation[] {
    return this.ids.flatMap((id) => this.states.get(id) ?? [])
  }
}
