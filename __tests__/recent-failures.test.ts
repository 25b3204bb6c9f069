/*
 * The judgement of what ended just before the project gate started (recent-failures.ts), rule by
 * rule: the 15-minute window, the newest operation of each action on each branch (the list's order
 * says which is newer), which failures fail the gate, and the warnings for the rest. The same rules over the local API server are in
 * simulated/recent-failures.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import type { Operation } from '../src/domain/schemas.js'
import {
  type RecentFailure,
  RecentOperations,
  warnRecentFailures
} from '../src/wait/recent-failures.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'

const STARTED_AT = Date.parse('2026-11-21T12:00:00Z')
const MINUTE = 60_000
const WINDOW = 15 * MINUTE
const iso = (ms: number) => new Date(ms).toISOString()

/** An operation created `agoMs` before the gate started and last updated 5 s later. */
/** An operation that ended in `status` `agoMs` before the gate started, 5 s after its creation; no error text unless `fields` give one (the API may leave it out). */
function ended(status: string, agoMs: number, fields: Partial<Operation> = {}): Operation {
  const created = STARTED_AT - agoMs
  const times = { created_at: iso(created), updated_at: iso(created + 5000) }
  return operation({ status, error: undefined, ...times, ...fields })
}

const ids = (failures: RecentFailure[]) => failures.map((failure) => failure.operation.id)

function warnings(failures: RecentFailure[]): string[] {
  const { logger, lines } = collectingLogger()
  warnRecentFailures(failures, STARTED_AT, logger)
  return lines
}

/** The failures among `operations`, listed in this order (newest first), as the first read sees them. */
function judged(operations: Operation[], branchGated = true): RecentFailure[] {
  const recent = new RecentOperations(STARTED_AT)
  for (const operation of operations) recent.add(operation)
  return recent.failures(branchGated)
}

describe('RecentOperations: the window, 15 minutes before the gate started', () => {
  it('created exactly 15 minutes before counts; a millisecond earlier is only an earlier error', () => {
    const edge = ended('error', WINDOW)
    expect(judged([edge])).toEqual([{ operation: edge, failsGate: true }])
    const before = ended('error', WINDOW + 1)
    expect(judged([before])).toEqual([{ operation: before, failsGate: false, earlier: true }])
    const hours = ended('error', 3 * 60 * MINUTE)
    expect(judged([hours])).toEqual([{ operation: hours, failsGate: false, earlier: true }])
  })

  it('created after the gate started counts too', () => {
    const after = ended('error', -MINUTE)
    expect(judged([after])).toEqual([{ operation: after, failsGate: true }])
  })

  it('a creation time that cannot be read counts, while nothing older than the window came before it', () => {
    for (const created_at of [undefined, null, '', 'yesterday']) {
      const unreadable = ended('error', MINUTE, { created_at })
      expect(judged([ended('finished', 0, { action: 'other' }), unreadable])).toEqual([
        { operation: unreadable, failsGate: true }
      ])
    }
  })

  it('listed after one older than the window, an unreadable time is older too: not recent', () => {
    const old = ended('finished', WINDOW + 1, { action: 'old' })
    const unreadable = ended('error', MINUTE, { created_at: 'not a time' })
    const earlier = [{ operation: unreadable, failsGate: false, earlier: true }]
    expect(judged([old, unreadable])).toEqual(earlier)
    // A recent one in between changes nothing: the list has gone past the window.
    const recent = ended('finished', MINUTE, { action: 'recent' })
    expect(judged([old, recent, unreadable])).toEqual(earlier)
    // Only a readable time past the window says so: an unreadable one before it does not.
    const first = ended('cancelled', MINUTE, { created_at: undefined, action: 'first' })
    expect(judged([first, unreadable, old])).toEqual([
      { operation: first, failsGate: false },
      { operation: unreadable, failsGate: true }
    ])
  })
})

describe('RecentOperations: what is in the window is judged wherever it is listed', () => {
  it('a readable time in the window counts even after one past it', () => {
    const old = ended('finished', WINDOW + 1, { action: 'old' })
    const error = ended('error', MINUTE)
    expect(judged([old, error])).toEqual([{ operation: error, failsGate: true }])
  })

  it('one created exactly at the start of the window is in it: an unreadable time after it still counts', () => {
    const edge = ended('finished', WINDOW, { action: 'edge' })
    const unreadable = ended('error', MINUTE, { created_at: 'not a time' })
    expect(judged([edge, unreadable])).toEqual([{ operation: unreadable, failsGate: true }])
  })
})

describe('RecentOperations: the newest of each action on each branch decides', () => {
  it.each([
    ['on the gated branch an error fails the gate, a cancelled does not', true],
    ['on the whole project no failure fails the gate', false]
  ])('%s', (_case, gatedBranch) => {
    const error = ended('error', MINUTE, { action: 'start_compute' })
    const cancelled = ended('cancelled', 2 * MINUTE, { action: 'apply_config' })
    expect(judged([error, cancelled], gatedBranch)).toEqual([
      { operation: error, failsGate: gatedBranch },
      { operation: cancelled, failsGate: false }
    ])
  })

  it('only what ended in failure: finished, skipped, failed (retried) and in-flight ones are not', () => {
    const others = ['finished', 'skipped', 'failed', 'running', 'scheduling', 'teleporting'].map(
      (status, index) => ended(status, MINUTE + index, { action: `action_${index}` })
    )
    expect(judged(others)).toEqual([])
  })

  it('a newer operation of the same action on the same branch that did not fail supersedes the failures before it', () => {
    const newer = ended('finished', MINUTE)
    const older = ended('error', 2 * MINUTE)
    const oldest = ended('cancelled', 3 * MINUTE)
    expect(judged([newer, older, oldest])).toEqual([])
  })

  it('the failures newer than the newest that did not fail all count, a newer cancelled too', () => {
    const cancelled = ended('cancelled', MINUTE)
    const error = ended('error', 2 * MINUTE)
    const finished = ended('finished', 3 * MINUTE)
    const before = ended('error', 4 * MINUTE)
    expect(judged([cancelled, error, finished, before])).toEqual([
      { operation: cancelled, failsGate: false },
      { operation: error, failsGate: true }
    ])
  })

  it('an older operation that did not fail hides no newer failure', () => {
    const newer = ended('error', MINUTE)
    const older = ended('finished', 2 * MINUTE)
    expect(ids(judged([newer, older]))).toEqual([newer.id])
  })

  it('the list says which is newer, not the times: the first listed counts', () => {
    const first = ended('error', 2 * MINUTE)
    const second = ended('finished', MINUTE)
    expect(ids(judged([first, second]))).toEqual([first.id])
  })

  it('another action, or the same action on another branch, supersedes nothing', () => {
    const otherAction = ended('finished', MINUTE, { action: 'apply_config', branch_id: 'br-a' })
    const otherBranch = ended('finished', MINUTE, { action: 'start_compute', branch_id: 'br-b' })
    const failure = ended('error', 2 * MINUTE, { action: 'start_compute', branch_id: 'br-a' })
    expect(ids(judged([otherAction, otherBranch, failure]))).toEqual([failure.id])
  })

  it("the same action on another compute supersedes nothing: a replica's start never hides the read-write compute's failed one", () => {
    const replica = ended('finished', 10_000, {
      action: 'start_compute',
      endpoint_id: 'ep-replica'
    })
    const readWrite = ended('error', 20_000, {
      action: 'start_compute',
      endpoint_id: 'ep-read-write',
      error: 'out of capacity'
    })
    expect(judged([replica, readWrite])).toEqual([{ operation: readWrite, failsGate: true }])
    // The same compute does supersede it.
    const retried = ended('finished', 5_000, {
      action: 'start_compute',
      endpoint_id: 'ep-read-write'
    })
    expect(judged([retried, replica, readWrite])).toEqual([])
  })

  it('an operation with a compute and one without are never the same: neither supersedes the other', () => {
    const onBranch = ended('finished', MINUTE, { endpoint_id: undefined })
    const onCompute = ended('error', 2 * MINUTE, { endpoint_id: 'ep-read-write' })
    expect(ids(judged([onBranch, onCompute]))).toEqual([onCompute.id])
    const withCompute = ended('finished', MINUTE, { endpoint_id: 'ep-read-write' })
    const withoutCompute = ended('error', 2 * MINUTE, { endpoint_id: null })
    expect(ids(judged([withCompute, withoutCompute]))).toEqual([withoutCompute.id])
    // Two without a compute (an action on the branch itself) are the same action.
    const again = ended('finished', MINUTE, { action: 'create_branch', endpoint_id: undefined })
    const failed = ended('error', 2 * MINUTE, { action: 'create_branch', endpoint_id: null })
    expect(judged([again, failed])).toEqual([])
  })

  it('an operation listed twice (repeated across a page boundary) counts once, where it was first listed', () => {
    const error = ended('error', MINUTE, { action: 'start_compute' })
    const cancelled = ended('cancelled', 2 * MINUTE, { action: 'apply_config' })
    expect(judged([error, cancelled, { ...cancelled }, { ...error }])).toEqual([
      { operation: error, failsGate: true },
      { operation: cancelled, failsGate: false }
    ])
    // As first listed, whatever the repeat says.
    const [first] = judged([error, { ...error, status: 'finished' }])
    expect(first.operation).toBe(error)
  })

  it('an operation without a branch or an action stands alone: nothing supersedes it', () => {
    for (const fields of [
      { action: undefined },
      { action: null },
      { action: '' },
      { branch_id: undefined },
      { branch_id: '' },
      { action: undefined, branch_id: undefined }
    ]) {
      const newer = ended('finished', MINUTE, fields)
      const failure = ended('error', 2 * MINUTE, fields)
      expect(ids(judged([newer, failure]))).toEqual([failure.id])
    }
  })

  it('newest first, in the order listed, across actions', () => {
    const a = ended('error', MINUTE, { action: 'a' })
    const b = ended('cancelled', 2 * MINUTE, { action: 'b' })
    const c = ended('error', 3 * MINUTE, { action: 'a', branch_id: 'br-c' })
    const d = ended('error', 4 * MINUTE, { action: 'b' })
    expect(ids(judged([a, b, c, d], false))).toEqual([a.id, b.id, c.id, d.id])
  })

  it('nothing listed, nothing judged', () => {
    expect(judged([])).toEqual([])
  })
})

describe('RecentOperations: an error before the window, still the newest of its action (gated branch)', () => {
  it('the newest of its action on its compute, created before the window: a warning, marked earlier', () => {
    const error = ended('error', WINDOW + 60_000, {
      action: 'start_compute',
      error: 'out of capacity'
    })
    expect(judged([error], true)).toEqual([{ operation: error, failsGate: false, earlier: true }])
    // Hours old, within the first read's look-back (the source adds nothing older): the same.
    const hoursOld = ended('error', 20 * 60 * MINUTE, { action: 'apply_config' })
    expect(judged([hoursOld], true)).toEqual([
      { operation: hoursOld, failsGate: false, earlier: true }
    ])
  })

  it('on the whole project an earlier error is not reported: that gate answers whether the project is idle', () => {
    expect(judged([ended('error', WINDOW + 60_000)], false)).toEqual([])
  })

  it('only an error: an earlier cancelled one, finished or in flight is not', () => {
    for (const status of ['cancelled', 'finished', 'running', 'failed']) {
      expect(judged([ended(status, WINDOW + 60_000)], true)).toEqual([])
    }
  })

  it('not when anything newer of its action on its compute came after it, whatever its status', () => {
    for (const status of ['finished', 'running', 'cancelled', 'error']) {
      const newer = ended(status, WINDOW + 30_000)
      const error = ended('error', WINDOW + 60_000)
      expect(ids(judged([newer, error], true))).toEqual(status === 'error' ? [newer.id] : [])
    }
    // A recent one: it decides alone (an error fails the gate, a cancelled one is a warning).
    const recent = ended('cancelled', MINUTE)
    const earlier = ended('error', WINDOW + 60_000)
    expect(judged([recent, earlier], true)).toEqual([{ operation: recent, failsGate: false }])
  })

  it('another compute, action or branch does not hide it', () => {
    const replica = ended('finished', WINDOW + 30_000, { endpoint_id: 'ep-replica' })
    const otherAction = ended('finished', MINUTE, { action: 'apply_config' })
    const otherBranch = ended('finished', MINUTE, { branch_id: 'br-other' })
    const error = ended('error', WINDOW + 60_000, { endpoint_id: 'ep-read-write' })
    expect(judged([otherAction, otherBranch, replica, error], true)).toEqual([
      { operation: error, failsGate: false, earlier: true }
    ])
  })

  it('an unreadable time listed after one older than the window is earlier too', () => {
    const old = ended('finished', WINDOW + 1, { action: 'old' })
    const unreadable = ended('error', MINUTE, { created_at: 'not a time' })
    expect(judged([old, unreadable], true)).toEqual([
      { operation: unreadable, failsGate: false, earlier: true }
    ])
  })

  it('recent failures first, in the order listed, then the earlier errors', () => {
    const recent = ended('cancelled', MINUTE, { action: 'a' })
    const earlier = ended('error', WINDOW + MINUTE, { action: 'b' })
    const later = ended('error', WINDOW + 2 * MINUTE, { action: 'c' })
    expect(ids(judged([recent, earlier, later], true))).toEqual([recent.id, earlier.id, later.id])
  })
})

describe('warnRecentFailures', () => {
  const warn = (operation: Operation, failsGate = false) => warnings([{ operation, failsGate }])

  it('one warning for each failure that does not fail the gate, naming it and when it ended', () => {
    const cancelled = ended('cancelled', 40_000, {
      action: 'apply_config',
      branch_id: 'br-x',
      error: 'stopped by the user'
    })
    expect(warn(cancelled)).toEqual([
      `warning: Ended in failure before the gate started: apply_config ${cancelled.id} on br-x, cancelled 35.0 s before the gate started: "stopped by the user"; a cancelled operation does not fail the gate`
    ])
    const error = ended('error', 40_000, { action: 'start_compute', branch_id: 'br-y' })
    expect(warn(error)).toEqual([
      `warning: Ended in failure before the gate started: start_compute ${error.id} on br-y, error 35.0 s before the gate started; the project gate does not fail on it; gate on its branch (branch_id) to fail on it`
    ])
  })

  it('a failure that fails the gate is not warned about: the error line names it', () => {
    expect(warn(ended('error', 40_000), true)).toEqual([])
  })

  it('without an action, a branch or an error message, the warning says so plainly', () => {
    const bare = ended('error', 40_000, { action: null, branch_id: undefined, error: '' })
    expect(warn(bare)).toEqual([
      `warning: Ended in failure before the gate started: operation ${bare.id} on its branch, error 35.0 s before the gate started; the project gate does not fail on it; gate on its branch (branch_id) to fail on it`
    ])
  })

  it("the API's texts are cut: action and branch at 80 characters, the error at 300, the status at 40", () => {
    const long = ended('cancelled', 40_000, {
      action: 'a'.repeat(81),
      branch_id: 'b'.repeat(81),
      error: 'e'.repeat(301)
    })
    const [line] = warn(long)
    expect(line).toContain(` ${'a'.repeat(80)}… [1 more characters] ${long.id} `)
    expect(line).toContain(` on ${'b'.repeat(80)}… [1 more characters], `)
    expect(line).toContain(`: "${'e'.repeat(300)}… [1 more characters]"; `)
    const fits = ended('cancelled', 40_000, {
      action: 'a'.repeat(80),
      branch_id: 'b'.repeat(80),
      error: 'e'.repeat(300)
    })
    expect(warn(fits)[0]).not.toContain('more characters')
    const status = 's'.repeat(41)
    expect(warn(ended(status, 40_000))[0]).toContain(`, ${'s'.repeat(40)}… [1 more characters] `)
  })

  it('when it ended: its last update, else its creation, before the gate started', () => {
    const updated = ended('error', 10 * MINUTE, { updated_at: iso(STARTED_AT - 90_000) })
    expect(warn(updated)[0]).toContain(', error 1 min 30 s before the gate started;')
    const created = ended('error', 10 * MINUTE, { updated_at: null })
    expect(warn(created)[0]).toContain(', error 10 min 00 s before the gate started;')
    const unreadable = ended('error', 10 * MINUTE, { updated_at: 'soon' })
    expect(warn(unreadable)[0]).toContain(', error 10 min 00 s before the gate started;')
    const justBefore = ended('error', MINUTE, { updated_at: iso(STARTED_AT - 1) })
    expect(warn(justBefore)[0]).toContain(', error 1 ms before the gate started;')
  })

  it('one that ended as the gate started, after it, or at an unknown time ended "as the gate started"', () => {
    for (const fields of [
      { updated_at: iso(STARTED_AT) },
      { updated_at: iso(STARTED_AT + 5000) },
      { updated_at: undefined, created_at: undefined }
    ]) {
      expect(warn(ended('error', MINUTE, fields))[0]).toContain(', error as the gate started;')
    }
  })

  it('the first five, then one line counting the rest', () => {
    const failures = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        operation: ended('error', MINUTE + index, { action: `action_${index}` }),
        failsGate: false
      }))
    const five = warnings(failures(5))
    expect(five).toHaveLength(5)
    expect(five.every((line) => line.startsWith('warning: Ended in failure'))).toBe(true)
    const six = warnings(failures(6))
    expect(six).toHaveLength(6)
    expect(six[4]).toContain('action_4')
    expect(six[5]).toBe(
      'warning: … and 1 more operation ended in failure before the gate started; the summary lists them'
    )
    const eight = warnings(failures(8))
    expect(eight).toHaveLength(6)
    expect(eight[5]).toBe(
      'warning: … and 3 more operations ended in failure before the gate started; the summary lists them'
    )
  })

  it('an earlier error: named with its age (from its creation), its compute and its error; the gate does not fail on it', () => {
    const error = ended('error', 16 * MINUTE + 40_000, {
      action: 'start_compute',
      branch_id: 'br-x',
      endpoint_id: 'ep-rw',
      error: 'out of capacity'
    })
    expect(warnings([{ operation: error, failsGate: false, earlier: true }])).toEqual([
      `warning: An error older than the 15-minute window, still the newest of its action: start_compute ${error.id} on br-x (compute ep-rw), created 16 min 40 s before the gate started: "out of capacity"; nothing of its action has run there since, so it may not be fixed; the gate does not fail on it`
    ])
    const bare = ended('error', 2 * 60 * MINUTE, {
      action: null,
      branch_id: undefined,
      endpoint_id: null,
      error: null
    })
    expect(warnings([{ operation: bare, failsGate: false, earlier: true }])).toEqual([
      `warning: An error older than the 15-minute window, still the newest of its action: operation ${bare.id} on its branch, created 2 h 00 min before the gate started; nothing of its action has run there since, so it may not be fixed; the gate does not fail on it`
    ])
    const timeless = ended('error', WINDOW, {
      created_at: 'not a time',
      endpoint_id: 'e'.repeat(81)
    })
    const [line] = warnings([{ operation: timeless, failsGate: false, earlier: true }])
    expect(line).toContain(
      ` (compute ${'e'.repeat(80)}… [1 more characters]), created more than 15 minutes before the gate started;`
    )
  })

  it('earlier errors count among the five, after the recent failures', () => {
    const recent = Array.from({ length: 4 }, (_, index) => ({
      operation: ended('cancelled', MINUTE + index, { action: `recent_${index}` }),
      failsGate: false
    }))
    const earlier = Array.from({ length: 3 }, (_, index) => ({
      operation: ended('error', WINDOW + MINUTE + index, { action: `earlier_${index}` }),
      failsGate: false,
      earlier: true as const
    }))
    const lines = warnings([...recent, ...earlier])
    expect(lines).toHaveLength(6)
    expect(lines[4]).toContain('An error older than the 15-minute window')
    expect(lines[4]).toContain('earlier_0')
    expect(lines[5]).toBe(
      'warning: … and 2 more operations ended in failure before the gate started; the summary lists them'
    )
  })

  it('failures that fail the gate take no place among the five, nor in the count', () => {
    const gating = Array.from({ length: 3 }, (_, index) => ({
      operation: ended('error', MINUTE + index, { action: `gating_${index}` }),
      failsGate: true
    }))
    const warned = Array.from({ length: 5 }, (_, index) => ({
      operation: ended('cancelled', 2 * MINUTE + index, { action: `warned_${index}` }),
      failsGate: false
    }))
    const lines = warnings([...gating, ...warned])
    expect(lines).toHaveLength(5)
    for (let index = 0; index < 5; index++) expect(lines[index]).toContain(`warned_${index}`)
  })
})
