/*
 * A leg's state between its calls to GitHub (comment-protocol.ts), and the decision each round
 * ends in: from the records on the pull request's head, the view to write, or why not.
 */
import { forHtml } from '../domain/untrusted-text.js'
import type { RunOutcome } from '../report/report.js'
import {
  type CommitStatus,
  type LegRecord,
  recordsOf,
  shownRecords,
  type StatusWrite
} from './comment-records.js'
import { holds, renderPlaceholder, renderView, showsOf, type View, viewOf } from './comment-view.js'

/**
 * Rounds at most: after its first write (a red leg's, to a comment of its own), a leg writes again
 * only to fill the placeholder it made, to put its details back once, or when its own view is
 * still there beside a record it had not read.
 */
const MAX_ROUNDS = 8

export interface WriterConfig {
  marker: string
  gateHash: string
  /** The login the action's comments and statuses are by. */
  author: string
  mode: 'always' | 'failure'
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
export interface Answers {
  /** The record's status id, or `refused`. */
  record?: number | 'refused'
  comments?: ReadComment[]
  head?: string
  /** The statuses of a commit, by its SHA. */
  records?: { sha: string; statuses: CommitStatus[] }
  /** This run's commit's statuses, read before its round found a newer head. */
  ownRecords?: { sha: string; statuses: CommitStatus[] }
}

export interface WriterState {
  /** The calls under way, made at once; none once ended. */
  calls: Call[]
  answers: Answers
  /** This leg's record's key: `s<status id>`, or `u-<id>` when it could not be recorded. */
  recorded?: string
  sha: string
  round: number
  /** The URL of the comment the last round found (the newest of the gate's), and the head. */
  url?: string
  head?: string
  /** The comment this leg made (a red leg keeps its result there, or in a newer one). */
  home?: number
  /** Older comments still to delete, once the newest was found holding every record read. */
  deletes: number[]
  ending?: Ending
  /** A round found the pull request's head newer than this run's commit: the log says so. */
  superseded?: boolean
  /** Its last round found a newer head without a record of the gate: it shows its own commit. */
  headless?: boolean
  /** The comment this leg last wrote. */
  wrote?: { action: 'created' | 'updated'; url: string }
  /** The comment this leg last wrote, by its id, and what the view it wrote shows (showsOf). */
  mine?: { id: number; shows: string }
  /** Its details put back once over another leg's view that lacked them. */
  putBack?: boolean
}

export const passed = (outcome: RunOutcome) => outcome === 'success' || outcome === 'pending'

const ask = (state: WriterState, call: Call): WriterState => ({
  ...state,
  calls: [call],
  answers: {}
})
export const end = (state: WriterState, ending: Ending): WriterState => ({
  ...state,
  calls: [],
  ending
})

/**
 * The next older comment deleted, one at a time; once none is left, the end: the newest held every
 * record read (the round's answers stay, for what the leg ends on).
 */
export function deleteNext(state: WriterState): WriterState {
  const [id, ...rest] = state.deletes
  if (id === undefined) {
    return end(state, state.head === state.sha || state.headless ? 'written' : 'superseded')
  }
  return { ...state, calls: [{ call: 'delete', id }], deletes: rest }
}

/**
 * The round's decision, from the records on the pull request's head. When a newer head was found
 * (`ownStatuses` are then this run's commit's) with none of the gate's records yet (a push no run
 * of it follows, say), and no comment shows a newer run, this run's commit is decided on as the
 * head, if its view is red: so every red leg writes after its record, as on the head, and an older
 * pass is not left over its failure. Only a red view: a write from this read may land after the
 * head's run wrote, and a stale red beside that run's result is no false pass.
 */
export function decide(
  config: WriterConfig,
  state: WriterState,
  comments: ReadComment[],
  statuses: CommitStatus[],
  ownStatuses?: CommitStatus[]
): WriterState {
  // Any comment, not only the newest: its own late comment may be newer than one a newer run wrote.
  const newerShown = comments.some((comment) => comment.view && comment.view.run > config.own.run)
  const headless =
    ownStatuses !== undefined &&
    !newerShown &&
    recordsOf(statuses, config.gateHash, config.author).length === 0
  const ownCommit = headless
    ? decideOn(config, { ...state, headless: true }, comments, ownStatuses, 'red')
    : undefined
  return ownCommit ?? decideOn(config, { ...state, headless: undefined }, comments, statuses)
}

/** The decision on `statuses`; with `only: 'red'`, none unless the view to write is red. */
function decideOn(
  config: WriterConfig,
  state: WriterState,
  comments: ReadComment[],
  statuses: CommitStatus[]
): WriterState
function decideOn(
  config: WriterConfig,
  state: WriterState,
  comments: ReadComment[],
  statuses: CommitStatus[],
  only: 'red'
): WriterState | undefined
function decideOn(
  config: WriterConfig,
  state: WriterState,
  comments: ReadComment[],
  statuses: CommitStatus[],
  only?: 'red'
): WriterState | undefined {
  const superseded = state.head !== state.sha && !state.headless
  const noted = superseded ? { ...state, superseded } : state
  const kept = comments.at(-1)
  const older = comments.slice(0, -1)
  const records = recordsOf(statuses, config.gateHash, config.author)
  if (!superseded && !records.some((r) => r.key === state.recorded))
    records.push(ownRecord(config, state))
  records.push(...unrecorded(comments, records))
  if (records.length === 0) return end(noted, 'superseded')
  const wanted = viewOf(
    shownRecords(records),
    { key: state.recorded!, details: config.details },
    comments.map((comment) => comment.view)
  )
  if (kept?.view && kept.view.run > wanted.run) return end(noted, 'later run')
  // A superseded run only puts the head's view back over a late write of its own; never creates.
  if (!kept && superseded) return end(noted, 'superseded')
  const red = wanted.results.some((result) => !passed(result.outcome))
  if (only === 'red' && !red) return undefined
  if (!kept && config.mode === 'failure' && !red) return end(noted, 'not needed')
  // A red result is kept only in a comment made after its record: see homeless.
  const target = kept && !homeless(config, noted, kept, wanted) ? kept : undefined
  const passing = passedOn(state, target, wanted)
  // Older comments go once the newest holds every record read, or another leg wrote over this
  // leg's view in it: that leg's read came after the newest was made, so its view holds every
  // record made before, and so every red result an older comment keeps.
  if (target && (passing === 'ends' || holds(target.view, wanted))) {
    return deleteNext({ ...noted, deletes: older.map((comment) => comment.id) })
  }
  if (state.round >= MAX_ROUNDS) return end(noted, 'rounds')
  const footer = runLink(config, wanted.run)
  const body = renderView(config.marker, wanted, footer)
  const next = passing === 'details' ? { ...noted, putBack: true } : noted
  if (target) return ask(next, { call: 'update', id: target.id, url: target.url, body })
  // A new comment shows a pass only once a read after it found no red: it is made as a
  // placeholder, which the next round fills, so a leg that stops then leaves no ✅ beside a red.
  return ask(next, { call: 'create', body: red ? body : renderPlaceholder(config.marker, footer) })
}

/**
 * Whether `kept` cannot hold this leg's red result, which `wanted` shows (not when a newer run of
 * the head is shown, nor when this run is superseded): it is not a comment this leg made, nor
 * newer. A comment made after the record is written only from reads of the records made after it
 * was listed, so each of those writes holds the result. An older comment may get a write from a
 * read before the record (another leg's, that may land later and then stop), which would drop it.
 * Older comments are deleted only once the newest holds every record read (decide).
 */
function homeless(
  config: WriterConfig,
  state: WriterState,
  kept: ReadComment,
  wanted: View
): boolean {
  const shown = wanted.results.some((result) => result.key === state.recorded)
  return shown && !passed(config.own.outcome) && (state.home === undefined || kept.id < state.home)
}

/**
 * Whether another leg wrote the comment after this leg's last write. That leg read the comments,
 * then the records, after this leg's record was made, and writes until the comment holds every
 * record it read: so this leg `ends` (a red leg's comment was made after its record, so that write
 * holds its result: see homeless). A result it could not record is its own to keep (no other leg
 * reads it). Its details, when its result is the one shown, only it has: it puts them back once
 * (`details`); after that, a view may show its line alone.
 */
function passedOn(
  state: WriterState,
  kept: ReadComment | undefined,
  wanted: View
): 'ends' | 'details' | undefined {
  const { mine } = state
  const recorded = state.recorded!
  if (!mine || !kept?.view || kept.id !== mine.id || !recorded.startsWith('s')) return undefined
  if (showsOf(kept.view) === mine.shows) return undefined
  const lacking = !(kept.view.shown === wanted.shown && kept.view.detailed)
  const owed = wanted.shown === recorded && wanted.detailed && lacking && !state.putBack
  return owed ? 'details' : 'ends'
}

function ownRecord(config: WriterConfig, state: WriterState): LegRecord {
  const { leg, told, run, attempt, outcome, name, line } = config.own
  return { key: state.recorded!, leg, told, run, attempt, outcome, line, ...(name ? { name } : {}) }
}

/**
 * Results that could not be recorded (a job without `statuses: write`) live in the views alone: a
 * view carries on those of every comment read (older ones are deleted; shownRecords keeps those of
 * the newest run), though a write from an older read may drop one.
 */
function unrecorded(comments: ReadComment[], records: LegRecord[]): LegRecord[] {
  const found: LegRecord[] = []
  for (const result of comments.flatMap((comment) => comment.view?.results ?? [])) {
    const known = [...records, ...found].some((record) => record.key === result.key)
    if (result.key.startsWith('u-') && !known) found.push(result)
  }
  return found
}

/** The link to the workflow run the view shows, under the results. */
function runLink({ serverUrl, repository }: WriterConfig, run: number): string {
  if (!repository || !run) return ''
  const url = forHtml(`${serverUrl}/${repository}/actions/runs/${run}`, 300)
  return `<p><sub><a href="${url}">Workflow run</a></sub></p>\n`
}
