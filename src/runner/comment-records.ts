/*
 * Each leg's result, in a record only that leg writes: a commit status on its run's head commit,
 * with a `context` of its own (`neon-operations-gate/<gate>/<leg>`), its outcome and line in the
 * description, and its run and attempt in the target URL (the run attempt's page). No write of
 * another leg can erase it: GitHub keeps every status, and a status in another context changes
 * nothing of this one. A leg told apart (its job's name or `pr_comment_leg`) writes in the same
 * context in every attempt; a leg that cannot tell itself apart writes in a context of its own
 * run, attempt and id. The sticky comment is a view of these records (comment-view.ts).
 */
import { truncate } from '../domain/untrusted-text.js'
import type { RunOutcome } from '../report/report.js'

/** Outcomes from the least to the most severe: the view's headline is the most severe. */
export const BY_SEVERITY = [
  'success',
  'pending',
  'cancelled',
  'timeout',
  'error',
  'failure'
] as const
/** GitHub's limit on a status's description. */
const DESCRIPTION_CHARS = 140
const CONTEXT_PREFIX = 'neon-operations-gate/'
/** A told leg's context ends in its key (`n-…`); an untold leg's in `u-<run>-<attempt>-<id>`. */
const TOLD = /^n-[0-9a-f]{24}$/
const RUN_URL = /\/actions\/runs\/(\d+)\/attempts\/(\d+)$/
// The outcome is the line's second word, in any case: an error's headline says `Error:`.
const DESCRIBED = new RegExp(`^(?:\\[(.+?)\\] )?(\\S+ (${BY_SEVERITY.join('|')})\\b.*)$`, 'si')

/** One leg's result as its record holds it. */
export interface LegRecord {
  /** `s<status id>`; `u-…` for a result that could not be recorded (it lives in the view only). */
  key: string
  /** The context: the same for every attempt of a leg told apart. */
  leg: string
  told: boolean
  run: number
  attempt: number
  outcome: RunOutcome
  /** The leg's name when told apart; the report's first line. */
  name?: string
  line: string
}

/** A commit status, as GitHub's REST API lists it (the fields read here). */
export interface CommitStatus {
  id: number
  state: string
  context: string
  description?: string | null
  target_url?: string | null
  creator?: { login: string } | null
}

/** What a leg writes as its record: a commit status's fields. */
export interface StatusWrite {
  state: 'error' | 'failure' | 'pending' | 'success'
  context: string
  description: string
  target_url: string
}

/** Text within GitHub's 140 characters, visibly cut. */
function cut(text: string): string {
  if (text.length <= DESCRIPTION_CHARS) return text
  return truncate(text, DESCRIPTION_CHARS - 30).slice(0, DESCRIPTION_CHARS)
}

function severity(outcome: RunOutcome): number {
  return BY_SEVERITY.indexOf(outcome)
}

/** The context of a leg's records: `legId` is its key when told apart, else an id of its own. */
export function recordContext(gateHash: string, legId: string): string {
  return `${CONTEXT_PREFIX}${gateHash}/${legId}`
}

/** This leg's record as a commit status. */
export function statusOf(
  record: Omit<LegRecord, 'key' | 'told'>,
  where: { serverUrl: string; repository: string }
): StatusWrite {
  const state =
    record.outcome === 'success' || record.outcome === 'pending' || record.outcome === 'error'
      ? record.outcome
      : 'failure'
  const name = record.name ? `[${record.name.replace(/\[/g, '(').replace(/\]/g, ')')}] ` : ''
  return {
    state,
    context: record.leg,
    description: cut(`${name}${record.line}`),
    target_url: `${where.serverUrl}/${where.repository}/actions/runs/${record.run}/attempts/${record.attempt}`
  }
}

/**
 * The records of gate `gateHash` among a commit's statuses: only those `author` wrote (anyone who
 * can write statuses could copy a context), in the order GitHub made them.
 */
export function recordsOf(statuses: CommitStatus[], gateHash: string, author: string): LegRecord[] {
  const prefix = `${CONTEXT_PREFIX}${gateHash}/`
  const records: LegRecord[] = []
  for (const status of [...statuses].sort((a, b) => a.id - b.id)) {
    if (!status.context.startsWith(prefix) || status.creator?.login !== author) continue
    const run = RUN_URL.exec(status.target_url ?? '')
    const described = DESCRIBED.exec(status.description ?? '')
    if (!run || !described) continue
    records.push({
      key: `s${status.id}`,
      leg: status.context,
      told: TOLD.test(status.context.slice(prefix.length)),
      run: Number(run[1]),
      attempt: Number(run[2]),
      outcome: described[3].toLowerCase() as RunOutcome,
      ...(described[1] ? { name: described[1] } : {}),
      line: described[2]
    })
  }
  return records
}

/**
 * The records a view shows: those of the newest run (a new run starts afresh), and of a leg told
 * apart only its newest attempt's, when that attempt and the one it re-ran each hold one record of
 * the leg (two legs of one name are kept both). A leg that cannot tell itself apart writes a
 * context of its own, so it replaces nothing. In the order they were made (attempt, then record).
 */
export function shownRecords(records: LegRecord[]): LegRecord[] {
  const newest = Math.max(...records.map((record) => record.run))
  const ofRun = records.filter((record) => record.run === newest)
  const count = (leg: string, attempt: number) =>
    ofRun.filter((record) => record.leg === leg && record.attempt === attempt).length
  return ofRun
    .filter(
      (record) =>
        !record.told ||
        count(record.leg, record.attempt) !== 1 ||
        !ofRun.some(
          (later) =>
            later.leg === record.leg &&
            later.attempt > record.attempt &&
            count(later.leg, later.attempt) === 1
        )
    )
    .sort((a, b) => a.attempt - b.attempt || order(a) - order(b))
}

/** Records in the order GitHub made them; results not recorded last. */
function order(record: LegRecord): number {
  return record.key.startsWith('s') ? Number(record.key.slice(1)) : Number.MAX_SAFE_INTEGER
}

/** The `count` most severe records (the newest of equals), in the order they were made. */
export function mostSevere(records: LegRecord[], count: number): LegRecord[] {
  return records
    .map((record, index) => ({ record, index }))
    .sort((a, b) => severity(b.record.outcome) - severity(a.record.outcome) || b.index - a.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index)
    .map(({ record }) => record)
}
