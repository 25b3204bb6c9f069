/*
 * How the project gate's later polls read the operations list (newest first): from the top back to
 * what earlier polls had already seen, however many operations were listed since, so that a burst
 * elsewhere in the project cannot push a new operation of the gated branch out of sight. A poll
 * that stops before it gets there (at its page cap, or where the API gave no cursor to go on or one
 * it had given before) leaves a stretch unread: the next poll reads on from where it stopped, and
 * until every such stretch is read the gate cannot pass.
 */
import { apiTime, createdBefore } from '../domain/api-time.js'
import type { Logger } from '../domain/logger.js'
import { plural } from '../domain/phrase.js'
import type { Operation, OperationList } from '../domain/schemas.js'
import { type PageWalkEnd, SERVER_STOPS } from '../api/paging.js'
import { operationsCursor, walkOperations } from '../api/resources/operations.js'

/** Page size of later polls, which usually need only the newest few operations. */
export const GATE_POLL_PAGE_LIMIT = 100
/** At most this many pages on each later poll down to the oldest pending operation; older ones are read by id. */
export const GATE_MAX_POLL_PAGES = 3
/**
 * At most this many pages a poll to read back to what earlier polls had seen (1,000 operations
 * listed since); past that, the next poll reads on from where this one stopped.
 */
export const GATE_MAX_CATCH_UP_PAGES = 10

/**
 * A stretch of the list to read: from `cursor` (the top when absent) down to what had been seen
 * before it (an operation listed before poll `since`, the one that began reading it, or one created
 * before `seenAt`). What that poll and later ones listed of it is not that: read on from `cursor`, a
 * page may start with the last operation of the page before it.
 */
interface Stretch {
  cursor?: string
  seenAt: number
  since: number
}

/** A stretch a poll stopped in, and why. */
interface UnreadStretch extends Stretch {
  end: PageWalkEnd
}

/** What the project gate does with each operation a later poll lists: `isNew` when no list had. */
type OnListed = (operation: Operation, isNew: boolean) => void

export class LaterPolls {
  /** The poll in which a list first showed each operation. */
  private readonly firstListedIn = new Map<string, number>()
  /** The newest creation time any list has shown. */
  private newestListedAt = -Infinity
  /** Stretches a poll stopped in short of what had been seen, newest first: read on by the next poll. */
  private unread: UnreadStretch[] = []
  /** The first read's horizon: no later read needs to go further back. */
  horizon = -Infinity

  constructor(
    private readonly readPage: (cursor: string | undefined) => Promise<OperationList>,
    private readonly logger: Logger
  ) {}

  /** How many operations the lists have shown. */
  get listedCount(): number {
    return this.firstListedIn.size
  }

  /** Why the gate cannot pass yet, while a stretch of the list is unread. */
  get behind(): string | undefined {
    const [stretch] = this.unread
    if (!stretch) return undefined
    return `the operations list is not read back to what an earlier poll had seen: ${stoppedBy(stretch.end)}`
  }

  /** Notes that poll number `poll` listed `operation`; whether no list had before. */
  note(operation: Operation, poll: number): boolean {
    this.newestListedAt = Math.max(this.newestListedAt, apiTime(operation.created_at) ?? -Infinity)
    if (this.firstListedIn.has(operation.id)) return false
    this.firstListedIn.set(operation.id, poll)
    return true
  }

  /**
   * Poll number `poll` (not the first): from the top back to what earlier polls had seen, and on
   * down to `oldestPendingAt` (within GATE_MAX_POLL_PAGES pages); then on where an earlier poll
   * stopped, GATE_MAX_CATCH_UP_PAGES pages in all. `onListed` gets every operation listed.
   */
  async read(poll: number, oldestPendingAt: number, onListed: OnListed): Promise<void> {
    const stretches: Stretch[] = [{ seenAt: this.newestListedAt, since: poll }, ...this.unread]
    this.unread = []
    let pagesLeft = GATE_MAX_CATCH_UP_PAGES
    for (const [index, stretch] of stretches.entries()) {
      const fromTop = index === 0
      const { pages, read, stopped } = await this.readStretch(stretch, pagesLeft, {
        poll,
        oldestPendingAt: fromTop ? oldestPendingAt : Infinity,
        onListed
      })
      pagesLeft -= pages
      if (!stopped) continue
      this.unread.push({ ...stopped, seenAt: stretch.seenAt, since: stretch.since })
      if (fromTop) this.warnStopped(read, pages, stopped.end)
    }
  }

  /**
   * Reads `stretch` until a page gets back to what had been seen before this poll (an operation an
   * earlier poll listed, or one created before `seenAt` or the first read's horizon), and on down
   * to `oldestPendingAt` (within GATE_MAX_POLL_PAGES pages, a short page the last), at most
   * `maxPages` pages. When it stopped short of what had been seen, `stopped` says where to read on
   * (the page that gave no cursor, again) and why.
   */
  private async readStretch(
    stretch: Stretch,
    maxPages: number,
    {
      poll,
      oldestPendingAt,
      onListed
    }: { poll: number; oldestPendingAt: number; onListed: OnListed }
  ): Promise<{ pages: number; read: number; stopped?: Pick<UnreadStretch, 'cursor' | 'end'> }> {
    if (maxPages === 0)
      return { pages: 0, read: 0, stopped: { cursor: stretch.cursor, end: 'page cap' } }
    const seenAt = Math.max(stretch.seenAt, this.horizon)
    let pages = 0
    let read = 0
    let reached = false
    let cursor = stretch.cursor
    let asked = stretch.cursor
    const listedBefore = (operation: Operation) =>
      (this.firstListedIn.get(operation.id) ?? poll) < stretch.since
    const end = await walkOperations((next) => this.readPage((asked = next ?? stretch.cursor)), {
      limit: GATE_POLL_PAGE_LIMIT,
      maxPages,
      // Only getting back ends the read: a server that caps `limit` must not hide an operation.
      lastPage: 'empty',
      onPage: (page) => {
        const { operations } = page
        pages++
        read += operations.length
        cursor = operationsCursor(page) || asked
        const last = operations.at(-1)
        reached ||= operations.some(listedBefore) || createdBefore(last, seenAt)
        for (const operation of operations) onListed(operation, this.note(operation, poll))
        const pendingRead =
          pages >= GATE_MAX_POLL_PAGES ||
          operations.length < GATE_POLL_PAGE_LIMIT ||
          createdBefore(last, oldestPendingAt + 1)
        return !(reached && pendingRead)
      }
    })
    // An empty page is the list's end: nothing older is left to reach.
    const cut = !reached && end !== 'last page'
    return cut ? { pages, read, stopped: { cursor, end } } : { pages, read }
  }

  private warnStopped(read: number, pages: number, end: PageWalkEnd): void {
    const where = SERVER_STOPS[end] ?? 'the page cap'
    this.logger.warning(
      `Project gate: read ${plural(read, 'operation')} listed since the previous poll in ${plural(pages, 'page')}, stopped at ${where} short of those it had seen; the next poll reads on, and the gate cannot pass till then`
    )
  }
}

/** Why a poll stopped short of what had been seen, as `behind` says it. */
function stoppedBy(end: PageWalkEnd): string {
  return end === 'page cap'
    ? `more were listed since than ${GATE_MAX_CATCH_UP_PAGES} pages of ${GATE_POLL_PAGE_LIMIT} a poll read`
    : `the API stopped the read at ${SERVER_STOPS[end]}`
}
