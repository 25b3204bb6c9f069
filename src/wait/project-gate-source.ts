import { plural } from '../domain/phrase.js'
import { type Clock, earliestWallNow } from '../domain/clock.js'
import type { Logger } from '../domain/logger.js'
import { type PageWalk, type PageWalkEnd, SERVER_STOPS } from '../api/paging.js'
import type { BranchReader } from '../api/resources/branches.js'
import { operationsEndpoint, walkOperations } from '../api/resources/operations.js'
import { ResponseFormatError } from '../domain/errors.js'
import type { Branch, Operation, OperationList } from '../domain/schemas.js'
import { apiTime, createdBefore } from '../domain/api-time.js'
import { type Finality, isUnfinished } from '../domain/operation-status.js'
import { BranchHistory } from './branch-history.js'
import { GatedBranch } from './gated-branch.js'
import { GATE_POLL_PAGE_LIMIT, LaterPolls } from './later-polls.js'
import { ProjectState, type ProjectStateReader } from './project-state.js'
import type { OperationSource, OperationsReading } from './operation-sources.js'
import { type RecentFailure, RecentOperations, warnRecentFailures } from './recent-failures.js'

/**
 * How far back the project gate's first read goes, before the newest operation it lists (the
 * operations' own clock, never the runner's or the Date header): a bound on its cost, never on the
 * verdict, since the project's state stands for what it did not read (project-state.ts). The
 * branch gate has no such bound: it reads back to its branch's history (branch-history.ts).
 */
export const GATE_LOOKBACK_MS = 24 * 60 * 60 * 1000
/**
 * Page size of the first read (the live API accepts 1-1000). It reads back to the horizon anyway,
 * so large pages mean fewer requests for the same data.
 */
export const GATE_DISCOVERY_PAGE_LIMIT = 500
/** At most this many pages on the first read (10,000 operations), with a warning if reached. */
export const GATE_MAX_DISCOVERY_PAGES = 20
/**
 * At most this many pending operations read by id in one poll, those read longest ago first; the
 * others keep their last-seen (not final) state until their turn, so a poll's cost stays bounded
 * even with thousands in flight, and nothing can pass unread.
 */
export const GATE_MAX_READS_BY_ID = 20

type OperationsWalk = Pick<PageWalk<OperationList>, 'limit' | 'maxPages' | 'lastPage'>
/**
 * The first poll's walk: a short page does not end it, since a server that caps `limit` below what
 * was asked would hide what lies past it, in flight or not. It ends on an empty page, or where the
 * gate has read far enough back.
 */
const DISCOVERY_WALK: OperationsWalk = {
  limit: GATE_DISCOVERY_PAGE_LIMIT,
  maxPages: GATE_MAX_DISCOVERY_PAGES,
  lastPage: 'empty'
}
export interface ProjectGateOptions {
  reader: OperationsReading
  projectId: string
  /** The branch the gate is narrowed to, as resolved, and how to read it and its computes. */
  branch?: { branch: Branch; reader: BranchReader }
  /** Without `branch`: how to read the project's computes and branches (project-state.ts). */
  project: ProjectStateReader
  /** Without `branch`: a branch whose state decides nothing (the one a teardown removes). */
  asideBranch?: string
  /** When an operation is over, and when it has failed for good (under `fail_fast`). */
  finality: Finality
  /**
   * The whole project gated until idle for a step's sake (the plan's `idle project`): why what ended
   * in failure before the gate started stops nothing, beside each warning.
   */
  failuresWhy?: string
  /**
   * When the gate started, on `clock.now()`: what ended just before it is judged too, on the API's
   * clock (`clock.wallNow()` once the API has answered: its Date header).
   */
  startedAt: number
  clock: Clock
  logger: Logger
}

/**
 * The project gate: every operation of the project (or of one branch) that is in flight.
 *
 * First poll: walk the list newest first and keep every operation that is not final, whatever its
 * age, `failed` included whatever `fail_fast` says (under `fail_fast` it is a final failure, never
 * "nothing in flight"). With `branch_id` the walk goes back to the branch's creation, past the
 * newest operation of each of its computes (branch-history.ts); on the whole project, to
 * GATE_LOOKBACK_MS (24 h) before the newest operation listed, on the operations' own timestamps, so
 * that no clock can hide work, and the project's computes and branches stand for the rest. What ended in failure before the gate started is judged too
 * (recent-failures.ts): on the gated branch an `error` still the newest on its compute fails the
 * gate, whatever its age; on the whole project a recent one is a warning. An operation whose
 * `created_at` cannot be read is waited on, never dropped.
 *
 * Later polls: read from the newest operation back to what earlier polls had seen, however many
 * were listed since (at most GATE_MAX_CATCH_UP_PAGES pages a poll: past that, the next poll reads
 * on from where this one stopped, and until it has the gate cannot pass), and on down to the oldest
 * one still pending (within GATE_MAX_POLL_PAGES pages); pending operations beyond that are read by id
 * (GATE_MAX_READS_BY_ID a poll). Operations never seen before are waited on too, even if they were
 * already final when first seen (a failure among them fails the gate).
 */
export class ProjectGateSource implements OperationSource {
  private readonly tracked = new Map<string, Operation>()
  /** What the lists have shown, and how later polls read them back (later-polls.ts). */
  private readonly laterPolls: LaterPolls
  /** The poll in which a pending operation was last read by id. */
  private readonly readByIdAt = new Map<string, number>()
  completedPolls = 0
  private warnedUnreadableTime = false
  /** The branch the gate is narrowed to (gated-branch.ts), read anew once its operations are final. */
  private readonly gated?: GatedBranch
  /** With `branch_id`: how far back the first read goes, and what stands for the rest. */
  private history?: BranchHistory
  /** Without `branch_id`: what stands for what the first read did not reach. */
  private readonly projectState?: ProjectState
  recentFailures: RecentFailure[] = []

  constructor(private readonly options: ProjectGateOptions) {
    const { reader, projectId, logger } = options
    if (options.branch) {
      const { branch, reader: branches } = options.branch
      this.gated = new GatedBranch(branch, () => branches.getBranch(projectId, branch.id), logger)
    } else this.projectState = new ProjectState(projectId, options.project, options.asideBranch)
    this.laterPolls = new LaterPolls(
      (cursor) => reader.listOperations(projectId, { limit: GATE_POLL_PAGE_LIMIT, cursor }),
      logger
    )
  }

  get behind(): string | undefined {
    return this.laterPolls.behind ?? this.history?.unsettled ?? this.projectState?.unsettled
  }

  get historyNotJudged(): string | undefined {
    return this.history?.notJudged ?? this.projectState?.notJudged
  }

  /** The branch as last read: its `current_state` decides, once its operations are final. */
  get branch(): Branch | undefined {
    return this.gated?.branch
  }

  get operations(): Operation[] {
    return [...this.tracked.values()].sort((a, b) => sortTime(b) - sortTime(a) || 0)
  }

  async poll(): Promise<void> {
    if (this.completedPolls === 0) await this.discover()
    else await this.refresh()
    await this.readState()
    this.completedPolls++
  }

  /**
   * The state read anew in every poll that finds the operations final and none failed for good:
   * the gated branch and its computes whose history was not read, or, on the whole project, what
   * its read did not reach. A final failure is the verdict already, which no state could change.
   */
  private async readState(): Promise<void> {
    const { isDone, hasFailed } = this.options.finality
    const tracked = [...this.tracked.values()]
    if (tracked.some((operation) => !isDone(operation) || hasFailed(operation))) return
    await this.gated?.read(this.completedPolls === 0)
    await this.history?.readAgain()
    await this.projectState?.readAgain()
  }

  private async discover(): Promise<void> {
    const history = (this.history = await this.branchHistory())
    const read = { newest: -Infinity, oldest: Infinity }
    const relevant: Operation[] = []
    const { reader, projectId } = this.options
    const readPage = (cursor?: string) =>
      reader.listOperations(projectId, { limit: DISCOVERY_WALK.limit, cursor })
    const end = await walkOperations(readPage, {
      ...DISCOVERY_WALK,
      onPage: (page) => {
        history?.page(page.operations)
        this.projectState?.page(page.operations)
        for (const operation of page.operations) {
          this.laterPolls.note(operation, 0)
          const time = this.createdAt(operation)
          if (time !== undefined) {
            read.newest = Math.max(read.newest, time)
            read.oldest = Math.min(read.oldest, time)
          }
          if (!this.isRelevant(operation)) continue
          relevant.push(operation)
          if (isUnfinished(operation.status)) this.tracked.set(operation.id, operation)
        }
        if (history) return !history.complete
        return !createdBefore(page.operations.at(-1), read.newest - GATE_LOOKBACK_MS)
      }
    })
    // Measured once the answers have set the API's clock: a runner ahead of it would age them all.
    const recent = new RecentOperations(this.startedOnApiClock())
    for (const operation of relevant) recent.add(operation)
    this.judgeRecentFailures(recent)
    const unjudged = history?.ended(end, this.laterPolls.listedCount, read.oldest)
    if (unjudged) throw new ResponseFormatError(operationsEndpoint(projectId), unjudged)
    if (!this.projectState) return
    this.laterPolls.horizon = read.newest - GATE_LOOKBACK_MS
    this.projectState.ended(end)
    this.warnStoppedShort(end, read)
  }

  /** With `branch_id`: its computes, as the API lists them, before the first read. */
  private async branchHistory(): Promise<BranchHistory | undefined> {
    if (!this.options.branch) return undefined
    const { projectId, logger } = this.options
    const { branch, reader } = this.options.branch
    const readComputes = () => reader.listComputes(projectId, branch.id)
    return new BranchHistory(branch, await readComputes(), readComputes, logger)
  }

  /** The first read of the whole project, stopped short of its 24 h by the API or the page cap. */
  private warnStoppedShort(end: PageWalkEnd, read: { newest: number; oldest: number }): void {
    const { logger } = this.options
    const stop = SERVER_STOPS[end]
    if (stop) {
      return logger.warning(
        `Project gate: the API's list of operations stopped at ${stop}; the project's computes and branches stand for what lies past it`
      )
    }
    if (end !== 'page cap') return
    const span =
      read.oldest <= read.newest
        ? `, created from ${new Date(read.oldest).toISOString()} to ${new Date(read.newest).toISOString()}`
        : ''
    logger.warning(
      `Project gate: read ${plural(this.laterPolls.listedCount, 'operation')} in ${GATE_MAX_DISCOVERY_PAGES} pages${span}, and stopped there (the page cap); older ones, up to ${GATE_LOOKBACK_MS / 3_600_000} h before the newest, were not read: the project's computes and branches stand for them, each idle or ready with nothing pending`
    )
  }

  /**
   * When the gate started, on the API's clock (its first answer's Date header has set it), or the
   * runner's where that is earlier and they disagree (`earliestWallNow`: a Date header ahead hides
   * no recent failure and ages none): the window of what ended before it is measured from there
   * (warnings only, never a verdict).
   */
  private startedOnApiClock(): number {
    const { clock } = this.options
    return earliestWallNow(clock) - (clock.now() - this.options.startedAt)
  }

  /** Recent failures: those that fail the gate are waited on (they end it), the rest warned about. */
  private judgeRecentFailures(recent: RecentOperations): void {
    const { branch, clock } = this.options
    this.recentFailures = recent.failures(branch !== undefined, !!clock.disagreementMs?.())
    for (const { operation, failsGate } of this.recentFailures) {
      if (failsGate) this.tracked.set(operation.id, operation)
    }
    const { logger, failuresWhy } = this.options
    warnRecentFailures(this.recentFailures, logger, failuresWhy)
  }

  /**
   * A later poll: from the top back to what earlier polls had seen, and on where an earlier poll
   * stopped at its page cap (later-polls.ts); pending operations no page showed are read by id.
   * With nothing pending it still reads the top (there is a poll only while the branch keeps the
   * gate open): an operation started meanwhile keeps the gate open too.
   */
  private async refresh(): Promise<void> {
    const { reader, projectId, finality } = this.options
    const pending = [...this.tracked.values()].filter((operation) => !finality.isDone(operation))
    const times = pending.map((operation) => this.createdAt(operation))
    const oldestPendingAt = times.includes(undefined)
      ? -Infinity
      : Math.min(Infinity, ...(times as number[]))
    const listed = new Set<string>()
    await this.laterPolls.read(this.completedPolls, oldestPendingAt, (operation, isNew) => {
      listed.add(operation.id)
      if (this.tracked.has(operation.id) || (isNew && this.isRelevant(operation))) {
        this.tracked.set(operation.id, operation)
      }
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

/** Newest first; an operation whose time cannot be read sorts as the newest. */
function sortTime(operation: Operation): number {
  return apiTime(operation.created_at) ?? Infinity
}
