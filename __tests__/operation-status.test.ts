/*
 * The contract's table of statuses, entry by entry: what each one means for the wait, with and
 * without fail_fast, and how the summary labels it. Every other rule of the gate reads it.
 */
import { describe, expect, it } from '@jest/globals'
import {
  classifyStatus,
  finalityOf,
  isFinal,
  isFinalFailure,
  isUnfinished,
  statusLabel,
  succeeded
} from '../src/domain/operation-status.js'

/** Every status the contract names (and `error`, which the live API sends), with its class. */
const TABLE = [
  ['finished', 'success'],
  ['skipped', 'success'],
  ['cancelled', 'failure'],
  ['error', 'failure'],
  ['failed', 'retrying'],
  ['scheduling', 'in_flight'],
  ['running', 'in_flight'],
  ['cancelling', 'in_flight']
] as const

/** Text the API might send that is no status of the table, property names of objects included. */
const UNKNOWN = ['teleporting', '', 'Finished', 'RUNNING', ' finished', 'constructor', 'toString']

describe('classifyStatus', () => {
  it.each(TABLE)('%s is %s', (status, statusClass) => {
    expect(classifyStatus(status)).toBe(statusClass)
  })

  it.each(UNKNOWN)('%j is unknown', (status) => {
    expect(classifyStatus(status)).toBe('unknown')
  })
})

/**
 * For each status: [over without fail_fast, over with it, failed for good without fail_fast,
 * failed for good with it, succeeded, unfinished].
 */
type Rule = [boolean, boolean, boolean, boolean, boolean, boolean]
const RULES: [string, Rule][] = [
  ['finished', [true, true, false, false, true, false]],
  ['skipped', [true, true, false, false, true, false]],
  ['cancelled', [true, true, true, true, false, false]],
  ['error', [true, true, true, true, false, false]],
  ['failed', [false, true, false, true, false, true]],
  ['scheduling', [false, false, false, false, false, true]],
  ['running', [false, false, false, false, false, true]],
  ['cancelling', [false, false, false, false, false, true]],
  ['teleporting', [false, false, false, false, false, true]],
  ['constructor', [false, false, false, false, false, true]]
]

describe('what a status means for the wait', () => {
  it.each(RULES)('%s', (status, expected) => {
    const finality = { patient: finalityOf(false), strict: finalityOf(true) }
    const operation = { status }
    expect([
      isFinal(status, false),
      isFinal(status, true),
      isFinalFailure(status, false),
      isFinalFailure(status, true),
      succeeded(status),
      isUnfinished(status)
    ]).toEqual(expected)
    // finalityOf is the same rule, bound to fail_fast once.
    expect([finality.patient.isDone(operation), finality.strict.isDone(operation)]).toEqual(
      expected.slice(0, 2)
    )
    expect([finality.patient.hasFailed(operation), finality.strict.hasFailed(operation)]).toEqual(
      expected.slice(2, 4)
    )
  })

  it('a final failure is always final, and a success never a failure', () => {
    for (const [status] of [...TABLE, ...UNKNOWN.map((text) => [text])]) {
      for (const failFast of [false, true]) {
        if (isFinalFailure(status, failFast)) expect(isFinal(status, failFast)).toBe(true)
        if (succeeded(status)) expect(isFinalFailure(status, failFast)).toBe(false)
      }
      // Unfinished is exactly neither succeeded nor failed for good without fail_fast.
      expect(isUnfinished(status)).toBe(!isFinal(status, false))
    }
  })
})

describe('statusLabel', () => {
  it.each([
    ['finished', '✅ Finished'],
    ['skipped', '⏭️ Skipped'],
    ['cancelled', '🚫 Cancelled'],
    ['error', '❌ Error'],
    ['failed', '🔁 Failed (retrying)'],
    ['scheduling', '🕒 Scheduling'],
    ['running', '⏳ Running'],
    ['cancelling', '⏹️ Cancelling']
  ])('%s reads %s', (status, label) => {
    expect(statusLabel(status)).toBe(label)
  })

  it('an unknown status is shown as it came, after a question mark', () => {
    expect(statusLabel('teleporting')).toBe('❔ teleporting')
    expect(statusLabel('constructor')).toBe('❔ constructor')
    expect(statusLabel('')).toBe('❔ ')
  })
})
