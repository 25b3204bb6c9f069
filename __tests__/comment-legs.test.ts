/*
 * The legs' records and the view of them (comment-records.ts, comment-view.ts): which records a
 * view shows (the newest run; a leg told apart by its newest attempt, one not told apart by every
 * attempt; two legs of one name both), the records read back from commit statuses (only the
 * action's own, of this gate), untrusted text escaped, the comment within GitHub's size, and when a
 * leg ends after its own write (another leg's write over it passes the work on).
 * Every order of several legs' calls is simulated/comment-interleavings.test.ts's.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { legInputName } from '../src/runner/comment-leg.js'
import { advance, type Answer, start } from '../src/runner/comment-protocol.js'
import {
  type LegRecord,
  recordContext,
  recordsOf,
  shownRecords,
  statusOf
} from '../src/runner/comment-records.js'
import type { Call, WriterConfig, WriterState } from '../src/runner/comment-round.js'
import { readView, renderView, viewOf } from '../src/runner/comment-view.js'
import {
  GATE,
  legConfig,
  MARKER,
  SHA,
  statusesOf,
  WHERE
} from './support/github/comment-fixtures.js'

let nextId = 1
function record(
  leg: string,
  run: number,
  attempt: number,
  outcome: LegRecord['outcome'],
  told = false
): LegRecord {
  const id = nextId++
  return {
    key: `s${id}`,
    leg: recordContext(GATE, told ? `n-${leg.padEnd(24, '0')}` : `u-${run}-${attempt}-${leg}`),
    told,
    run,
    attempt,
    outcome,
    line: `${outcome === 'success' ? '✅' : '❌'} ${outcome}: ${leg}`
  }
}

const shown = (records: LegRecord[]) =>
  shownRecords(records).map((r) => `${r.line} ${r.run}/${r.attempt}`)

describe('which records a view shows', () => {
  it('the newest run only; a told leg by its newest attempt; an untold leg by every attempt', () => {
    const records = [
      record('old', 100, 1, 'failure'),
      record('a', 101, 1, 'failure', true),
      record('b', 101, 1, 'failure'),
      record('a', 101, 2, 'success', true),
      record('b', 101, 2, 'success')
    ]
    expect(shown(records)).toEqual([
      '❌ failure: b 101/1',
      '✅ success: a 101/2',
      '✅ success: b 101/2'
    ])
  })

  it('two legs of one name in an attempt: both stay, and a re-run replaces neither', () => {
    const records = [
      record('a', 101, 1, 'failure', true),
      record('a', 101, 1, 'success', true),
      record('a', 101, 2, 'success', true)
    ]
    expect(shown(records)).toHaveLength(3)
  })

  it('holds over generated matrices: every failure of the newest run that no newer attempt of its told leg replaced stays (fast-check)', () => {
    const plan = fc.array(
      fc.record({
        leg: fc.constantFrom('a', 'b', 'c'),
        run: fc.constantFrom(101, 102),
        attempt: fc.constantFrom(1, 2, 3),
        outcome: fc.constantFrom('success', 'failure', 'cancelled'),
        told: fc.boolean()
      }),
      { minLength: 1, maxLength: 8 }
    )
    fc.assert(
      fc.property(plan, (drawn) => {
        // One writer per leg, told-ness and attempt: a leg runs once an attempt.
        const unique = drawn.filter(
          (d, i) =>
            drawn.findIndex(
              (o) =>
                o.leg === d.leg && o.told === d.told && o.attempt === d.attempt && o.run === d.run
            ) === i
        )
        const records = unique.map((d) =>
          record(d.leg, d.run, d.attempt, d.outcome as LegRecord['outcome'], d.told)
        )
        const newest = Math.max(...unique.map((d) => d.run))
        const kept = new Set(shownRecords(records).map((r) => r.key))
        records.forEach((r, i) => {
          const d = unique[i]
          const replaced =
            d.told &&
            unique.some(
              (o) => o.told && o.leg === d.leg && o.run === d.run && o.attempt > d.attempt
            )
          expect(kept.has(r.key)).toBe(d.run === newest && !replaced)
        })
      }),
      { seed: 66, numRuns: 300 }
    )
  })
})

describe('records read back from commit statuses', () => {
  it('only the action’s own statuses of this gate, with a run attempt link and an outcome', () => {
    const own = statusOf(
      {
        leg: recordContext(GATE, 'u-9-1-x'),
        run: 9,
        attempt: 1,
        outcome: 'timeout',
        line: '⏱️ timeout: x'
      },
      WHERE
    )
    expect(own).toMatchObject({
      state: 'failure',
      target_url: 'https://github.com/octo/app/actions/runs/9/attempts/1'
    })
    const statuses = [
      { id: 1, ...own, creator: { login: 'github-actions[bot]' } },
      { id: 2, ...own, creator: { login: 'mallory' } },
      { id: 3, ...own, context: 'ci/other', creator: { login: 'github-actions[bot]' } },
      { id: 4, ...own, description: 'no outcome here', creator: { login: 'github-actions[bot]' } },
      {
        id: 5,
        ...own,
        target_url: 'https://evil.example',
        creator: { login: 'github-actions[bot]' }
      }
    ]
    const read = recordsOf(statuses, GATE, 'github-actions[bot]')
    expect(read).toEqual([
      expect.objectContaining({ key: 's1', run: 9, attempt: 1, outcome: 'timeout', told: false })
    ])
  })

  /** `record` written as a commit status, and read back. */
  const readBack = (record: Parameters<typeof statusOf>[0]) => {
    const status = statusOf(record, WHERE)
    const [read] = recordsOf([{ id: 7, ...status, creator: { login: 'me' } }], GATE, 'me')
    return { status, read }
  }

  it('an error’s record is read back as an error: its headline says “Error” (report/summary.ts)', () => {
    const { read } = readBack({
      leg: recordContext(GATE, 'u-9-1-eu'),
      run: 9,
      attempt: 1,
      outcome: 'error',
      line: '❌ Error: The API rejected the key (HTTP 401)'
    })
    expect(read).toMatchObject({
      outcome: 'error',
      line: '❌ Error: The API rejected the key (HTTP 401)'
    })
  })

  it('a name and a long line fit GitHub’s 140 characters; the name is read back', () => {
    const { status, read } = readBack({
      leg: recordContext(GATE, `n-${'1'.repeat(24)}`),
      run: 9,
      attempt: 2,
      outcome: 'failure',
      name: 'gate [eu]',
      line: `❌ failure: ${'x'.repeat(300)}`
    })
    expect(status.description.length).toBeLessThanOrEqual(140)
    expect(read).toMatchObject({ name: 'gate (eu)', told: true, outcome: 'failure', attempt: 2 })
  })
})

describe('the view', () => {
  it('of results equally bad, the newest is shown, and the newest stay past 30', () => {
    const older = record('a', 9, 1, 'failure')
    const newer = record('b', 9, 1, 'failure')
    expect(viewOf([older, newer], { key: 'none', details: '' }, []).shown).toBe(newer.key)
    const many = Array.from({ length: 32 }, (_, i) => record(`m${i}`, 9, 1, 'success'))
    const kept = viewOf(many, { key: 'none', details: '' }, []).results.map((r) => r.key)
    expect(kept).toEqual(many.slice(2).map((r) => r.key))
  })

  it('40 legs with long, hostile lines: the 30 most severe, escaped, within GitHub’s size', () => {
    const records = Array.from({ length: 40 }, (_, i) => ({
      ...record(`l${i}`, 9, 1, i % 7 === 0 ? 'failure' : 'success'),
      line: `${i % 7 === 0 ? '❌ failure' : '✅ success'}: <script>alert(1)</script> ::error::x ${'y'.repeat(400)}`
    }))
    const view = viewOf(shownRecords(records), { key: 'none', details: '<p>x</p>' }, [])
    const body = renderView(MARKER, view, '')
    expect(view.results).toHaveLength(30)
    expect(view.results.filter((r) => r.outcome === 'failure')).toHaveLength(6)
    expect(Buffer.byteLength(body)).toBeLessThan(60_000)
    expect(body).not.toContain('<script>')
    expect(body.split('\n').at(-1)!.slice(4, -4)).not.toMatch(/[<>]/)
    expect(readView(body, MARKER)?.shown).toBe(view.shown)
    // The worst's own details are not at hand: its line, headed as a summary is.
    expect(body).toContain('<p><b>❌ failure</b>: &lt;script&gt;')
  })

  it('a comment without a view, or with one edited by hand, is read as none', () => {
    expect(readView(`${MARKER}\nhello`, MARKER)).toBeUndefined()
    const view = viewOf([record('a', 9, 1, 'failure')], { key: 'x', details: '' }, [])
    const body = renderView(MARKER, view, '')
    expect(readView(body.replace('"shown":"', '"shown":"z'), MARKER)).toBeUndefined()
  })
})

describe('a leg after its own write', () => {
  /** The answer to `call` from `github`: a create makes a newer comment, the one listed after. */
  function answerOf(call: Call, github: Github): Answer {
    const comment = { id: github.commentId, html_url: `https://c/${github.commentId}` }
    switch (call.call) {
      case 'record':
        return { id: github.recordId }
      case 'comments':
        return { comments: [{ ...comment, body: github.body }] }
      case 'head':
        return { head: SHA }
      case 'records':
        return { statuses: github.statuses }
      case 'delete':
        return 'deleted'
      case 'create':
        github.commentId += 1
        return { written: { id: github.commentId, html_url: `https://c/${github.commentId}` } }
      default:
        return { written: comment }
    }
  }
  const writes = (state: WriterState) =>
    state.calls.some((call) => ['update', 'create', 'delete'].includes(call.call))
  /**
   * Answers the calls under way from `github`: a write, or the reads of a round up to its
   * decision (the next write, or the end).
   */
  function round(config: WriterConfig, entered: WriterState, github: Github): WriterState {
    const answer = (state: WriterState) =>
      state.calls.reduce((next, call) => advance(config, next, call, answerOf(call, github)), state)
    if (writes(entered)) return answer(entered)
    let state = answer(entered)
    while (state.calls.length > 0 && !writes(state)) state = answer(state)
    return state
  }
  interface Github {
    recordId: number
    commentId: number
    body: string
    statuses: ReturnType<typeof statusesOf>
  }
  /** The body another leg writes: the view of `statuses` as a leg without their details renders it. */
  const bodyOf = (statuses: ReturnType<typeof statusesOf>) => {
    const records = shownRecords(recordsOf(statuses, GATE, 'me'))
    return renderView(MARKER, viewOf(records, { key: 'none', details: '' }, []), '')
  }

  /**
   * Leg `own` (record s2) writes once over the comment of leg p (s1, its record alone): a green leg
   * updates it; a red leg makes a comment after its record (an update of the older one could be
   * written over by a leg's write from a read before the record).
   */
  function afterOwnWrite(own: WriterConfig, p: WriterConfig) {
    const github: Github = {
      recordId: 2,
      commentId: 7,
      body: '',
      statuses: statusesOf([1, p], [2, own])
    }
    github.body = bodyOf(statusesOf([1, p]))
    let state = round(own, start(own), github)
    const write = own.own.outcome === 'success' ? 'update' : 'create'
    expect(state.calls.map((call) => call.call)).toEqual([write])
    const written = (state.calls[0] as { body: string }).body
    state = round(own, state, github)
    return { state, github, written }
  }

  it('ends when another leg’s view is over its own: that leg reads again and writes', () => {
    const q = legConfig('q', 'success')
    const { state, github } = afterOwnWrite(q, legConfig('p', 'failure'))
    // A third leg's write from an older read: p's result alone, without q's.
    github.statuses = statusesOf(
      [1, legConfig('p', 'failure')],
      [2, q],
      [3, legConfig('r', 'success')]
    )
    github.body = bodyOf(statusesOf([1, legConfig('p', 'failure')], [3, legConfig('r', 'success')]))
    const next = round(q, state, github)
    expect(next).toMatchObject({ calls: [], ending: 'written' })
  })

  it('a red leg keeps its result in a comment made after its record, and deletes the older one once that holds all, then ends', () => {
    const p = legConfig('p', 'failure')
    const q = legConfig('q', 'success')
    const after = afterOwnWrite(p, q)
    const { github } = after
    expect(after.state.calls).toEqual([{ call: 'comments' }])
    // Its own comment (8) listed, holding both results; the older one (7) still there.
    const listed = (state: WriterState) =>
      advance(p, state, state.calls[0], {
        comments: [
          { id: 7, html_url: 'https://c/7', body: bodyOf(statusesOf([1, q])) },
          { id: 8, html_url: 'https://c/8', body: after.written }
        ]
      })
    let state = listed(after.state)
    state = state.calls.reduce(
      (next, call) => advance(p, next, call, answerOf(call, github)),
      state
    )
    expect(state.calls).toEqual([{ call: 'delete', id: 7 }])
    // Deleted: it ends, on the round that found its own comment holding every record.
    expect(round(p, state, github)).toMatchObject({ calls: [], ending: 'written' })
  })

  it('writes again when its own view is still there and a record it had not read is in', () => {
    const q = legConfig('q', 'success')
    const { state, github, written } = afterOwnWrite(q, legConfig('p', 'failure'))
    github.statuses = [...github.statuses, ...statusesOf([3, legConfig('r', 'success')])]
    github.body = written
    expect(round(q, state, github).calls.map((call) => call.call)).toEqual(['update'])
  })

  it('a leg that finds a record it had not read in every round stops at its cap: 8 rounds', () => {
    const q = legConfig('q', 'success')
    const after = afterOwnWrite(q, legConfig('p', 'failure'))
    let { state, written } = after
    const { github } = after
    let writes = 1
    for (let id = 3; state.calls.length > 0 && id < 40; id++) {
      github.statuses = [...github.statuses, ...statusesOf([id, legConfig(`r${id}`, 'success')])]
      github.body = written
      state = round(q, state, github)
      const [write] = state.calls
      if (write?.call !== 'update') break
      written = write.body
      writes += 1
      state = round(q, state, github)
    }
    expect(state).toMatchObject({ calls: [], ending: 'rounds', round: 8 })
    expect(writes).toBe(8)
  })

  it('the leg shown puts back its details when another leg’s view lacks them', () => {
    const p = legConfig('p', 'failure')
    const { state, github, written } = afterOwnWrite(p, legConfig('q', 'success'))
    expect(written).toContain('details of p')
    // q's write from a read before p's: p shown, but with its line alone.
    github.body = bodyOf(github.statuses)
    const next = round(p, state, github)
    expect(next.calls.map((call) => call.call)).toEqual(['update'])
    expect((next.calls[0] as { body: string }).body).toContain('details of p')
    // Once: over the next view without them, it ends (a view may show its line alone).
    const again = round(p, round(p, next, github), github)
    expect(again).toMatchObject({ calls: [], ending: 'written' })
  })

  it('a leg whose record GitHub refused writes again: no other leg reads its result', () => {
    const q = legConfig('q', 'success')
    const p = legConfig('p', 'failure')
    const github: Github = {
      recordId: 0,
      commentId: 7,
      body: bodyOf(statusesOf([1, p])),
      statuses: statusesOf([1, p])
    }
    let state = start(q)
    state = advance(q, state, state.calls[0], 'refused')
    state = round(q, state, github)
    expect(state.calls.map((call) => call.call)).toEqual(['update'])
    state = round(q, state, github)
    expect(state.calls.map((call) => call.call)).toEqual(['comments'])
    // Another leg's view over its own, from a read that could not see its result.
    github.body = bodyOf(statusesOf([1, p], [3, legConfig('r', 'success')]))
    expect(round(q, state, github).calls.map((call) => call.call)).toEqual(['update'])
  })
})

describe('pr_comment_leg names the leg as GitHub names a matrix job', () => {
  it('a matrix’s values, a job without a matrix by its id, other text as it is', () => {
    expect(legInputName('{\n  "region": "eu-west",\n  "node": 16\n}', 'gate')).toBe('eu-west, 16')
    expect(legInputName('{"os": {"name": "linux"}}', 'gate')).toBe('{"name":"linux"}')
    expect(legInputName('null', 'gate')).toBe('gate')
    expect(legInputName('"eu"', 'gate')).toBe('eu')
    expect(legInputName('  eu  west ', 'gate')).toBe('eu west')
  })
})
