/*
 * The judgement of what ended before the project gate started (recent-failures.ts), rule by rule:
 * the newest operation on each compute (or of each action on the branch) decides whatever its age
 * on a gated branch (the list's order says which is newer), the whole project's 15-minute window
 * for warnings, which failures fail the gate, and the warnings for the rest. The same rules over
 * the local API server are in simulated/recent-failures.test.ts; the invariants over generated
 * histories in simulated/verdict-properties.test.ts.
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

/** An operation that ended in `status` `agoMs` before the gate started, 5 s after its creation; no error text unless `fields` give one (the API may leave it out). */
function ended(status: string, agoMs: number, fields: Partial<Operation> = {}): Operation {
  const created = STARTED_AT - agoMs
  const times = { created_at: iso(created), updated_at: iso(created + 5000) }
  return operation({ status, error: undefined, ...times, ...fields })
}

const ids = (failures: RecentFailure[]) => failures.map((failure) => failure.operation.id)

function warnings(failures: RecentFailure[]): string[] {
  const { logger, lines } = collectingLogger()
  warnRecentFailures(failures, logger)
  return lines
}

/** The failures among `operations`, listed in this order (newest first), as the first read sees them. */
function judged(operations: Operation[], branchGated = true): RecentFailure[] {
  const recent = new RecentOperations(STARTED_AT)
  for (const operation of operations) recent.add(operation)
  return recent.failures(branchGated)
}

/** A failure as judged: `ended` operations ended 5 s after their creation. */
const failure = (operation: Operation, failsGate: boolean, endedAgoMs?: number) => ({
  operation,
  failsGate,
  endedAgoMs: endedAgoMs ?? STARTED_AT - Date.parse(operation.updated_at as string)
})

describe('RecentOperations on a gated branch: the state decides, whatever its age', () => {
  it('an error still the newest on its compute fails the gate, minutes, hours or 23 h 59 min old', () => {
    for (const agoMs of [
      0,
      MINUTE,
      WINDOW,
      WINDOW + 1,
      20 * MINUTE,
      3 * 60 * MINUTE,
      1439 * MINUTE
    ]) {
      const error = ended('error', agoMs)
      expect(judged([error])).toEqual([failure(error, true, Math.max(0, agoMs - 5000))])
    }
  })

  it('created after the gate started counts too, as ended when it started', () => {
    const after = ended('error', -MINUTE)
    expect(judged([after])).toEqual([failure(after, true, 0)])
  })

  it('an unreadable time counts wherever it is listed, its age unknown', () => {
    for (const created_at of [undefined, null, '', 'yesterday']) {
      const unreadable = ended('error', MINUTE, { created_at, updated_at: undefined })
      const old = ended('finished', WINDOW + 1, { action: 'old', endpoint_id: null })
      expect(judged([old, unreadable])).toEqual([
        { operation: unreadable, failsGate: true, endedAgoMs: undefined }
      ])
    }
  })

  it('a cancelled one still the newest on its compute is a warning, whatever its age', () => {
    const cancelled = ended('cancelled', 3 * 60 * MINUTE)
    expect(judged([cancelled])).toEqual([failure(cancelled, false)])
  })
})

describe('RecentOperations on the whole project: a warning for what failed in the 15 minutes before', () => {
  it('created exactly 15 minutes before counts; a millisecond earlier does not', () => {
    const edge = ended('error', WINDOW)
    expect(judged([edge], false)).toEqual([failure(edge, false)])
    expect(judged([ended('error', WINDOW + 1)], false)).toEqual([])
    expect(judged([ended('error', 3 * 60 * MINUTE)], false)).toEqual([])
  })

  it('a creation time that cannot be read counts, while nothing older than the window came before it', () => {
    const unreadable = ended('error', MINUTE, { created_at: 'not a time', endpoint_id: 'ep-u' })
    const first = ended('finished', 0, { action: 'other', endpoint_id: null })
    expect(judged([first, unreadable], false)).toEqual([failure(unreadable, false)])
    const old = ended('finished', WINDOW + 1, { action: 'old', endpoint_id: null })
    expect(judged([old, unreadable], false)).toEqual([])
    // One created exactly at the start of the window is in it: an unreadable time after it counts.
    const edge = ended('finished', WINDOW, { action: 'edge', endpoint_id: null })
    expect(judged([edge, unreadable], false)).toEqual([failure(unreadable, false)])
    // A readable time in the window counts even after one past it.
    const error = ended('error', MINUTE, { endpoint_id: 'ep-r' })
    expect(judged([old, error], false)).toEqual([failure(error, false)])
  })
})

describe('RecentOperations: the newest on each compute, or of each action on the branch, decides', () => {
  it.each([
    ['on the gated branch an error fails the gate, a cancelled does not', true],
    ['on the whole project no failure fails the gate', false]
  ])('%s', (_case, gatedBranch) => {
    const error = ended('error', MINUTE, { endpoint_id: 'ep-a' })
    const cancelled = ended('cancelled', 2 * MINUTE, { endpoint_id: 'ep-b' })
    expect(judged([error, cancelled], gatedBranch)).toEqual([
      failure(error, gatedBranch),
      failure(cancelled, false)
    ])
  })

  it('only what ended in failure: finished, skipped, failed (retried) and in-flight ones are not', () => {
    const others = ['finished', 'skipped', 'failed', 'running', 'scheduling', 'teleporting'].map(
      (status, index) => ended(status, MINUTE + index, { endpoint_id: `ep-${index}` })
    )
    expect(judged(others)).toEqual([])
  })

  it('a newer success of the same action on the compute, or a newer successful start_compute, supersedes a failure', () => {
    for (const status of ['finished', 'skipped']) {
      const newer = ended(status, MINUTE, { action: 'apply_config' })
      const older = ended('error', 2 * MINUTE, { action: 'apply_config' })
      expect(judged([newer, older])).toEqual([])
      const started = ended(status, MINUTE, { action: 'start_compute' })
      const suspend = ended('error', 2 * MINUTE, { action: 'suspend_compute' })
      const config = ended('cancelled', 3 * MINUTE, { action: 'apply_config' })
      expect(judged([started, suspend, config])).toEqual([])
    }
  })

  it('a newer suspend_compute or check_availability that finished supersedes no failure of another action: the error stands', () => {
    for (const action of ['suspend_compute', 'check_availability', 'apply_config']) {
      const newer = ended('finished', MINUTE, { action })
      const start = ended('error', 2 * MINUTE, { action: 'start_compute' })
      const config = ended('error', 3 * MINUTE, {
        action: action === 'apply_config' ? 'suspend_compute' : 'apply_config'
      })
      expect(judged([newer, start, config])).toEqual([failure(start, true), failure(config, true)])
    }
  })

  it('a newer one in flight that cannot supersede it leaves the error standing now; one that can decides once it ends', () => {
    const suspending = ended('running', MINUTE, { action: 'suspend_compute' })
    const start = ended('error', 2 * MINUTE, { action: 'start_compute' })
    expect(judged([suspending, start])).toEqual([failure(start, true)])
    const starting = ended('running', MINUTE, { action: 'start_compute' })
    const config = ended('error', 2 * MINUTE, { action: 'apply_config' })
    expect(judged([starting, config])).toEqual([])
  })

  it('on a branch, an action without a compute is superseded only by a newer success of that action', () => {
    const branchOnly = { endpoint_id: undefined }
    const reset = ended('finished', MINUTE, { action: 'reset_branch', ...branchOnly })
    const create = ended('error', 2 * MINUTE, { action: 'create_branch', ...branchOnly })
    expect(judged([reset, create])).toEqual([failure(create, true)])
    const again = ended('finished', MINUTE, { action: 'create_branch', ...branchOnly })
    expect(judged([again, create])).toEqual([])
  })

  it('a newer one still in flight decides once it ends: the older error does not fail the gate now', () => {
    for (const status of ['running', 'scheduling', 'failed']) {
      expect(judged([ended(status, MINUTE), ended('error', 2 * MINUTE)])).toEqual([])
    }
  })

  it('the failures newer than the newest that succeeded all count, a newer cancelled too', () => {
    const cancelled = ended('cancelled', MINUTE)
    const error = ended('error', 2 * MINUTE)
    const finished = ended('finished', 3 * MINUTE)
    const before = ended('error', 4 * MINUTE)
    expect(judged([cancelled, error, finished, before])).toEqual([
      failure(cancelled, false),
      failure(error, true)
    ])
  })

  it('the list says which is newer, not the times: the first listed counts', () => {
    const first = ended('error', 2 * MINUTE)
    const second = ended('finished', MINUTE)
    expect(ids(judged([first, second]))).toEqual([first.id])
  })

  it('another compute, another action without a compute, or another branch supersedes nothing', () => {
    const otherAction = ended('finished', MINUTE, {
      action: 'apply_config',
      branch_id: 'br-a',
      endpoint_id: null
    })
    const otherBranch = ended('finished', MINUTE, { branch_id: 'br-b', endpoint_id: 'ep-a' })
    const failed = ended('error', 2 * MINUTE, { branch_id: 'br-a', endpoint_id: 'ep-a' })
    expect(ids(judged([otherAction, otherBranch, failed]))).toEqual([failed.id])
  })

  it("a replica's start never hides the read-write compute's failed one; the same compute does", () => {
    const replica = ended('finished', 10_000, { endpoint_id: 'ep-replica' })
    const readWrite = ended('error', 20_000, {
      endpoint_id: 'ep-read-write',
      error: 'out of capacity'
    })
    expect(judged([replica, readWrite])).toEqual([failure(readWrite, true)])
    const retried = ended('finished', 5_000, { endpoint_id: 'ep-read-write' })
    expect(judged([retried, replica, readWrite])).toEqual([])
  })

  it('an operation with a compute and one without are never the same: neither supersedes the other', () => {
    const onBranch = ended('finished', MINUTE, { endpoint_id: undefined })
    const onCompute = ended('error', 2 * MINUTE, { endpoint_id: 'ep-read-write' })
    expect(ids(judged([onBranch, onCompute]))).toEqual([onCompute.id])
    const withCompute = ended('finished', MINUTE, { endpoint_id: 'ep-read-write' })
    const withoutCompute = ended('error', 2 * MINUTE, { endpoint_id: null })
    expect(ids(judged([withCompute, withoutCompute]))).toEqual([withoutCompute.id])
    // Two without a compute are the same when their action is.
    const again = ended('finished', MINUTE, { action: 'create_branch', endpoint_id: undefined })
    const failed = ended('error', 2 * MINUTE, { action: 'create_branch', endpoint_id: null })
    expect(judged([again, failed])).toEqual([])
    const other = ended('finished', MINUTE, { action: 'restore_branch', endpoint_id: '' })
    expect(ids(judged([other, failed]))).toEqual([failed.id])
  })

  it('an operation listed twice (repeated across a page boundary) counts once, where it was first listed', () => {
    const error = ended('error', MINUTE, { endpoint_id: 'ep-a' })
    const cancelled = ended('cancelled', 2 * MINUTE, { endpoint_id: 'ep-b' })
    expect(judged([error, cancelled, { ...cancelled }, { ...error }])).toEqual([
      failure(error, true),
      failure(cancelled, false)
    ])
    const [first] = judged([error, { ...error, status: 'finished' }])
    expect(first.operation).toBe(error)
  })

  it('an operation without a branch, or with neither an action nor a compute, stands alone', () => {
    for (const fields of [
      { action: undefined, endpoint_id: null },
      { action: '', endpoint_id: '' },
      { branch_id: undefined },
      { branch_id: '' },
      { action: undefined, branch_id: undefined }
    ]) {
      const newer = ended('finished', MINUTE, fields)
      const failed = ended('error', 2 * MINUTE, fields)
      expect(ids(judged([newer, failed]))).toEqual([failed.id])
    }
  })

  it('newest first, in the order listed, across computes', () => {
    const a = ended('error', MINUTE, { endpoint_id: 'ep-a' })
    const b = ended('cancelled', 2 * MINUTE, { endpoint_id: 'ep-b' })
    const c = ended('error', 3 * MINUTE, { endpoint_id: 'ep-a', branch_id: 'br-c' })
    const d = ended('error', 4 * MINUTE, { endpoint_id: 'ep-b' })
    expect(ids(judged([a, b, c, d], false))).toEqual([a.id, b.id, c.id, d.id])
  })

  it('nothing listed, nothing judged', () => {
    expect(judged([])).toEqual([])
  })
})

describe('warnRecentFailures', () => {
  /** The warnings for `operation` as the whole project's first read judges it. */
  const warn = (operation: Operation) => warnings(judged([operation], false))

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
      `warning: Ended in failure before the gate started: start_compute ${error.id} on br-y, error 35.0 s before the gate started; the project gate does not fail on it; gate on its branch to fail on it`
    ])
  })

  it('a failure that fails the gate is not warned about: the error line names it', () => {
    expect(warnings([{ operation: ended('error', 40_000), failsGate: true }])).toEqual([])
  })

  it('without an action, a branch or an error message, the warning says so plainly', () => {
    const bare = ended('error', 40_000, { action: null, branch_id: undefined, error: '' })
    expect(warn(bare)).toEqual([
      `warning: Ended in failure before the gate started: operation ${bare.id} on its branch, error 35.0 s before the gate started; the project gate does not fail on it; gate on its branch to fail on it`
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
    const odd = { operation: ended(status, 40_000), failsGate: false, endedAgoMs: 35_000 }
    expect(warnings([odd])[0]).toContain(`, ${'s'.repeat(40)}… [1 more characters] `)
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

  it('where the clocks disagree, each age is a least ("at least"), on both gates; else as is', () => {
    const error = ended('error', 10 * MINUTE, { updated_at: iso(STARTED_AT - 90_000) })
    const recent = new RecentOperations(STARTED_AT)
    recent.add(error)
    for (const branchGated of [true, false]) {
      const [least] = recent.failures(branchGated, true)
      expect(least).toEqual({ ...failure(error, branchGated), atLeast: true })
      const [exact] = recent.failures(branchGated, false)
      expect(exact).not.toHaveProperty('atLeast')
    }
    const [warned] = warnings(recent.failures(false, true))
    expect(warned).toContain(', error at least 1 min 30 s before the gate started;')
    expect(warnings(recent.failures(false))[0]).toContain(
      ', error 1 min 30 s before the gate started;'
    )
    const asStarted = ended('error', MINUTE, { updated_at: iso(STARTED_AT) })
    expect(warnings([{ ...failure(asStarted, false), atLeast: true }])[0]).toContain(
      ', error as the gate started;'
    )
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
