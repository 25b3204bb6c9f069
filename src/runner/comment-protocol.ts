/*
 * What one leg does to GitHub, and in what order, as a pure state machine (no I/O, no clock), so
 * that the tests can run every interleaving of several legs' calls (comment-writes.ts runs it on
 * GitHub). The leg writes its record (comment-records.ts), then rounds of: read the comments, then
 * the pull request's head and the records on it, and write the view of those records
 * (comment-view.ts) to the newest comment unless it already holds it. It ends on a round that finds
 * the newest comment alone and holding everything it read, or another leg's view over its own
 * (that leg reads again after its write, and so sees this leg's record). So the last view to land
 * holds every record made before its writer's last read, which found its own view: any record made
 * later is followed by its own leg's first round, which writes again.
 * The records are read after the comments, so that a write to a comment holds every record made
 * before the comment: a red leg keeps its result in a comment it made, or a newer one, and older
 * comments are deleted only once the newest holds every record read. So a leg that stops after a
 * write from an old read drops no red result of a leg that ended (comment-round.ts, homeless).
 * GitHub's order decides, never timing: the view shows the newest run of the pull request's head
 * commit; a view of a newer run is never written over.
 */
import { type CommitStatus, statusOf } from './comment-records.js'
import { readView, showsOf } from './comment-view.js'
import {
  type Answers,
  type Call,
  decide,
  deleteNext,
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
  | 'gone'

/**
 * The first calls, at once: the record and the comments (then the head and the records). With
 * pr_comment: failure and a pass, no record until a comment is found; without this run's commit
 * (an issue_comment), none until the head is read.
 */
export function start(config: WriterConfig): WriterState {
  const state: WriterState = {
    calls: [],
    answers: {},
    sha: config.sha,
    round: 0,
    deletes: []
  }
  return readRound(state, probing(config) || !state.sha ? [] : [recordCall(config, state.sha)])
}

/** pr_comment: failure and a pass: recorded only when there is a comment to update. */
const probing = (config: WriterConfig) => config.mode === 'failure' && passed(config.own.outcome)

function recordCall(config: WriterConfig, sha: string): Call {
  return { call: 'record', status: statusOf(config.own, config), sha }
}

/** A round's first read, the comments (after the last write was answered), and `more` beside it. */
function readRound(state: WriterState, more: Call[]): WriterState {
  return { ...state, calls: [...more, { call: 'comments' }], answers: {} }
}

/**
 * Then, once the comments are read: the head, and the records of this run's commit (the head's,
 * unless a newer was pushed), at once. Read after the comments, they hold every record made before
 * any comment listed: so a write to a comment made after a red record holds that record.
 */
function readRecords(state: WriterState, comments: ReadComment[]): WriterState {
  const reads: Call[] = [{ call: 'head' }]
  if (state.sha) reads.push({ call: 'records', sha: state.sha })
  return { ...state, calls: reads, answers: { ...state.answers, comments } }
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
  if ((call.call === 'update' || call.call === 'create') && answer !== 'gone') {
    const written = (answer as { written: { id: number; html_url: string } }).written
    // Created: the comment is one this leg made (a placeholder it then filled, or its home).
    const made = call.call === 'create' || written.id === state.home
    next.wrote = { action: made ? 'created' : 'updated', url: written.html_url }
    const view = readView(call.body, config.marker)
    next.mine = view ? { id: written.id, shows: showsOf(view) } : undefined
    if (call.call === 'create') next.home = written.id
  }
  if (call.call === 'delete') return deleteNext(next)
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
    next = { ...next, recorded: refused ? `u-${config.own.id}` : `s${String(answers.record)}` }
  }
  if (answers.comments === undefined) return afterWrite(next)
  if (answers.head === undefined) return readRecords(next, answers.comments)
  const { head } = answers
  next = { ...next, url: answers.comments.at(-1)?.url, head, sha: next.sha || head }
  if (!next.recorded) {
    if (probing(config) && answers.comments.length === 0) return end(next, 'not needed')
    return readRound(next, [recordCall(config, next.sha)])
  }
  if (answers.records?.sha !== head) {
    // A newer commit was pushed: the records of the head decide.
    const call: Call = { call: 'records', sha: head }
    const ownRecords = answers.records
    return { ...next, calls: [call], answers: { comments: answers.comments, head, ownRecords } }
  }
  const { comments, records, ownRecords } = answers
  return decide(config, next, comments, records.statuses, ownRecords?.statuses)
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

/** After a write: the next round. */
function afterWrite(state: WriterState): WriterState {
  return readRound({ ...state, round: state.round + 1 }, [])
}
