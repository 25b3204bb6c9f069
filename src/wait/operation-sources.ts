import { branchReadiness } from '../domain/branch-state.js'
import { branchStatePhrase, phraseText, plural } from '../domain/phrase.js'
import type { Clock } from '../domain/clock.js'
import type { Logger } from '../domain/logger.js'
import { type PageWalk, type PageWalkEnd, walkPages } from '../api/paging.js'
import type { BranchReader } from '../api/resources/branches.js'
import { operationsCursor, type OperationsReader } from '../api/resources/operations.js'
import type { Branch, Operation, OperationList } from '../domain/schemas.js'
import type { TeardownAction } from '../domain/teardown.js'
import { truncate } from '../domain/untrusted-text.js'
import { apiTime } from '../domain/api-time.js'
import { isUnfinished } from '../domain/operation-status.js'
import { type RecentFailure, RecentOperations, warnRecentFailures } from './recent-failures.js'

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
/**
 * At most this many pending operations read by id in one poll, those read longest ago first; the
 * others keep their last-seen (not final) state until their turn, so a poll's cost stays bounded
 * even with thousands in flight, and nothing can pass unread.
 */
export const GATE_MAX_READS_BY_ID = 20

type OperationsWalk = Pick<PageWalk<OperationList>, 'limit' | 'maxPages' | 'shortPageIsLast'>
/**
 * The first poll's walk: a short page does not end it, since a server that caps `limit` below what
 * was asked would hide what lies past it, in flight or not. It ends on an empty page or at the
 * horizon.
 */
const DISCOVERY_WALK: OperationsWalk = {
  limit: GATE_DISCOVERY_PAGE_LIMIT,
  maxPages: GATE_MAX_DISCOVERY_PAGES,
  shortPageIsLast: false
}
/** Later polls' walk: the newest few operations, a short page the last. */
const POLL_WALK: OperationsWalk = {
  limit: GATE_POLL_PAGE_LIMIT,
  maxPages: GATE_MAX_POLL_PAGES,
  shortPageIsLast: true
}

export interface ProjectGateOptions {
  reader: OperationsReading
  projectId: string
  /** The branch the gate is narrowed to, as resolved, and how to read it again. */
  branch?: { branch: Branch; reader: Pick<BranchReader, 'getBranch'> }
  isDone: IsDone
  /**
   * Before a teardown (`before`): the whole project is gated for the branch's sake, and what ended
   * in failure before the gate started is only warned about, worded so.
   */
  teardown?: TeardownAction
  /** When the gate started (wall clock, epoch ms): what ended just before it is judged too. */
  startedAt: number
  clock: Clock
  logger: Logger
}

/**
 * The project gate: every operation of the project (or of one branch) that is in flight.
 *
 * First poll: walk the list newest first back to GATE_LOOKBACK_MS (24 h) before now and keep the
 * operations that are not final, `failed` included whatever `fail_fast` says (under `fail_fast` it
 * is a final failure, never "nothing in flight"). What ended in failure in the 15 minutes before
 * the gate started is judged too (recent-failures.ts): on the gated branch an `error` fails the
 * gate; elsewhere it is a warning. Why the 24 h are safe: the gate waits for work that was just started,
 * by this workflow or a concurrent one; the control plane finishes operations in seconds to
 * minutes, and one still in flight after a day is stuck, which a gate could only time out on. An
 * operation whose `created_at` cannot be read counts as recent: it is waited on, never dropped.
 *
 * Later polls: read from the newest operation down to the oldest one still pending, at most
 * GATE_MAX_POLL_PAGES pages, and read pending operations beyond that by id (GATE_MAX_READS_BY_ID a
 * poll). Operations never seen before are waited on too, even if they were already final when first
 * seen (a failure among them fails the gate).
 */
export class ProjectGateSource implements OperationSource {
  private readonly tracked = new Map<string, Operation>()
  /** Every operation id any list has shown; one not in it is new. */
  private readonly seen = new Set<string>()
  /** The poll in which a pending operation was last read by id. */
  private readonly readByIdAt = new Map<string, number>()
  completedPolls = 0
  private warnedUnreadableTime = false
  /** The branch as last read: its `current_state` decides, once its operations are final. */
  branch?: Branch
  private readonly warnedBranchStates = new Set<string>()
  recentFailures: RecentFailure[] = []

  constructor(private readonly options: ProjectGateOptions) {
    this.branch = options.branch?.branch
  }

  get operations(): Operation[] {
    return [...this.tracked.values()].sort((a, b) => sortTime(b) - sortTime(a) || 0)
  }

  async poll(): Promise<void> {
    if (this.completedPolls === 0) await this.discover()
    else await this.refresh()
    await this.readBranch()
    this.completedPolls++
  }

  /**
   * Whether the branch can be queried, read anew in every poll that finds its operations final (only
   * with `branch_id`): what was read at resolution or before its operations ran says nothing of now.
   */
  private async readBranch(): Promise<void> {
    const gated = this.options.branch
    if (!gated || [...this.tracked.values()].some((operation) => !this.options.isDone(operation))) {
      return
    }
    const previous = this.branch && branchStateText(this.branch)
    this.branch = await gated.reader.getBranch(this.options.projectId, gated.branch.id)
    const state = branchStateText(this.branch)
    const readiness = branchReadiness(this.branch)
    const name = `Branch ${truncate(this.branch.name, 80)} (${this.branch.id})`
    if (readiness === 'archived') {
      this.options.logger.warning(`${name} is archived: its first queries will be slow`)
    } else if (readiness === 'unknown' && !this.warnedBranchStates.has(state)) {
      this.warnedBranchStates.add(state)
      this.options.logger.warning(
        `${name} is in an unknown state, ${state}; waiting until it is ready`
      )
    } else if (state !== previous || this.completedPolls === 0) {
      this.options.logger.info(`${name} is ${state}`)
    }
  }

  private async discover(): Promise<void> {
    const { clock, logger, startedAt } = this.options
    // The API's timestamps are wall-clock time.
    const horizon = clock.wallNow() - GATE_LOOKBACK_MS
    const read = { newest: -Infinity, oldest: Infinity }
    const recent = new RecentOperations(startedAt)
    const end = await this.walkOperations(DISCOVERY_WALK, (page) => {
      for (const operation of page.operations) {
        this.seen.add(operation.id)
        const time = this.createdAt(operation)
        if (time !== undefined) {
          read.newest = Math.max(read.newest, time)
          read.oldest = Math.min(read.oldest, time)
        }
        if (!this.isRelevant(operation)) continue
        recent.add(operation)
        const inWindow = time === undefined || time >= horizon
        if (inWindow && isUnfinished(operation.status)) this.tracked.set(operation.id, operation)
      }
      return !isOlderThan(page.operations.at(-1), horizon)
    })
    this.judgeRecentFailures(recent)
    if (end === 'page cap') {
      const span =
        read.oldest <= read.newest
          ? `, created from ${new Date(read.oldest).toISOString()} to ${new Date(read.newest).toISOString()}`
          : ''
      logger.warning(
        `Project gate: read ${plural(this.seen.size, 'operation')} in ${GATE_MAX_DISCOVERY_PAGES} pages${span}, and stopped there (the page cap); older ones, back to ${GATE_LOOKBACK_MS / 3_600_000} h ago, were not read, and any still in flight among them is not waited on`
      )
    } else if (end === 'repeated cursor') {
      logger.warning('Project gate: the API handed out a page cursor it had given before')
    }
  }

  /** Recent failures: those that fail the gate are waited on (they end it), the rest warned about. */
  private judgeRecentFailures(recent: RecentOperations): void {
    this.recentFailures = recent.failures(this.options.branch !== undefined)
    for (const { operation, failsGate } of this.recentFailures) {
      if (failsGate) this.tracked.set(operation.id, operation)
    }
    const { startedAt, logger, teardown } = this.options
    warnRecentFailures(this.recentFailures, startedAt, logger, teardown)
  }

  /**
   * A later poll. With nothing pending it still reads the newest page (there is a poll only while
   * the branch keeps the gate open): an operation started meanwhile, on a branch not ready yet,
   * keeps the gate open too.
   */
  private async refresh(): Promise<void> {
    const { reader, projectId, isDone } = this.options
    const pending = [...this.tracked.values()].filter((operation) => !isDone(operation))
    const times = pending.map((operation) => this.createdAt(operation))
    const oldestPendingAt = times.includes(undefined)
      ? -Infinity
      : Math.min(Infinity, ...(times as number[]))
    const listed = new Set<string>()
    await this.walkOperations(POLL_WALK, (page) => {
      for (const operation of page.operations) {
        listed.add(operation.id)
        const isNew = !this.seen.has(operation.id)
        this.seen.add(operation.id)
        if (this.tracked.has(operation.id) || (isNew && this.isRelevant(operation))) {
          this.tracked.set(operation.id, operation)
        }
      }
      const last = page.operations.at(-1)
      return !(last && isOlderThan(last, oldestPendingAt + 1))
    })
    const unlisted = pending
      .filter((operation) => !listed.has(operation.id))
      .sort((a, b) => (this.readByIdAt.get(a.id) ?? 0) - (this.readByIdAt.get(b.id) ?? 0))
      .slice(0, GATE_MAX_READS_BY_ID)
    for (const operation of unlisted) {
      this.readByIdAt.set(operation.id, this.completedPolls)
      this.tracked.set(operation.id, await reader.getOperation(projectId, operation.id))
    }
  }

  /** The operations list, newest first, `limit` a page; `onPage` returns false to stop. */
  private walkOperations(
    walk: OperationsWalk,
    onPage: (page: OperationList) => boolean
  ): Promise<PageWalkEnd> {
    const { reader, projectId } = this.options
    const { limit } = walk
    return walkPages((cursor) => reader.listOperations(projectId, { limit, cursor }), {
      ...walk,
      length: (page) => page.operations.length,
      nextCursor: operationsCursor,
      onPage
    })
  }

  private isRelevant(operation: Operation): boolean {
    const branchId = this.options.branch?.branch.id
    return !branchId || operation.branch_id === branchId
  }

  /** The creation time, or undefined (warned about once) when the API's text cannot be read. */
  private createdAt(operation: Operation): number | undefined {
    const time = apiTime(operation.created_at)
    if (time === undefined && !this.warnedUnreadableTime) {
      this.warnedUnreadableTime = true
      this.options.logger.warning(
        `Project gate: operation ${operation.id} has no readable created_at ("${operation.created_at ?? ''}"); such operations count as recent and are waited on`
      )
    }
    return time
  }
}

/** Whether the operation was created before `time`; false when its time cannot be read. */
function isOlderThan(operation: Operation | undefined, time: number): boolean {
  const created = apiTime(operation?.created_at)
  return created !== undefined && created < time
}

/** Newest first; an operation whose time cannot be read sorts as the newest. */
function sortTime(operation: Operation): number {
  return apiTime(operation.created_at) ?? Infinity
}

function branchStateText(branch: Branch): string {
  return phraseText(branchStatePhrase(branch))
}
