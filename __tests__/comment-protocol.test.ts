/*
 * One leg's calls to GitHub (comment-protocol.ts), answered here as a GitHub of one pull request
 * would: which calls pr_comment: failure makes for a pass, what a refused record leaves in the
 * leg's state, a comment listed without a body, and how a leg names a comment it wrote twice.
 * comment-legs.test.ts holds a leg after its own write; every order of several legs' calls is
 * simulated/comment-interleavings.test.ts's.
 */
import { describe, expect, it } from '@jest/globals'
import { advance, type Answer, start } from '../src/runner/comment-protocol.js'
import type { CommitStatus } from '../src/runner/comment-records.js'
import type { Call, WriterConfig, WriterState } from '../src/runner/comment-round.js'
import { legConfig, SHA, statusesOf } from './support/github/comment-fixtures.js'

/** The pull request's comments (bodies by id, oldest first) and its head's statuses. */
interface Github {
  comments: Map<number, string | null>
  statuses: CommitStatus[]
  /** Every call the leg made, in order. */
  made: Call[]
  /** The answer to the leg's record: its status's id, or `refused`. */
  record: number | 'refused'
}

const github = (fields: Partial<Github> = {}): Github => ({
  comments: new Map(),
  statuses: [],
  made: [],
  record: 1,
  ...fields
})

function answerOf(call: Call, at: Github): Answer {
  at.made.push(call)
  switch (call.call) {
    case 'record':
      return at.record === 'refused' ? 'refused' : { id: at.record }
    case 'comments':
      return {
        comments: [...at.comments].map(([id, body]) => ({ id, html_url: `https://c/${id}`, body }))
      }
    case 'head':
      return { head: SHA }
    case 'records':
      return { statuses: at.statuses }
    case 'delete':
      at.comments.delete(call.id)
      return 'deleted'
    case 'create': {
      const id = Math.max(0, ...at.comments.keys()) + 1
      at.comments.set(id, call.body)
      return { written: { id, html_url: `https://c/${id}` } }
    }
    default:
      at.comments.set(call.id, call.body)
      return { written: { id: call.id, html_url: call.url } }
  }
}

const writes = (state: WriterState) =>
  state.calls.some((call) => ['update', 'create', 'delete'].includes(call.call))

/** The calls under way answered, then the reads up to the round's decision: a write, or the end. */
function round(config: WriterConfig, entered: WriterState, at: Github): WriterState {
  const answer = (state: WriterState) =>
    state.calls.reduce((next, call) => advance(config, next, call, answerOf(call, at)), state)
  let state = answer(entered)
  while (state.calls.length > 0 && !writes(state)) state = answer(state)
  return state
}

const kinds = (calls: Call[]) => calls.map((call) => call.call)

describe('pr_comment: failure and a pass', () => {
  it('with no comment to update: records nothing, writes nothing, and ends as not needed', () => {
    const leg = legConfig('q', 'success', { mode: 'failure' })
    const at = github()
    const state = round(leg, start(leg), at)
    expect(state).toMatchObject({ calls: [], ending: 'not needed' })
    expect(kinds(at.made)).toEqual(['comments', 'head', 'records'])
  })

  it('with a comment there: records itself, reads again, and updates it', () => {
    const leg = legConfig('q', 'success', { mode: 'failure' })
    const at = github({ comments: new Map([[7, 'written by hand']]) })
    const first = start(leg)
    expect(kinds(first.calls)).toEqual(['comments'])
    const state = round(leg, first, at)
    expect(kinds(at.made)).toEqual([
      'comments',
      'head',
      'records',
      'record',
      'comments',
      'head',
      'records'
    ])
    expect(state.calls).toEqual([expect.objectContaining({ call: 'update', id: 7 })])
  })
})

describe('a leg’s log lines and the comment it names', () => {
  it('a record GitHub refused: the result is kept as not recorded', () => {
    const leg = legConfig('q', 'success')
    const at = github({ record: 'refused' })
    const state = round(leg, start(leg), at)
    expect(kinds(state.calls)).toEqual(['create'])
    expect(state).toMatchObject({ recorded: 'u-q' })
  })

  it('a comment listed without a body holds no view: a green leg writes its view there', () => {
    const leg = legConfig('q', 'success')
    const at = github({ comments: new Map([[7, null]]), statuses: statusesOf([1, leg]) })
    const state = round(leg, start(leg), at)
    expect(state.calls).toEqual([
      expect.objectContaining({ call: 'update', id: 7, url: 'https://c/7' })
    ])
  })

  it('a comment a leg updated twice is one it updated, not one it created', () => {
    const leg = legConfig('q', 'success')
    const other = legConfig('p', 'failure')
    const at = github({
      comments: new Map([[7, null]]),
      statuses: statusesOf([1, other], [2, leg]),
      record: 2
    })
    let state = round(leg, start(leg), at)
    expect(kinds(state.calls)).toEqual(['update'])
    // A record it had not read, and its own view still there: it writes again.
    at.statuses = [...at.statuses, ...statusesOf([3, legConfig('r', 'success')])]
    state = round(leg, state, at)
    expect(kinds(state.calls)).toEqual(['update'])
    state = round(leg, state, at)
    // Recorded, on the head, the newest run: nothing for the log.
    expect(state).toMatchObject({ calls: [], ending: 'written' })
    expect(state.superseded).toBeUndefined()
    expect(state.wrote).toEqual({ action: 'updated', url: 'https://c/7' })
  })
})
