/*
 * A leg's record as a commit status and back (comment-records.ts): the status's state and its
 * description within GitHub's 140 characters, which statuses are read as records and how, and the
 * order a view shows them in. comment-legs.test.ts holds which records a view shows.
 */
import { describe, expect, it } from '@jest/globals'
import {
  BY_SEVERITY,
  type CommitStatus,
  type LegRecord,
  recordContext,
  recordsOf,
  shownRecords,
  statusOf
} from '../src/runner/comment-records.js'
import { GATE, WHERE } from './support/github/comment-fixtures.js'

const AUTHOR = 'github-actions[bot]'
const TOLD_KEY = `n-${'0123456789abcdef01234567'}`

/** The record of leg `legId` as its leg writes it, run 9 attempt 1 unless told otherwise. */
const written = (legId: string, fields: Partial<Parameters<typeof statusOf>[0]> = {}) =>
  statusOf(
    {
      leg: recordContext(GATE, legId),
      run: 9,
      attempt: 1,
      outcome: 'failure',
      line: `❌ failure: ${legId}`,
      ...fields
    },
    WHERE
  )

/** A status as GitHub lists it: `status` with id `id`, by the action. */
const listed = (id: number, status: Omit<CommitStatus, 'id'>): CommitStatus => ({
  id,
  creator: { login: AUTHOR },
  ...status
})

const read = (statuses: CommitStatus[]) => recordsOf(statuses, GATE, AUTHOR)

describe('a leg’s record as a commit status', () => {
  it('success, pending and error are their own state; every other outcome is a failure', () => {
    const states = BY_SEVERITY.map((outcome) => written('u-9-1-x', { outcome }).state)
    expect(states).toEqual(['success', 'pending', 'failure', 'failure', 'error', 'failure'])
  })

  it('a line of exactly GitHub’s 140 characters is kept whole', () => {
    const line = `❌ failure: ${'x'.repeat(140 - '❌ failure: '.length)}`
    expect(line).toHaveLength(140)
    expect(written('u-9-1-x', { line }).description).toBe(line)
  })

  it('a longer line is cut visibly to its first 110 characters and a count of the rest', () => {
    const line = `❌ failure: ${'x'.repeat(150 - '❌ failure: '.length)}`
    const { description } = written('u-9-1-x', { line })
    expect(description).toBe(`${line.slice(0, 110)}… [40 more characters]`)
  })
})

describe('records read back from commit statuses', () => {
  it('come in the order GitHub made them (by id), whatever order the list is in', () => {
    const statuses = [4, 1, 3, 2].map((id) => listed(id, written(`u-9-1-l${id}`)))
    expect(read(statuses).map((record) => record.key)).toEqual(['s1', 's2', 's3', 's4'])
  })

  it('a status without a creator, a target URL or a description is no record', () => {
    const statuses = [
      listed(1, { ...written('u-9-1-a'), creator: null }),
      listed(2, { ...written('u-9-1-b'), target_url: null }),
      listed(3, { ...written('u-9-1-c'), description: undefined }),
      listed(4, written('u-9-1-d'))
    ]
    expect(read(statuses).map((record) => record.key)).toEqual(['s4'])
  })

  it('a status whose target URL has text after the attempt is not read as a run', () => {
    const own = written('u-9-1-a')
    const statuses = [listed(1, { ...own, target_url: `${own.target_url}/job/5` })]
    expect(read(statuses)).toEqual([])
  })

  it('an attempt and a run of several digits are read whole', () => {
    const [record] = read([listed(1, written('u-9-1-a', { run: 1234, attempt: 12 }))])
    expect(record).toMatchObject({ run: 1234, attempt: 12 })
  })

  it('a leg is told apart only by a context that ends in n- and exactly 24 hex digits', () => {
    const statuses = [
      listed(1, written(TOLD_KEY)),
      listed(2, written(`u-9-1-${TOLD_KEY}`)),
      listed(3, written(`${TOLD_KEY}8`))
    ]
    expect(read(statuses).map((record) => record.told)).toEqual([true, false, false])
  })
})

describe('the order a view shows records in', () => {
  const record = (key: string, attempt: number, told = false): LegRecord => ({
    key,
    leg: recordContext(GATE, told ? TOLD_KEY : `u-9-${attempt}-${key}`),
    told,
    run: 9,
    attempt,
    outcome: 'failure',
    line: `❌ failure: ${key}`
  })

  it('by attempt, then as GitHub made them; a result not recorded comes after the recorded', () => {
    const records = [record('s5', 2), record('s4', 1), record('u-x', 1), record('s3', 1)]
    expect(shownRecords(records).map((r) => r.key)).toEqual(['s3', 's4', 'u-x', 's5'])
  })

  it('a told leg’s attempt stays when the attempt after it holds two records of its name', () => {
    const records = [record('s1', 1, true), record('s2', 2, true), record('s3', 2, true)]
    expect(shownRecords(records).map((r) => r.key)).toEqual(['s1', 's2', 's3'])
  })
})
