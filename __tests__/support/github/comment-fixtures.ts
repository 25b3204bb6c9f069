/*
 * One gate's legs as the comment protocol's unit tests build them (comment-round.ts, and the
 * records and views it reads): a leg's writer configuration, its commit status as GitHub lists it,
 * and a comment holding another leg's view.
 */
import {
  type CommitStatus,
  recordsOf,
  shownRecords,
  statusOf
} from '../../../src/runner/comment-records.js'
import type { ReadComment, WriterConfig } from '../../../src/runner/comment-round.js'
import { readView, renderView, viewOf } from '../../../src/runner/comment-view.js'
import { recordContext } from '../../../src/runner/comment-records.js'

export const GATE = '0123456789abcdef'
export const MARKER = `<!-- neon-operations-gate:${GATE} -->`
export const WHERE = { serverUrl: 'https://github.com', repository: 'octo/app' }
export const SHA = 'c'.repeat(40)

const EMOJI: Record<string, string> = { success: '✅', pending: '⏳' }

/** Leg `name` of run 9, attempt 1, not told apart, writing with pr_comment: always. */
export function legConfig(
  name: string,
  outcome: WriterConfig['own']['outcome'],
  changes: Partial<WriterConfig> = {}
): WriterConfig {
  return {
    marker: MARKER,
    gateHash: GATE,
    author: 'me',
    mode: 'always',
    ...WHERE,
    sha: SHA,
    own: {
      id: name,
      leg: recordContext(GATE, `u-9-1-${name}`),
      told: false,
      run: 9,
      attempt: 1,
      outcome,
      line: `${EMOJI[outcome] ?? '❌'} ${outcome}: ${name}`
    },
    details: `<p>details of ${name}</p>`,
    ...changes
  }
}

/** The legs' records as GitHub lists a commit's statuses: status `id` for each leg. */
export const statusesOf = (...legs: [number, WriterConfig][]): CommitStatus[] =>
  legs.map(([id, config]) => ({ id, ...statusOf(config.own, WHERE), creator: { login: 'me' } }))

/**
 * Comment `id` as a read finds it, holding the view of `statuses` that a leg renders: with the
 * details of the record `detailsOf` names (its key, `s<id>`), or with none of its own.
 */
export function commentOf(id: number, statuses: CommitStatus[], detailsOf = 'none'): ReadComment {
  const body = viewBody(statuses, detailsOf)
  return { id, url: `https://c/${id}`, view: readView(body, MARKER) }
}

/** The body of a comment holding the view of `statuses`, as commentOf reads it. */
export function viewBody(statuses: CommitStatus[], detailsOf = 'none'): string {
  const records = shownRecords(recordsOf(statuses, GATE, 'me'))
  const details = `<p>details of ${detailsOf}</p>`
  return renderView(MARKER, viewOf(records, { key: detailsOf, details }, []), '')
}
