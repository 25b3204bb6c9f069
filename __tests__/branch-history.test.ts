/*
 * How far back the branch gate's first read goes, and what stands for what it did not reach
 * (branch-history.ts), rule by rule: back to the branch's creation, or, when that time cannot be
 * read, to the newest operation of each of its computes; a notice only where the read stopped at
 * its page cap short of the branch's history, and why it cannot judge it where the API stopped the
 * read; and the state of each compute not reached, read anew while it keeps the gate open. Through
 * the gate over the local API server: simulated/authority.test.ts and simulated/paging.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import type { PageWalkEnd } from '../src/api/paging.js'
import type { Compute } from '../src/domain/schemas.js'
import { BranchHistory } from '../src/wait/branch-history.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'

const BRANCH = 'br-preview-000065'
const CREATED = '2026-11-01T00:00:00Z'
const created = Date.parse(CREATED)
const iso = (ms: number) => new Date(ms).toISOString()

const compute = (id: string, current?: string, pending?: string): Compute => ({
  id,
  branch_id: BRANCH,
  current_state: current,
  pending_state: pending
})

/** A history of the branch (created at `createdAt`) with `computes`; `reread` is what a read anew lists. */
function history(computes: Compute[], createdAt: string | null = CREATED, reread: Compute[] = []) {
  const { logger, lines } = collectingLogger()
  let reads = 0
  const readComputes = async () => {
    reads++
    return reread
  }
  const made = new BranchHistory(
    { id: BRANCH, name: 'preview/pr-65', created_at: createdAt },
    computes,
    readComputes,
    logger
  )
  return { history: made, lines, reads: () => reads }
}

/** An operation of the branch (or of `branchId`) on compute `endpointId`, created `atMs`. */
const on = (endpointId: string | null, atMs: number, branchId = BRANCH) =>
  operation({
    branch_id: branchId,
    endpoint_id: endpointId,
    created_at: iso(atMs),
    status: 'finished'
  })

describe('BranchHistory: how far the first read must go', () => {
  it('goes back to the branch’s creation: an operation created before it ends the read, one after it does not', () => {
    const { history: made } = history([])
    made.page([on(null, created + 1000)])
    made.page([on(null, created)])
    expect(made.complete).toBe(false)
    made.page([on(null, created - 1, 'br-main-000001')])
    expect(made.complete).toBe(true)
  })

  it('with a creation time it can read, having seen every compute is not enough: the branch’s actions without a compute count too', () => {
    const { history: made } = history([compute('ep-a', 'idle')])
    made.page([on('ep-a', created + 1000)])
    expect(made.complete).toBe(false)
  })

  it('with no creation time it can read, it ends at the newest operation of every compute of the branch, and only of the branch', () => {
    const { history: made } = history(
      [compute('ep-a', 'idle'), compute('ep-b', 'idle')],
      'not a time'
    )
    expect(made.complete).toBe(false)
    made.page([on('ep-a', created)])
    made.page([on(null, created)])
    made.page([on('ep-b', created, 'br-other-000002')])
    expect(made.complete).toBe(false)
    made.page([on('ep-b', created - 5 * 86_400_000)])
    expect(made.complete).toBe(true)
  })
})

describe('BranchHistory: the notice of a read that stopped short', () => {
  const cutShort = (end: PageWalkEnd) => {
    const made = history([
      compute('ep-a', 'idle'),
      compute('ep-b', 'idle'),
      compute('ep-c', 'idle')
    ])
    made.history.page([on('ep-c', created + 1000)])
    made.history.ended(end, 1000, created + 1000)
    return made
  }

  it('at the page cap: how many it read, how far back, the branch’s creation and each compute not reached', () => {
    const { history: made, lines } = cutShort('page cap')
    const notice =
      "Branch gate: read 1000 operations, back to 2026-11-01T00:00:01.000Z, and stopped there (the page cap), short of the branch's creation (created 2026-11-01T00:00:00Z): its older history was not judged; the own state of 2 computes whose operations it did not reach (ep-a, ep-b) and the branch's stand for it"
    expect(lines).toEqual([`notice: ${notice}`])
    expect(made.notJudged).toBe(notice)
  })

  it.each<[PageWalkEnd, string]>([
    ['repeated cursor', 'a page cursor handed out twice'],
    ['no cursor', 'a page without a cursor to read on from']
  ])(
    'where the API stopped it (%s): no notice, no state standing in, but why it cannot be judged',
    (end, stop) => {
      const made = history([compute('ep-a', 'idle'), compute('ep-c', 'idle')])
      made.history.page([on('ep-c', created + 1000)])
      expect(made.history.ended(end, 1000, created + 1000)).toBe(
        `the branch gate read 1000 operations, back to 2026-11-01T00:00:01.000Z, and stopped there (${stop}), short of the branch's creation (created 2026-11-01T00:00:00Z): its older history cannot be judged, and the gate does not pass on what it could not read`
      )
      expect(made.lines).toEqual([])
      expect(made.history.notJudged).toBeUndefined()
    }
  )

  it('where the API stopped it after the read got back to the creation: nothing to say', () => {
    const { history: made } = history([compute('ep-a', 'idle')])
    made.page([on(null, created - 1)])
    expect(made.ended('no cursor', 20, created - 1)).toBeUndefined()
  })

  it.each<PageWalkEnd>(['last page', 'stopped'])(
    'at the list’s end (%s): nothing older was there, no notice',
    (end) => {
      const { history: made, lines } = cutShort(end)
      expect(lines).toEqual([])
      expect(made.notJudged).toBeUndefined()
    }
  )

  it('cut short after the read got back to the creation: no notice', () => {
    const { history: made, lines } = history([compute('ep-a', 'idle')])
    made.page([on(null, created - 1)])
    made.ended('page cap', 20, created - 1)
    expect(lines).toEqual([])
  })

  it('no time read and no creation time: neither is said', () => {
    const { history: made, lines } = history([compute('ep-a', 'idle')], null)
    made.ended('page cap', 1, Infinity)
    expect(lines).toEqual([
      "notice: Branch gate: read 1 operation, and stopped there (the page cap), short of the branch's creation: its older history was not judged; the own state of 1 compute whose operations it did not reach (ep-a) and the branch's stand for it"
    ])
  })

  it('every compute reached, not the creation: the branch’s own state stands for the rest', () => {
    const { history: made, lines } = history([])
    made.ended('page cap', 100, created + 1000)
    expect(lines[0]).toMatch(
      /: its older history was not judged; the branch's own state stands for it$/
    )
  })
})

describe('BranchHistory: the computes not reached keep the gate open until the API shows them settled', () => {
  it('names the first one not settled, with its state, or the lack of one, and what is pending', () => {
    expect(
      history([compute('ep-a', 'idle'), compute('ep-b', 'init', 'active')]).history.unsettled
    ).toBe(
      'compute ep-b of the branch is init, pending active, and its operations were not read: the gate waits until it is idle or active with nothing pending'
    )
    expect(history([compute('ep-a')]).history.unsettled).toContain(
      'compute ep-a of the branch is of no state, and'
    )
    expect(
      history([compute('ep-a', 'active'), compute('ep-b', 'idle')]).history.unsettled
    ).toBeUndefined()
  })

  it('a compute whose newest operation the first page lists above its end is decided by its operations, whatever its state', () => {
    const { history: made } = history([compute('ep-a', 'init', 'active')])
    made.page([on('ep-a', created + 2000), on(null, created + 1000)])
    expect(made.unsettled).toBeUndefined()
  })

  it('one whose operation ends the first page, or is on a later one, is decided by its state too: a tie at a page end may hide its newest', () => {
    const { history: made } = history([compute('ep-a', 'idle'), compute('ep-b', 'init', 'active')])
    made.page([on('ep-a', created + 2000), on('ep-b', created + 1000)])
    expect(made.unsettled).toBe(
      "compute ep-b of the branch is init, pending active, and the list may not show its newest operation (tied in time with a page's end): the gate waits until it is idle or active with nothing pending"
    )
    const later = history([compute('ep-a', 'init', 'active')])
    later.history.page([on(null, created + 2000), on(null, created + 1000)])
    later.history.page([on('ep-a', created + 500)])
    expect(later.history.unsettled).toContain(
      'compute ep-a of the branch is init, pending active, and the list may not'
    )
    // Above the end of a later page is not the newest: only the first page's top is.
    const above = history([compute('ep-a', 'init', 'active')])
    above.history.page([on(null, created + 2000), on(null, created + 1000)])
    above.history.page([on('ep-a', created + 500), on(null, created + 400)])
    expect(above.history.unsettled).toContain(
      'compute ep-a of the branch is init, pending active, and the list may not'
    )
  })

  it('reads the computes anew only while one keeps the gate open', async () => {
    const settled = history([compute('ep-a', 'idle')])
    await settled.history.readAgain()
    expect(settled.reads()).toBe(0)
  })

  it('read anew: a compute now settled no longer holds the gate, nor one no longer listed', async () => {
    const made = history(
      [compute('ep-a', 'init', 'active'), compute('ep-b', 'init'), compute('ep-c', 'idle')],
      CREATED,
      [compute('ep-a', 'idle'), compute('ep-c', 'active')]
    )
    await made.history.readAgain()
    expect(made.reads()).toBe(1)
    expect(made.history.unsettled).toBeUndefined()
  })

  it('read anew: one still changing holds it, with its new state', async () => {
    const made = history([compute('ep-a', 'init')], CREATED, [compute('ep-a', 'active', 'idle')])
    await made.history.readAgain()
    expect(made.history.unsettled).toContain(
      'compute ep-a of the branch is active, pending idle, and'
    )
  })
})
