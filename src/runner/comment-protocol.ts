/*
 * What one leg does to GitHub, and in what order, as a pure state machine (no I/O, no clock), so
 * that the tests can run every interleaving of several legs' calls (comment-writes.ts runs it on
 * GitHub). The leg writes its record (comment-records.ts), then rounds of: read the comments, read
 * the pull request's head, read the records on that head, and write the view of those records
 * (comment-view.ts) unless the comment already holds it. It ends on a round that finds the comment
 * holding everything it read, or another leg's view over its own (that leg reads again after its
 * write, and so sees this leg's record). So the last view to land holds every record made before
 * its writer's last read, which found its own view: any record made later is followed by its own
 * leg's first round, which writes again.
 * GitHub's order decides, never timing: the view shows the newest run of the pull request's head
 * commit; a view of a newer run is never written over.
 */
import { type CommitStatus, statusOf } from './comment-records.js'
import { readView, showsOf } from './comment-view.js'
import {
  type Answers,
  ask,
  type Call,
  decide,
  end,
  passed,
  type ReadComment,
  type WriterConfig,
  type WriterState
} from './comment-round.js'

export type Answer =
  | { id: number }
  | 'refused'
  | { comments: { id: number; html_url: string; body?: string | null }[] }
  | { head: string }
  | { statuses: CommitStatus[] }
  | { written: { id: number; html_url: string } }
  | 'deleted'

/**
 * The first calls, at once: the record, the comments, the head, and the records of this run's
 * commit (the head's, unless a newer commit was pushed). With pr_comment: failure and a pass, no
 * record until a comment is found.
 */
export function start(config: WriterConfig): WriterState {
  const state: WriterState = {
    calls: [],
    answers: {},
    sha: config.sha,
    round: 0,
    deletes: [],
    notes: []
  }
  const probe = config.mode === 'failure' && passed(config.own.outcome)
  return readRound(state, probe ? [] : [recordCall(config, state.sha)])
}

function recordCall(config: WriterConfig, sha: string): Call {
  return { call: 'record', status: statusOf(config.own, config), sha }
}

/** A round of reads, all sent at once (after the last write was answered), and `more` beside them. */
function readRound(state: WriterState, more: Call[]): WriterState {
  const reads: Call[] = [{ call: 'comments' }, { call: 'head' }]
  if (state.sha) reads.push({ call: 'records', sha: state.sha })
  return { ...state, calls: [...more, ...reads], answers: {} }
}

/** The state after `answer` to `call` (one of the calls under way). */
export function advance(
  config: WriterConfig,
  state: WriterState,
  call: Call,
  answer: Answer
): WriterState {
  const calls = state.calls.filter((pending) => pending !== call)
  const next = { ...state, calls, answers: { ...state.answers, ...answered(config, call, answer) } }
  if (call.call === 'update' || call.call === 'create') {
    const written = (answer as { written: { id: number; html_url: string } }).written
    next.wrote = { action: call.call === 'create' ? 'created' : 'updated', url: written.html_url }
    const view = readView(call.body, config.marker)
    next.mine = view ? { id: written.id, shows: showsOf(view) } : undefined
  }
  if (calls.length > 0) return next
  return roundAnswered(config, next)
}

function answered(config: WriterConfig, call: Call, answer: Answer): Answers {
  switch (call.call) {
    case 'record':
      return { record: answer === 'refused' ? answer : (answer as { id: number }).id }
    case 'comments':
      return { comments: readComments(config, answer) }
    case 'head':
      return { head: (answer as { head: string }).head }
    case 'records':
      return {
        records: { sha: call.sha, statuses: (answer as { statuses: CommitStatus[] }).statuses }
      }
    default:
      return {}
  }
}

/** Every call of the round answered: the next round, or the decision. */
function roundAnswered(config: WriterConfig, state: WriterState): WriterState {
  const { answers } = state
  let next = state
  if (answers.record !== undefined) {
    const refused = answers.record === 'refused'
    next = {
      ...next,
      recorded: refused ? `u-${config.own.id}` : `s${String(answers.record)}`,
      notes: refused ? [...next.notes, 'refused'] : next.notes
    }
  }
  if (answers.comments === undefined) return afterWrite(next)
  const head = answers.head!
  next = { ...next, url: answers.comments[0]?.url, head, sha: next.sha || head }
  if (!next.recorded) {
    // pr_comment: failure and a pass: recorded only when there is a comment to update.
    if (answers.comments.length === 0) return end(next, 'not needed')
    return readRound(next, [recordCall(config, next.sha)])
  }
  if (answers.records?.sha !== head) {
    // A newer commit was pushed: the records of the head decide.
    const call: Call = { call: 'records', sha: head }
    return { ...next, calls: [call], answers: { comments: answers.comments, head } }
  }
  return decide(config, next, answers.comments, answers.records.statuses)
}

function readComments(config: WriterConfig, answer: Answer): ReadComment[] {
  const { comments } = answer as {
    comments: { id: number; html_url: string; body?: string | null }[]
  }
  return comments.map((comment) => ({
    id: comment.id,
    url: comment.html_url,
    view: readView(comment.body ?? '', config.marker)
  }))
}

/** After a write: the duplicates deleted one by one, then the next round. */
function afterWrite(state: WriterState): WriterState {
  const [id, ...rest] = state.deletes
  if (id !== undefined) return ask({ ...state, deletes: rest }, { call: 'delete', id })
  return readRound({ ...state, round: state.round + 1 }, [])
}
