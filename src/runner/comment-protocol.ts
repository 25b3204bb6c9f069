/*
 * What one leg does to GitHub, and in what order, as a pure state machine (no I/O, no clock), so
 * that the tests can run every interleaving of several legs' calls (comment-writes.ts runs it on
 * GitHub). The leg writes its record (comment-records.ts), then rounds of: read the comments, read
 * the pull request's head, read the records on that head, and write the view of those records
 * (comment-view.ts) unless the comment already holds it. It ends on a round that finds the comment
 * holding everything it read. So the last view to land holds every record made before its
 * writer's last read: any record made later is followed by its own leg's round, which writes again.
 * GitHub's order decides, never timing: the view shows the newest run of the pull request's head
 * commit; a view of a newer run is never written over.
 */
import type { RunOutcome } from '../report/report.js'
import {
  type CommitStatus,
  type LegRecord,
  recordsOf,
  shownRecords,
  statusOf,
  type StatusWrite
} from './comment-records.js'
import { holds, readView, renderView, type View, viewOf } from './comment-view.js'

/** Rounds at most: each one that does not end saw a record or a write it had not seen before. */
export const MAX_ROUNDS = 8

export interface WriterConfig {
  marker: string
  gateHash: string
  /** The login the action's comments and statuses are by. */
  author: string
  mode: 'always' | 'failure'
  footer: string
  serverUrl: string
  repository: string
  /** This run's head commit; '' when the event does not say (the pull request's head is read). */
  sha: string
  /** This leg's record: its context (`leg`), run, attempt, outcome, name and line. */
  own: Omit<LegRecord, 'key' | 'told'> & { told: boolean; id: string }
  /** This leg's summary (HTML), shown when its result is the worst. */
  details: string
}

/** A comment of the action's with the gate's marker, as a read found it. */
export interface ReadComment {
  id: number
  url: string
  view?: View
}

export type Call =
  | { call: 'record'; status: StatusWrite; sha: string }
  | { call: 'comments' }
  | { call: 'head' }
  | { call: 'records'; sha: string }
  | { call: 'update'; id: number; url: string; body: string }
  | { call: 'create'; body: string }
  | { call: 'delete'; id: number }

export type Ending = 'written' | 'not needed' | 'later run' | 'superseded' | 'rounds'

/** What the calls of one round answered. */
interface Answers {
  /** The record's status id, or `refused`. */
  record?: number | 'refused'
  comments?: ReadComment[]
  head?: string
  /** The statuses of a commit, by its SHA. */
  records?: { sha: string; statuses: CommitStatus[] }
}

export interface WriterState {
  /** The calls under way, made at once; none once ended. */
  calls: Call[]
  answers: Answers
  /** This leg's record's key: `s<status id>`, or `u-<id>` when it could not be recorded. */
  recorded?: string
  sha: string
  round: number
  /** The comments and the head that the last round read. */
  comments: ReadComment[]
  head?: string
  /** Duplicates still to delete after a write. */
  deletes: number[]
  ending?: Ending
  /** Lines for the log, in order: `refused`, `superseded`, `later run`. */
  notes: string[]
  /** The comment this leg last wrote. */
  wrote?: { action: 'created' | 'updated'; url: string }
}

export type Answer =
  | { id: number }
  | 'refused'
  | { comments: { id: number; html_url: string; body?: string | null }[] }
  | { head: string }
  | { statuses: CommitStatus[] }
  | { written: { id: number; html_url: string } }
  | 'deleted'

const passed = (outcome: RunOutcome) => outcome === 'success' || outcome === 'pending'

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
    comments: [],
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

const ask = (state: WriterState, call: Call): WriterState => ({
  ...state,
  calls: [call],
  answers: {}
})
const end = (state: WriterState, ending: Ending, note?: string): WriterState => ({
  ...state,
  calls: [],
  ending,
  notes: note ? [...state.notes, note] : state.notes
})

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
    const written = (answer as { written: { html_url: string } }).written
    next.wrote = { action: call.call === 'create' ? 'created' : 'updated', url: written.html_url }
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
  next = { ...next, comments: answers.comments, head, sha: next.sha || head }
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
  return decide(config, next, answers.records.statuses)
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

/** The round's decision, from the records on the pull request's head. */
function decide(config: WriterConfig, state: WriterState, statuses: CommitStatus[]): WriterState {
  const [kept, ...duplicates] = state.comments
  const superseded = state.head !== state.sha
  const note = superseded && !state.notes.includes('superseded') ? 'superseded' : undefined
  const noted = note ? { ...state, notes: [...state.notes, note] } : state
  const records = recordsOf(statuses, config.gateHash, config.author)
  if (!superseded && !records.some((r) => r.key === state.recorded))
    records.push(ownRecord(config, state))
  records.push(...unrecorded(kept?.view, records))
  if (records.length === 0) return end(noted, 'superseded')
  const wanted = viewOf(
    shownRecords(records),
    { key: state.recorded!, details: config.details },
    kept?.view
  )
  if (kept?.view && kept.view.run > wanted.run) return end(noted, 'later run', 'later run')
  const red = wanted.results.some((result) => !passed(result.outcome))
  if (!kept && config.mode === 'failure' && !red) return end(noted, 'not needed')
  if (kept && duplicates.length === 0 && holds(kept.view, wanted)) {
    return end(noted, superseded ? 'superseded' : 'written')
  }
  if (state.round >= MAX_ROUNDS) return end(noted, 'rounds')
  const body = renderView(config.marker, wanted, config.footer)
  const deletes = duplicates.map((duplicate) => duplicate.id)
  return kept
    ? ask({ ...noted, deletes }, { call: 'update', id: kept.id, url: kept.url, body })
    : ask({ ...noted, deletes }, { call: 'create', body })
}

function ownRecord(config: WriterConfig, state: WriterState): LegRecord {
  const { leg, told, run, attempt, outcome, name, line } = config.own
  return { key: state.recorded!, leg, told, run, attempt, outcome, line, ...(name ? { name } : {}) }
}

/**
 * Results that could not be recorded (a job without `statuses: write`) live in the view alone: a
 * view of their run carries them on, though a write from an older read may drop one.
 */
function unrecorded(view: View | undefined, records: LegRecord[]): LegRecord[] {
  const newest = Math.max(0, ...records.map((record) => record.run))
  return (view?.results ?? []).filter(
    (result) =>
      result.key.startsWith('u-') &&
      result.run >= newest &&
      !records.some((record) => record.key === result.key)
  )
}
