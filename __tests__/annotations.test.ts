import { describe, expect, it } from '@jest/globals'
import { annotationsFor, MAX_OPERATION_ANNOTATIONS } from '../src/runner/annotations.js'
import type { RunReport } from '../src/report/report.js'
import type { Operation } from '../src/domain/schemas.js'
import type { WaitResult } from '../src/wait/wait-for-operations.js'
import { operation } from './support/neon/operations.js'
import type { DatabaseProbe } from '../src/steps/database/database-probe.js'

function report(
  outcome: RunReport['outcome'],
  operations: Operation[],
  extra: Partial<RunReport> = {}
): RunReport {
  const wait: WaitResult = {
    outcome: outcome === 'error' || !outcome ? 'failure' : outcome,
    operations,
    polls: 1,
    observed: true,
    readAt: new Map(),
    elapsedMs: 1000
  }
  return { outcome, requests: { requests: 1, retries: 0 }, wait, ...extra }
}

describe('annotationsFor', () => {
  it('one annotation per failed operation, titled with its action and branch', () => {
    const failed = operation({ action: 'create_branch', status: 'error', error: 'no space left' })
    expect(annotationsFor(report('failure', [failed]))).toEqual([
      {
        title: 'create_branch error on br-main-000001',
        message: `Operation ${failed.id}: no space left`
      }
    ])
  })

  it(`at most ${MAX_OPERATION_ANNOTATIONS} operations, then one that counts the rest`, () => {
    const failed = Array.from({ length: MAX_OPERATION_ANNOTATIONS + 3 }, () =>
      operation({ status: 'error' })
    )
    const annotations = annotationsFor(report('failure', failed))
    expect(annotations).toHaveLength(MAX_OPERATION_ANNOTATIONS + 1)
    expect(annotations.at(-1)).toEqual({
      title: '3 more operations failed',
      message: 'The job summary lists every operation.'
    })
  })

  it('a timeout names the first operation still in flight', () => {
    const running = operation({ action: 'apply_config', status: 'running' })
    const [annotation] = annotationsFor(report('timeout', [running]))
    expect(annotation.title).toBe('timeout: apply_config still running on br-main-000001')
    expect(annotation.message).toMatch(/^timeout ran out with 1 still in flight: /)
  })

  it('a timeout that the state held, nothing in flight read: the message says what held it', () => {
    const held = report('timeout', [operation({ status: 'finished' })])
    held.wait = {
      ...held.wait!,
      reason: 'compute ep-a is init, pending active, and its operations were older than the read'
    }
    expect(annotationsFor(held)).toEqual([
      {
        title: 'timeout',
        message:
          'timeout ran out: compute ep-a is init, pending active, and its operations were older than the read'
      }
    ])
  })

  it('a timeout before anything was read says that the state is unknown, and why', () => {
    const unread = report('timeout', [], { error: 'timeout ran out: the API did not answer' })
    unread.wait = { ...unread.wait!, observed: false }
    expect(annotationsFor(unread)).toEqual([
      {
        title: 'timeout: the state of the operations is unknown',
        message: expect.stringMatching(/: timeout ran out: the API did not answer$/)
      }
    ])
  })

  it('a timeout with nothing in flight and no branch holding the gate is a bare timeout', () => {
    const [annotation] = annotationsFor(report('timeout', [operation({ status: 'finished' })]))
    expect(annotation.title).toBe('timeout')
  })

  it('no annotation for a success', () => {
    expect(annotationsFor(report('success', [operation({ status: 'finished' })]))).toEqual([])
  })

  it('a database that did not answer is annotated only when the gate failed, never with an empty message', () => {
    const database: DatabaseProbe = {
      outcome: 'pending',
      state: 'unreachable',
      target: { host: '127.0.0.1', database: 'db', user: 'u' },
      attempts: 1,
      afterControlPlaneMs: 5,
      span: { start: 0, end: 5 },
      failure: { state: 'unreachable', retry: 'retry', message: 'connect ECONNREFUSED' }
    }
    // wait: false, one attempt: the outcome is pending, no failure of the gate.
    expect(annotationsFor(report('pending', [operation()], { database }))).toEqual([])
    const failed = annotationsFor(
      report('timeout', [], { database: { ...database, outcome: 'timeout' } })
    )
    expect(failed).toEqual([
      expect.objectContaining({
        title: 'database unreachable',
        message: expect.stringMatching(/^timeout ran out: /)
      })
    ])
  })
})
