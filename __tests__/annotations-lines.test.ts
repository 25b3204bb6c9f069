import { describe, expect, it } from '@jest/globals'
import { annotationsFor, MAX_OPERATION_ANNOTATIONS } from '../src/runner/annotations.js'
import type { RunReport } from '../src/report/report.js'
import type { Operation } from '../src/domain/schemas.js'
import type { WaitResult } from '../src/wait/wait-for-operations.js'
import { operation } from './support/neon/operations.js'

/** A report whose wait read `operations` (`observed`: something was read), and what `extra` adds. */
function readReport(
  outcome: RunReport['outcome'],
  operations: Operation[],
  extra: Partial<RunReport> = {},
  reason?: string
): RunReport {
  const observed = true
  const waitOutcome = outcome === 'timeout' ? 'timeout' : 'failure'
  const wait: WaitResult = {
    outcome: waitOutcome,
    operations,
    polls: 2,
    observed,
    readAt: new Map(),
    elapsedMs: 5
  }
  return { outcome, requests: { requests: 2, retries: 0 }, wait: { ...wait, reason }, ...extra }
}

describe('annotationsFor, word for word', () => {
  it('an operation without action or branch is titled "operation … on its branch", its message without an error', () => {
    const failed = operation({
      status: 'error',
      action: undefined,
      branch_id: undefined,
      error: undefined
    })
    expect(annotationsFor(readReport('failure', [failed]))).toEqual([
      { title: 'operation error on its branch', message: `Operation ${failed.id}` }
    ])
  })

  it(`exactly ${MAX_OPERATION_ANNOTATIONS} failed operations: one annotation each, none that counts more`, () => {
    const failed = Array.from({ length: MAX_OPERATION_ANNOTATIONS }, () =>
      operation({ status: 'error', error: 'disk full' })
    )
    const annotations = annotationsFor(readReport('failure', failed))
    expect(annotations.map(({ title }) => title)).toEqual(
      failed.map(() => 'start_compute error on br-main-000001')
    )
  })

  it('a teardown check that blocks the branch is the only annotation, beside a failed operation too', () => {
    const failed = operation({ status: 'error' })
    const blocked = readReport('failure', [failed], {
      teardown: {
        action: 'delete',
        preflight: 'blocked',
        branch: { id: 'br-preview-7', name: 'preview/pr-7', protected: true },
        judgement: {
          blockers: [{ reason: 'protected' }],
          childrenBeforeReset: [],
          otherRestrictions: []
        }
      }
    })
    const annotations = annotationsFor(blocked)
    expect(annotations).toHaveLength(1)
    expect(annotations[0].title).toMatch(/^cannot delete branch preview\/pr-7: protected$/)
  })

  it('a timeout before anything was read: the message is what was not read, then why', () => {
    const unread = readReport('timeout', [], { error: 'the API did not answer' })
    unread.wait = { ...unread.wait!, observed: false }
    expect(annotationsFor(unread)).toEqual([
      {
        title: 'timeout: the state of the operations is unknown',
        message: 'Nothing could be read before the timeout ran out: the API did not answer'
      }
    ])
  })

  it('a timeout of an idle-project wait with nothing in flight: titled with what was left unchecked, the error its message', () => {
    const idle = readReport('timeout', [operation({ status: 'finished' })], {
      error: 'the branch check was cut short',
      waitPlan: {
        covers: 'idle project',
        failFast: false,
        idle: {
          for: 'before a delete',
          then: 'whether it can go',
          failuresWhy: 'w',
          unchecked: 'the branch was not checked'
        }
      }
    })
    expect(annotationsFor(idle)).toEqual([
      { title: 'timeout: the branch was not checked', message: 'the branch check was cut short' }
    ])
  })

  it('a timeout with an operation in flight: titled with it, the message names it by id', () => {
    const running = operation({ action: 'apply_config', status: 'running' })
    const [annotation] = annotationsFor(readReport('timeout', [running]))
    expect(annotation.title).toBe('timeout: apply_config still running on br-main-000001')
    expect(annotation.message).toMatch(/^timeout ran out with 1 still in flight: /)
    expect(annotation.message).toContain(running.id)
    expect(annotation.message).toMatch(/\(apply_config on br-main-000001, running for [^)]*\)$/)
    const bare = operation({ status: 'scheduling', action: undefined, branch_id: undefined })
    expect(annotationsFor(readReport('timeout', [bare]))[0].title).toBe(
      'timeout: operation still scheduling on its branch'
    )
  })

  it('a gate that gave up because no retry fitted says so, with the numbers in brackets', () => {
    const running = operation({ status: 'running' })
    const gaveUp = readReport(
      'timeout',
      [running],
      { noRetryFits: 'x' },
      'a retry needs 30 s, 10 s left'
    )
    expect(annotationsFor(gaveUp)[0].message).toMatch(
      /^Gave up with 1 still in flight: .* \(a retry needs 30 s, 10 s left\)$/
    )
  })

  it('a timeout while the gated branch is not ready yet: titled and worded with the branch', () => {
    const notReady = readReport('timeout', [operation({ status: 'finished' })], {
      branch: { id: 'br-preview-7', name: 'preview/pr-7', current_state: 'init' }
    })
    const [annotation] = annotationsFor(notReady)
    expect(annotation.title).toMatch(/^timeout: branch `?preview\/pr-7`? is still init/)
    expect(annotation.message).toMatch(
      /^timeout ran out while branch `?preview\/pr-7`? is still init/
    )
  })

  it('a bare timeout without a reason is just that', () => {
    const bare = readReport('timeout', [operation({ status: 'finished' })])
    expect(annotationsFor(bare)).toEqual([{ title: 'timeout', message: 'timeout ran out' }])
  })

  it('a timeout before anything was read, and no why: the message is only what was not read', () => {
    const unread = readReport('timeout', [])
    unread.wait = { ...unread.wait!, observed: false }
    expect(annotationsFor(unread)[0].message).toBe(
      'Nothing could be read before the timeout ran out'
    )
  })

  it('an error before anything was read is annotated by the step alone: no annotation here', () => {
    const { requests } = readReport('error', [])
    expect(annotationsFor({ outcome: 'error', requests, error: 'boom' })).toEqual([])
  })

  it('an idle-project wait cut short without an error says nothing made up', () => {
    const idle = readReport('timeout', [operation({ status: 'finished' })], {
      waitPlan: {
        covers: 'idle project',
        failFast: false,
        idle: {
          for: 'before a reset',
          then: 'whether it can go',
          failuresWhy: 'w',
          unchecked: 'unchecked'
        }
      }
    })
    expect(annotationsFor(idle)).toEqual([{ title: 'timeout: unchecked', message: '' }])
  })
})
