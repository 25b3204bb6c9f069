/*
 * How the project gate's later polls read the list (later-polls.ts), rule by rule: back to what
 * earlier polls had seen, by id or by time; at most GATE_MAX_CATCH_UP_PAGES pages a poll, the rest
 * read on by the next polls, newest stretch first; a warning when a poll stops short from the top.
 * The same through the project gate is in operation-sources.test.ts, and over the local API server
 * on simulated time in simulated/project-gate.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import type { Operation, OperationList } from '../src/domain/schemas.js'
import {
  GATE_MAX_CATCH_UP_PAGES,
  GATE_POLL_PAGE_LIMIT,
  LaterPolls
} from '../src/wait/later-polls.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'

const T0 = Date.parse('2026-11-21T12:00:00Z')
const DAY = 24 * 60 * 60 * 1000
const iso = (ms: number) => new Date(ms).toISOString()

/** The operations list over an in-memory history, newest first, paged by `created_at` as the API. */
class History {
  readonly calls: string[] = []
  private operations: Operation[] = []

  /** `repeats`: a page starts with the last operation of the page before (`created_at <= cursor`). */
  constructor(private readonly repeats = false) {}

  /** An operation created `atMs` after T0. */
  add(atMs: number, fields: Partial<Operation> = {}): Operation {
    const op = operation({ status: 'finished', created_at: iso(T0 + atMs), ...fields })
    this.operations.push(op)
    return op
  }

  /** `count` operations one ms apart, the newest `atMs` after T0. */
  burst(count: number, atMs: number): Operation[] {
    return Array.from({ length: count }, (_, i) => this.add(atMs - i))
  }

  readPage = async (cursor: string | undefined): Promise<OperationList> => {
    this.calls.push(cursor ?? 'top')
    this.operations.sort((a, b) => Date.parse(b.created_at!) - Date.parse(a.created_at!))
    const older = cursor
      ? this.operations.filter((op) =>
          this.repeats
            ? Date.parse(op.created_at!) <= Date.parse(cursor)
            : Date.parse(op.created_at!) < Date.parse(cursor)
        )
      : this.operations
    const page = older
      .slice(0, GATE_POLL_PAGE_LIMIT)
      .map((op) => ({ ...op, created_at: op.created_at! }))
    return { operations: page, pagination: { cursor: page.at(-1)?.created_at ?? cursor } }
  }
}

/** Pages as given, one a call whatever the cursor (the last repeats), each with `cursor`. */
function scripted(pages: Operation[][], cursor: (call: number) => string = (call) => `c${call}`) {
  const calls: string[] = []
  const readPage = async (asked: string | undefined): Promise<OperationList> => {
    calls.push(asked ?? 'top')
    const page = pages[Math.min(calls.length - 1, pages.length - 1)]
    return {
      operations: page.map((op) => ({ ...op, created_at: op.created_at as string })),
      pagination: { cursor: cursor(calls.length) }
    }
  }
  return { calls, readPage }
}

function laterPolls(readPage: (cursor: string | undefined) => Promise<OperationList>) {
  const { logger, lines } = collectingLogger()
  return { polls: new LaterPolls(readPage, logger), lines }
}

/** Poll number `poll`: the ids it listed. */
async function read(
  polls: LaterPolls,
  poll: number,
  oldestPendingAt = Infinity
): Promise<string[]> {
  const listed: string[] = []
  await polls.read(poll, oldestPendingAt, (op) => listed.push(op.id))
  return listed
}

describe('LaterPolls: back to what earlier polls had seen', () => {
  it('with nothing seen and no first read, a later poll reads to the end of the list', async () => {
    const history = new History()
    history.burst(150, 0)
    const { polls } = laterPolls(history.readPage)
    expect(await read(polls, 1)).toHaveLength(150)
    // A full page, a short one (not the end while nothing seen is reached), then the empty one.
    expect(history.calls).toHaveLength(3)
    expect(polls.behind).toBeUndefined()
  })

  it('by time: past an operation older than the newest seen, the read ends, even when what was seen is gone', async () => {
    const history = new History()
    const { polls } = laterPolls(history.readPage)
    polls.horizon = T0 - DAY
    // Seen by the first read, and no longer listed: a readable one, and one whose time is not.
    polls.note(operation({ created_at: iso(T0 - 600_000) }), 0)
    polls.note(operation({ created_at: 'not a time' }), 0)
    history.burst(100, 150_000)
    history.burst(GATE_POLL_PAGE_LIMIT + 50, 50_000)
    history.burst(500, -1_200_000)
    expect(await read(polls, 1)).toHaveLength(300)
    // 250 new ones, and the page that reaches past 10 minutes ago ends it.
    expect(history.calls).toHaveLength(3)
  })

  it('the first read’s horizon bounds it when nothing seen was newer', async () => {
    const history = new History()
    const { polls } = laterPolls(history.readPage)
    polls.horizon = T0
    history.burst(150, 60_000)
    history.burst(500, -1000)
    expect(await read(polls, 1)).toHaveLength(200)
    expect(history.calls).toHaveLength(2)
  })

  it('by id: a page holding an operation a previous poll listed ends the read, whatever the times', async () => {
    const x = operation({ created_at: 'not a time' })
    const n = operation({ created_at: 'not a time either' })
    const reader = { current: scripted([[x], []]) }
    const { polls } = laterPolls((cursor) => reader.current.readPage(cursor))
    polls.horizon = T0 - DAY
    // Poll 1 lists x first (to the end of the list: nothing it had seen tells it where to stop).
    expect(await read(polls, 1)).toEqual([x.id])
    reader.current = scripted([[n, x], []])
    expect(await read(polls, 2)).toEqual([n.id, x.id])
    expect(reader.current.calls).toEqual(['top'])
  })

  it('an operation listed twice in the same poll is not what a previous poll had seen', async () => {
    const repeated = operation({ created_at: 'not a time' })
    const reader = scripted([[repeated], [repeated], []])
    const { polls } = laterPolls(reader.readPage)
    polls.horizon = T0 - DAY
    await read(polls, 1)
    expect(reader.calls).toEqual(['top', 'c1', 'c2'])
  })

  it('a cursor handed out again, short of what had been seen: behind, with the warning', async () => {
    const reader = scripted(
      [[operation({ created_at: iso(T0 + 1000) })], [operation({ created_at: iso(T0 + 500) })]],
      () => 'same'
    )
    const { polls, lines } = laterPolls(reader.readPage)
    polls.horizon = T0 - DAY
    polls.note(operation({ created_at: iso(T0 - 600_000) }), 0)
    await read(polls, 1)
    expect(reader.calls).toEqual(['top', 'same'])
    expect(polls.behind).toMatch(
      /^the operations list is not read back to what an earlier poll had seen/
    )
    expect(lines).toHaveLength(1)
  })
})

describe('LaterPolls: a page without a cursor is not the end of the list', () => {
  it('short of what had been seen: behind, with the warning, and the next poll reads that page again and on', async () => {
    const history = new History()
    let dropCursor = true
    const { polls, lines } = laterPolls(async (cursor) => {
      const page = await history.readPage(cursor)
      return dropCursor ? { ...page, pagination: {} } : page
    })
    polls.horizon = T0 - DAY
    for (const op of history.burst(10, -3_600_000)) polls.note(op, 0)
    const hidden = history.add(1, { branch_id: 'br-mine' })
    history.burst(GATE_POLL_PAGE_LIMIT, 10_000)
    expect(await read(polls, 1)).not.toContain(hidden.id)
    expect(history.calls).toEqual(['top'])
    expect(polls.behind).toBe(
      'the operations list is not read back to what an earlier poll had seen: the API stopped the read at a page without a cursor to read on from'
    )
    expect(lines).toEqual([
      `warning: Project gate: read ${GATE_POLL_PAGE_LIMIT} operations listed since the previous poll in 1 page, stopped at a page without a cursor to read on from short of those it had seen; the next poll reads on, and the gate cannot pass till then`
    ])
    dropCursor = false
    history.calls.length = 0
    expect(await read(polls, 2)).toContain(hidden.id)
    // From the top for what is new, then the stretch left unread, from its page again.
    expect(history.calls).toEqual(['top', 'top', iso(T0 + 10_000 - GATE_POLL_PAGE_LIMIT + 1)])
    expect(polls.behind).toBeUndefined()
  })

  it('a page without a cursor that gets back to what had been seen ends the read', async () => {
    const history = new History()
    const { polls, lines } = laterPolls(async (cursor) => ({
      ...(await history.readPage(cursor)),
      pagination: {}
    }))
    polls.horizon = T0 - DAY
    for (const op of history.burst(10, -3_600_000)) polls.note(op, 0)
    history.burst(5, 10_000)
    expect(await read(polls, 1)).toHaveLength(15)
    expect(polls.behind).toBeUndefined()
    expect(lines).toEqual([])
  })
})

describe('LaterPolls: at most GATE_MAX_CATCH_UP_PAGES pages a poll', () => {
  /** A first read that saw 10 old operations; `burst` more were listed since, the oldest `hidden`. */
  function afterBurst(burst: number, repeats = false) {
    const history = new History(repeats)
    const { polls, lines } = laterPolls(history.readPage)
    polls.horizon = T0 - DAY
    for (const op of history.burst(10, -3_600_000)) polls.note(op, 0)
    const hidden = history.add(1, { branch_id: 'br-mine' })
    history.burst(burst, 10_000)
    const poll = async (n: number) => {
      history.calls.length = 0
      return read(polls, n)
    }
    return { history, polls, lines, hidden, poll }
  }

  it('a burst of twice as many: the next poll reads on with what the top left it, and no new warning', async () => {
    const { history, polls, lines, hidden, poll } = afterBurst(
      2 * GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT + 50
    )
    expect(await poll(1)).toHaveLength(GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT)
    expect(lines).toEqual([
      `warning: Project gate: read 1000 operations listed since the previous poll in ${GATE_MAX_CATCH_UP_PAGES} pages, stopped at the page cap short of those it had seen; the next poll reads on, and the gate cannot pass till then`
    ])
    // Poll 2: the top (one page, seen by poll 1), then 9 pages where poll 1 stopped: still short.
    const second = await poll(2)
    expect(history.calls).toHaveLength(GATE_MAX_CATCH_UP_PAGES)
    expect(second).not.toContain(hidden.id)
    expect(polls.behind).toBe(
      `the operations list is not read back to what an earlier poll had seen: more were listed since than ${GATE_MAX_CATCH_UP_PAGES} pages of ${GATE_POLL_PAGE_LIMIT} a poll read`
    )
    // Poll 3: the top, then the rest, down to the first read's.
    expect(await poll(3)).toContain(hidden.id)
    expect(history.calls).toHaveLength(3)
    expect(polls.behind).toBeUndefined()
    expect(lines).toHaveLength(1)
  })

  it('an API that repeats the last operation of a page atop the next: reading on, that one is not what was seen before', async () => {
    const { history, polls, hidden, poll } = afterBurst(
      2 * GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT + 50,
      true
    )
    await poll(1)
    // Poll 2 reads on where poll 1 stopped: its first page starts with poll 1's last operation,
    // which does not end the stretch (the operations between it and the first read's are unread).
    expect(await poll(2)).not.toContain(hidden.id)
    expect(history.calls).toHaveLength(GATE_MAX_CATCH_UP_PAGES)
    expect(polls.behind).toBeDefined()
    expect(await poll(3)).toContain(hidden.id)
    expect(polls.behind).toBeUndefined()
  })

  it('a second burst that takes every page but gets back: the older stretch, given no page, still holds the gate', async () => {
    const { history, polls, lines, hidden, poll } = afterBurst(
      GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT + 50
    )
    await poll(1)
    history.burst(GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT - 1, 100_000)
    expect(await poll(2)).not.toContain(hidden.id)
    expect(history.calls).toHaveLength(GATE_MAX_CATCH_UP_PAGES)
    // The top got back to what poll 1 had seen on its last page: no warning, but poll 1's stretch.
    expect(lines).toHaveLength(1)
    expect(polls.behind).toBe(
      `the operations list is not read back to what an earlier poll had seen: more were listed since than ${GATE_MAX_CATCH_UP_PAGES} pages of ${GATE_POLL_PAGE_LIMIT} a poll read`
    )
    expect(await poll(3)).toContain(hidden.id)
    expect(polls.behind).toBeUndefined()
  })

  it('a second burst as large: the top takes every page, the older stretch waits its turn, unread and kept', async () => {
    const { history, polls, lines, hidden, poll } = afterBurst(
      GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT + 50
    )
    await poll(1)
    history.burst(GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT + 50, 100_000)
    await poll(2)
    expect(history.calls).toHaveLength(GATE_MAX_CATCH_UP_PAGES)
    expect(lines).toHaveLength(2)
    // Poll 3: the top, the stretch poll 2 left, then the one poll 1 left, with the hidden one.
    expect(await poll(3)).toContain(hidden.id)
    expect(history.calls).toHaveLength(3)
    expect(polls.behind).toBeUndefined()
    expect(lines).toHaveLength(2)
  })
})
