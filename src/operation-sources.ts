import { type ApiClient, nextPageCursor } from './api-client.js'
import type { Clock } from './clock.js'
import type { Logger } from './logger.js'
import type { Operation } from './schemas.js'

/** Where the wait loop gets operations from: given ids, or the project gate. */
export interface OperationSource {
  /** Reads whatever is not final yet; `operations` then holds the last-seen state. */
  poll(): Promise<void>
  /** Every operation being waited on, in output order, as last seen. */
  readonly operations: Operation[]
}

export type OperationReader = Pick<ApiClient, 'getOperation' | 'listOperations'>
export type IsDone = (operation: Operation) => boolean

/** The operations named by `operation_id`, read one by one until each is final. */
export class OperationIdsSource implements OperationSource {
  private readonly states = new Map<string, Operation>()

  constructor(
    private readonly reader: OperationReader,
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
  }

  get operations(): Operation[] {
    return this.ids.flatMap((id) => this.states.get(id) ?? [])
  }
}

/** How far back the first read looks for operations still in flight. */
export const GATE_LOOKBACK_MS = 24 * 60 * 60 * 1000
/**
 * Page size of the first read (the live API accepts 1-1000). It reads back to the horizon anyway,
 * so large pages mean fewer requests for the same data.
 */
export const GATE_DISCOVERY_PAGE_LIMIT = 500
/** At most this many pages on the first read (10,000 operations), with a warning if reached. */
export const GATE_MAX_DISCOVERY_PAGES = 20
/** Page size of later polls, which usually need only the newest few operations. */
export const GATE_POLL_PAGE_LIMIT = 100
/** At most this many pages on each later poll; older pending operations are read by id. */
export const GATE_MAX_POLL_PAGES = 3

export interface ProjectGateOptions {
  reader: OperationReader
  projectId: string
  branchId?: string
  isDone: IsDone
  clock: Clock
  logger: Logger
}

/**
 * The project gate: every operation of the project (or of one branch) that is in flight.
 *
 * First poll: walk the list newest first back to GATE_LOOKBACK_MS (24 h) before now and keep the
 * operations that are not final. Why that is safe: the gate waits for work that was just started,
 * by this workflow or a concurrent one; the control plane finishes operations in seconds to
 * minutes, and one still in flight after a day is stuck, which a gate could only time out on.
 *
 * Later polls: read from the newest operation down to the oldest one still pending, at most
 * GATE_MAX_POLL_PAGES pages, and read any pending operation beyond that by id. The cost of a poll
 * depends on how recent the pending operations are, not on how many there are. Operations created
 * after the first poll are waited on too, even if they were already final when first seen (a failure
 * among them fails the gate).
 */
export class ProjectGateSource implements OperationSource {
  private readonly tracked = new Map<string, Operation>()
  private newestSeenAt: number | undefined
  private discovered = false

  constructor(private readonly options: ProjectGateOptions) {}

  get operations(): Operation[] {
    return [...this.tracked.values()].sort((a, b) => createdAt(b) - createdAt(a))
  }

  async poll(): Promise<void> {
    if (this.discovered) {
      await this.refresh()
    } else {
      await this.discover()
      this.discovered = true
    }
  }

  private async discover(): Promise<void> {
    const { reader, projectId, clock, logger, isDone } = this.options
    const horizon = clock.now() - GATE_LOOKBACK_MS
    let cursor: string | undefined
    for (let pages = 1; ; pages++) {
      const page = await reader.listOperations(projectId, {
        limit: GATE_DISCOVERY_PAGE_LIMIT,
        cursor
      })
      for (const operation of page.operations) {
        this.noteSeen(operation)
        const inWindow = createdAt(operation) >= horizon
        if (inWindow && this.isRelevant(operation) && !isDone(operation)) {
          this.tracked.set(operation.id, operation)
        }
      }
      const next = nextPageCursor(
        page.operations.length,
        GATE_DISCOVERY_PAGE_LIMIT,
        page.pagination,
        cursor
      )
      const last = page.operations.at(-1)
      if (next === undefined || !last || createdAt(last) < horizon) return
      if (pages >= GATE_MAX_DISCOVERY_PAGES) {
        logger.warning(
          `Project gate: looked at the newest ${pages * GATE_DISCOVERY_PAGE_LIMIT} operations only; older ones still in flight are not waited on`
        )
        return
      }
      cursor = next
    }
  }

  private async refresh(): Promise<void> {
    const { reader, projectId, isDone } = this.options
    const pending = [...this.tracked.values()].filter((operation) => !isDone(operation))
    if (pending.length === 0) return
    const oldestPendingAt = Math.min(...pending.map(createdAt))
    const discoveredUntil = this.newestSeenAt ?? -Infinity
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let pages = 1; pages <= GATE_MAX_POLL_PAGES; pages++) {
      const page = await reader.listOperations(projectId, { limit: GATE_POLL_PAGE_LIMIT, cursor })
      for (const operation of page.operations) {
        seen.add(operation.id)
        const isNew = createdAt(operation) > discoveredUntil
        if (this.tracked.has(operation.id) || (this.isRelevant(operation) && isNew)) {
          this.tracked.set(operation.id, operation)
        }
      }
      const next = nextPageCursor(
        page.operations.length,
        GATE_POLL_PAGE_LIMIT,
        page.pagination,
        cursor
      )
      const last = page.operations.at(-1)
      if (next === undefined || !last || createdAt(last) <= oldestPendingAt) break
      cursor = next
    }
    for (const operation of pending) {
      if (!seen.has(operation.id)) {
        this.tracked.set(operation.id, await reader.getOperation(projectId, operation.id))
      }
    }
  }

  private noteSeen(operation: Operation): void {
    this.newestSeenAt = Math.max(this.newestSeenAt ?? -Infinity, createdAt(operation))
  }

  private isRelevant(operation: Operation): boolean {
    return !this.options.branchId || operation.branch_id === this.options.branchId
  }
}

function createdAt(operation: Operation): number {
  const time = Date.parse(operation.created_at ?? '')
  return Number.isNaN(time) ? 0 : time
}
