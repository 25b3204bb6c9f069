/*
 * A round's decision (comment-round.ts) taken alone: from the comments and the records a round
 * read, what the leg writes next, or why it ends, and what it notes for its log. The rounds in
 * order are comment-legs.test.ts's; every interleaving of legs is comment-interleavings.test.ts's.
 */
import { describe, expect, it } from '@jest/globals'
import { start } from '../src/runner/comment-protocol.js'
import {
  type Call,
  decide,
  deleteNext,
  type WriterConfig,
  type WriterState
} from '../src/runner/comment-round.js'
import { readView, showsOf } from '../src/runner/comment-view.js'
import { commentOf, legConfig, MARKER, SHA, statusesOf } from './support/github/comment-fixtures.js'

const NEWER = 'd'.repeat(40)
const p = legConfig('p', 'failure')
const q = legConfig('q', 'success')
const r = legConfig('r', 'failure')

/** A leg's state when its round's reads are in: recorded as status 2 unless told otherwise. */
const stateOf = (changes: Partial<WriterState> = {}): WriterState => ({
  calls: [],
  answers: {},
  sha: SHA,
  head: SHA,
  round: 1,
  deletes: [],
  recorded: 's2',
  ...changes
})
const callsOf = (state: WriterState) =>
  state.calls.map((call) =>
    call.call === 'delete' || call.call === 'update' ? `${call.call} ${call.id}` : call.call
  )
const bodyOf = (call: Call | undefined) => (call as { body: string }).body

describe('a round that ends without a write', () => {
  it('pr_comment: failure with no comment and no red: not needed, and a pending result is no red', () => {
    const pending = legConfig('o', 'pending')
    const state = decide(
      legConfig('q', 'success', { mode: 'failure' }),
      stateOf(),
      [],
      statusesOf([1, pending], [2, q])
    )
    expect(state).toMatchObject({ calls: [], ending: 'not needed' })
    expect(state.superseded).toBeUndefined()
  })

  it('pr_comment: failure and a pending result: no record until a comment is found', () => {
    const config = legConfig('o', 'pending', { mode: 'failure' })
    expect(start(config).calls).toEqual([{ call: 'comments' }])
  })

  it('a comment that shows a later run than any record read: left as it is', () => {
    const later = legConfig('x', 'success', { own: { ...q.own, id: 'x', run: 12 } })
    const state = decide(q, stateOf(), [commentOf(7, statusesOf([5, later]))], statusesOf([2, q]))
    expect(state).toMatchObject({ calls: [], ending: 'later run' })
    expect(state.superseded).toBeUndefined()
  })

  it('a superseded run notes it, whatever it ends on', () => {
    const later = legConfig('x', 'success', { own: { ...q.own, id: 'x', run: 12 } })
    const kept = [commentOf(7, statusesOf([5, later]))]
    expect(decide(q, stateOf({ head: NEWER }), kept, statusesOf([3, r]))).toMatchObject({
      ending: 'later run',
      superseded: true
    })
  })

  it('a superseded run with no comment creates none, and notes why', () => {
    const state = decide(q, stateOf({ head: NEWER }), [], statusesOf([3, r]))
    expect(state).toMatchObject({ calls: [], ending: 'superseded', superseded: true })
  })

  it('a superseded run that finds no record on the head ends superseded', () => {
    const state = decide(q, stateOf({ head: NEWER }), [], [])
    expect(state).toMatchObject({ calls: [], ending: 'superseded', superseded: true })
  })

  it('a run of the head notes nothing', () => {
    const state = decide(
      q,
      stateOf(),
      [commentOf(7, statusesOf([1, p]))],
      statusesOf([1, p], [2, q])
    )
    expect(callsOf(state)).toEqual(['update 7'])
    expect(state.superseded).toBeUndefined()
  })

  it('once no older comment is left to delete: written on the head, superseded past it', () => {
    expect(deleteNext(stateOf()).ending).toBe('written')
    expect(deleteNext(stateOf({ head: NEWER })).ending).toBe('superseded')
    expect(callsOf(deleteNext(stateOf({ deletes: [4, 5] })))).toEqual(['delete 4'])
  })
})

describe('where a red leg keeps its result', () => {
  it('its comment gone and an older one left: it makes a new one, never writes the older', () => {
    const state = decide(
      p,
      stateOf({ home: 9 }),
      [commentOf(7, statusesOf([1, q]))],
      statusesOf([1, q], [2, p])
    )
    expect(callsOf(state)).toEqual(['create'])
  })

  it('its record not listed yet: the view it creates holds its result with its name', () => {
    const named = legConfig('p', 'failure', { own: { ...p.own, name: 'pg-16' } })
    const state = decide(named, stateOf(), [], statusesOf([1, q]))
    const view = readView(bodyOf(state.calls[0]), MARKER)
    expect(view?.results.find((result) => result.key === 's2')).toMatchObject({ name: 'pg-16' })
  })
})

describe('a leg whose own view another leg wrote over', () => {
  /** What leg `config` (record `recorded`) wrote to comment 7 from a read of `statuses`. */
  const mineOf = (
    config: WriterConfig,
    recorded: string,
    statuses: ReturnType<typeof statusesOf>
  ) => {
    const written = bodyOf(decide(config, stateOf({ recorded }), [], statuses).calls[0])
    return { id: 7, shows: showsOf(readView(written, MARKER)!) }
  }

  it('the leg shown puts its details back when the view over its own shows another result', () => {
    // p's view showed p (the newest of equal failures); r's, from a read before p's record, r.
    const mine = mineOf(p, 's3', statusesOf([1, q], [2, r], [3, p]))
    const over = commentOf(7, statusesOf([1, q], [2, r]), 's2')
    const state = decide(
      p,
      stateOf({ recorded: 's3', home: 7, mine }),
      [over],
      statusesOf([1, q], [2, r], [3, p])
    )
    expect(callsOf(state)).toEqual(['update 7'])
    expect(bodyOf(state.calls[0])).toContain('details of p')
    expect(state.putBack).toBe(true)
  })

  it('the leg shown ends when the view over its own shows it with its details', () => {
    const mine = mineOf(p, 's2', statusesOf([2, p]))
    // q's view carried p's details; a record made after q's read (r's) is r's own to write.
    const over = commentOf(7, statusesOf([1, q], [2, p]), 's2')
    const state = decide(p, stateOf({ home: 7, mine }), [over], statusesOf([1, q], [2, p], [4, q]))
    expect(state).toMatchObject({ calls: [], ending: 'written' })
  })

  it('a leg not shown leaves the details to the leg shown: it deletes the older comment and ends', () => {
    const mine = mineOf(q, 's2', statusesOf([1, p], [2, q]))
    // The older comment shows p with its details; the view over q's, from a read before q's
    // record, shows p without them: only p puts them back.
    const green = legConfig('g', 'success')
    const older = commentOf(6, statusesOf([1, p]), 's1')
    const over = commentOf(7, statusesOf([1, p], [3, green]))
    const state = decide(
      q,
      stateOf({ mine }),
      [older, over],
      statusesOf([1, p], [2, q], [3, green])
    )
    expect(callsOf(state)).toEqual(['delete 6'])
  })

  it('its comment gone since it wrote: it makes the comment again', () => {
    const mine = mineOf(q, 's2', statusesOf([1, p], [2, q]))
    expect(callsOf(decide(q, stateOf({ mine }), [], statusesOf([1, p], [2, q])))).toEqual([
      'create'
    ])
  })
})

describe('the link to the workflow run', () => {
  const LINK =
    '<p><sub><a href="https://github.com/octo/app/actions/runs/9">Workflow run</a></sub></p>\n'

  it('under the results, to the run the view shows; none without a repository', () => {
    const body = bodyOf(decide(p, stateOf(), [], statusesOf([1, q], [2, p])).calls[0])
    expect(body).toContain(LINK)
    const unlinked = legConfig('p', 'failure', { repository: '' })
    const bare = bodyOf(decide(unlinked, stateOf(), [], statusesOf([1, q], [2, p])).calls[0])
    expect(bare).toBe(body.replace(LINK, ''))
  })
})

describe('a superseded run whose head has no record of the gate (a push no run follows)', () => {
  const older = legConfig('o', 'success', { own: { ...q.own, id: 'o', run: 8 } })
  const olderPass = () => [commentOf(7, statusesOf([5, older]))]
  const headless = (
    config: WriterConfig,
    { comments = olderPass(), head = statusesOf(), own = statusesOf([3, config]) } = {}
  ) => decide(config, stateOf({ head: NEWER, recorded: 's3' }), comments, head, own)

  it('red: its commit decided on as the head, in a comment of its own; not noted superseded', () => {
    const state = headless(r)
    expect(callsOf(state)).toEqual(['create'])
    expect(readView(bodyOf(state.calls[0]), MARKER)).toMatchObject({ run: 9, shown: 's3' })
    expect(state.headless).toBe(true)
    expect(state.superseded).toBeUndefined()
  })

  it('green beside a red sibling of its run: the view, red, is written', () => {
    const state = headless(q, { own: statusesOf([3, q], [4, p]) })
    expect(callsOf(state)).toEqual(['update 7'])
    expect(readView(bodyOf(state.calls[0]), MARKER)).toMatchObject({ run: 9, shown: 's4' })
  })

  it('green: the older pass stays, and the run ends superseded', () => {
    const state = headless(q)
    expect(state).toMatchObject({ calls: [], ending: 'superseded', superseded: true })
    expect(state.headless).toBeUndefined()
  })

  it('a record on the head: the head decides, as for any superseded run', () => {
    const state = headless(r, { head: statusesOf([6, legConfig('h', 'success')]) })
    expect(state.superseded).toBe(true)
    expect(state.headless).toBeUndefined()
    expect(readView(bodyOf(state.calls[0]), MARKER)?.shown).toBe('s6')
  })

  it('a comment that shows a newer run: left as it is, the run superseded', () => {
    const newer = legConfig('x', 'success', { own: { ...q.own, id: 'x', run: 12 } })
    const state = headless(r, { comments: [commentOf(7, statusesOf([5, newer]))] })
    expect(state).toMatchObject({ calls: [], ending: 'superseded' })
    expect(state.headless).toBeUndefined()
  })

  it('an older comment that shows a newer run (the newest is its own late one): neither is touched', () => {
    const newer = legConfig('x', 'failure', { own: { ...q.own, id: 'x', run: 12 } })
    const comments = [commentOf(7, statusesOf([5, newer])), commentOf(8, statusesOf([3, r]))]
    const state = headless(r, { comments })
    expect(state).toMatchObject({ calls: [], ending: 'superseded', superseded: true })
    expect(state.headless).toBeUndefined()
  })

  it('a comment that shows this run: its commit still decided on', () => {
    const state = headless(r, { comments: [commentOf(7, statusesOf([4, q]))] })
    expect(state.headless).toBe(true)
    expect(callsOf(state)).toEqual(['create'])
  })

  it('no comment yet: its red view made, never a placeholder', () => {
    const state = headless(r, { comments: [] })
    expect(callsOf(state)).toEqual(['create'])
    expect(readView(bodyOf(state.calls[0]), MARKER)?.shown).toBe('s3')
  })

  it("without its commit's statuses (an event without the run's commit), the head decides", () => {
    const state = decide(r, stateOf({ head: NEWER, recorded: 's3' }), olderPass(), statusesOf())
    expect(state).toMatchObject({ calls: [], ending: 'superseded', superseded: true })
  })

  it('once no older comment is left to delete: written, since it showed its own commit', () => {
    expect(deleteNext({ ...stateOf({ head: NEWER }), headless: true }).ending).toBe('written')
  })
})
