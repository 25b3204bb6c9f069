/*
 * What the report says of the check before a teardown (steps/teardown/teardown-words.ts and the
 * parts that use it): the first line and the error line say what blocks the branch, the `blockers`
 * output gives each reason with what to do, long lists are cut with a count, and API text (branch
 * names, restriction reasons) stays text in every format.
 */
import { describe, expect, it } from '@jest/globals'
import { judgeTeardown } from '../src/domain/teardown-rules.js'
import type { Operation, RelatedBranch, TeardownBranch } from '../src/domain/schemas.js'
import { annotationsFor } from '../src/runner/annotations.js'
import { errorLine } from '../src/gate/run-report.js'
import { typedOutputs } from '../src/gate/run-report.js'
import type { RunReport } from '../src/report/report.js'
import { renderSummary, renderTextReport } from '../src/gate/run-report.js'
import { failedWhileIdling, teardownNotes } from '../src/steps/teardown/teardown-words.js'
import { phraseText } from '../src/domain/phrase.js'
import type { TeardownCheck } from '../src/steps/teardown/teardown-check.js'
import { operation } from './support/neon/operations.js'
import { TEARDOWN_STEP } from '../src/steps/teardown/teardown-step.js'
import type { WaitPlan } from '../src/domain/wait-plan.js'

/** The wait as the teardown's hook plans it before `action`. */
const waitBefore = (action: 'delete' | 'reset'): WaitPlan | undefined =>
  TEARDOWN_STEP.plan({
    inputs: { before: action, branchId: 'preview/pr-7', failFast: false },
    gate: 'branch',
    wait: { covers: 'branch', failFast: false }
  })?.wait

const target: TeardownBranch = {
  id: 'br-preview-7',
  name: 'preview/pr-7',
  parent_id: 'br-main-1',
  current_state: 'ready'
}
const child = (index: number, name = `preview/pr-7-child-${index}`): RelatedBranch => ({
  id: `br-child-${index}`,
  name,
  parent_id: target.id
})

function checked(
  action: 'delete' | 'reset',
  branch: Partial<TeardownBranch> = {},
  family: RelatedBranch[] = []
): TeardownCheck {
  const fresh = { ...target, ...branch }
  const judgement = judgeTeardown(action, fresh, family)
  const preflight = judgement.blockers.length > 0 ? 'blocked' : 'clear'
  return { action, preflight, branch: fresh, judgement }
}

const reportOf = (teardown: TeardownCheck, operations: Operation[] = []): RunReport => ({
  requests: { requests: 4, retries: 0 },
  projectId: 'p-1',
  waitPlan: waitBefore(teardown.action),
  teardown,
  branch: teardown.preflight === 'gone' ? undefined : teardown.branch,
  outcome: teardown.preflight === 'blocked' ? 'failure' : 'success',
  elapsedMs: 1200,
  wait: {
    outcome: 'success',
    operations,
    polls: 1,
    observed: true,
    readAt: new Map(),
    elapsedMs: 1200
  }
})

describe('blocked', () => {
  const check = checked('delete', { protected: true }, [child(1), child(2)])
  const report = reportOf(check)

  it('the first line, the error line and the annotation say what blocks the branch', () => {
    const why =
      'branch preview/pr-7 (br-preview-7) cannot be deleted: it is protected; remove its protection first; it has 2 child branches, to delete first: preview/pr-7-child-1 (br-child-1), preview/pr-7-child-2 (br-child-2)'
    expect(renderTextReport(report).split('\n')[0]).toBe(`❌ failure: ${why}`)
    expect(errorLine(report)).toBe(`B${why.slice(1)}`)
    expect(annotationsFor(report)).toEqual([
      {
        title: 'cannot delete branch preview/pr-7: protected, children',
        message: `B${why.slice(1)}`
      }
    ])
    expect(renderSummary(report)).toContain(
      '<p><b>❌ failure</b>: branch <code>preview/pr-7</code> (<code>br-preview-7</code>) cannot be deleted: it is protected'
    )
  })

  it('the outputs: preflight blocked, and each blocker with what to do', () => {
    const { values } = typedOutputs(report)
    expect(values.preflight).toBe('blocked')
    expect(values.preflight_branch_id).toBe('br-preview-7')
    expect(values.blockers).toEqual([
      { reason: 'protected', detail: 'it is protected; remove its protection first' },
      {
        reason: 'children',
        detail:
          'it has 2 child branches, to delete first: preview/pr-7-child-1 (br-child-1), preview/pr-7-child-2 (br-child-2)'
      }
    ])
  })

  it('every reason worded, for a delete and for a reset', () => {
    const restricted = [{ name: 'delete-rw-endpoint', reason: 'used by the Vercel integration' }]
    const deleting = typedOutputs(
      reportOf(
        checked('delete', { parent_id: null, default: true, restricted_actions: restricted })
      )
    ).values.blockers
    expect(deleting).toEqual([
      {
        reason: 'root',
        detail: 'it is a root branch (it has no parent_id), which the API does not delete'
      },
      {
        reason: 'default',
        detail: "it is the project's default branch; make another branch the default first"
      },
      {
        reason: 'restricted',
        detail:
          'its restricted_actions refuse a delete: delete-rw-endpoint: "used by the Vercel integration"'
      }
    ])
    const resetting = typedOutputs(
      reportOf(
        checked('reset', { parent_id: null, restricted_actions: [{ name: 'restore', reason: '' }] })
      )
    ).values.blockers
    expect(resetting).toEqual([
      {
        reason: 'root',
        detail: 'it is a root branch (it has no parent_id): there is no parent to reset it to'
      },
      { reason: 'restricted', detail: 'its restricted_actions refuse a reset: restore' }
    ])
  })

  it('10 children named, then a count; 5 restrictions, then a count', () => {
    const many = Array.from({ length: 13 }, (_, index) => child(index))
    const restrictions = Array.from({ length: 7 }, (_, index) => ({
      name: `delete-${index}`,
      reason: `why ${index}`
    }))
    const { blockers } = typedOutputs(
      reportOf(checked('delete', { restricted_actions: restrictions }, many))
    ).values as { blockers: { detail: string }[] }
    expect(blockers[0].detail).toMatch(/^it has 13 child branches, to delete first: /)
    expect(blockers[0].detail).toContain('preview/pr-7-child-9 (br-child-9), and 3 more')
    expect(blockers[0].detail).not.toContain('br-child-10')
    expect(blockers[1].detail).toMatch(/delete-4: "why 4"; and 2 more$/)
  })
})

describe('clear and gone', () => {
  it('clear: the first line says nothing blocks it and the project is idle; blockers []', () => {
    const report = reportOf(checked('delete'), [
      operation({ id: 'op-1', status: 'finished', created_at: '2026-11-21T10:00:00Z' })
    ])
    expect(renderTextReport(report).split('\n')[0]).toBe(
      '✅ success: branch preview/pr-7 (br-preview-7) can be deleted now: nothing blocks it; the project is idle: the operation finished in 1.2 s'
    )
    expect(errorLine(report)).toBeUndefined()
    expect(annotationsFor(report)).toEqual([])
    // The id the check read: the teardown deletes exactly that branch, never a name read again.
    expect(typedOutputs(report).values).toMatchObject({
      preflight: 'clear',
      preflight_branch_id: 'br-preview-7',
      blockers: []
    })
    expect(renderSummary(report)).toContain('<h3>Before a delete: clear</h3>')
    expect(renderSummary(report)).toContain('should still retry a 423 (Locked)')
  })

  it('clear after operations that ended in failure: the first line does not say they all finished', () => {
    const report = reportOf(checked('delete'), [
      operation({ id: 'op-1', status: 'finished' }),
      operation({ id: 'op-2', status: 'error', error: 'out of capacity' })
    ])
    expect(renderTextReport(report).split('\n')[0]).toBe(
      '✅ success: branch preview/pr-7 (br-preview-7) can be deleted now: nothing blocks it; the project is idle: all 2 operations ended in 1.2 s, 1 of them in failure'
    )
  })

  it('idle, then the check itself cut short by the timeout: the annotation and the first line say so', () => {
    const error =
      'No retry fits before the deadline: the retry after HTTP 429, Retry-After 3600 would wait 1 h 00 min, with 20.0 s of the timeout left'
    const report: RunReport = {
      ...reportOf(checked('delete')),
      teardown: undefined,
      outcome: 'timeout',
      noRetryFits: 'the retry after HTTP 429 would wait 1 h 00 min',
      error
    }
    const [annotation] = annotationsFor(report)
    expect(annotation.title).toBe('timeout: the project is idle, but the branch was not checked')
    expect(annotation.message).toBe(error)
    expect(renderTextReport(report).split('\n')[0]).toBe(
      '⌛ timeout after 1.2 s: the project is idle, but the branch was not checked'
    )
  })

  it('gone: nothing to delete, as the first line and as a notice; blockers []', () => {
    const report = goneBranch(2)
    expect(renderTextReport(report).split('\n')[0]).toBe(
      '✅ success: branch preview/pr-7 is gone: nothing to delete'
    )
    expect(teardownNotes(report.teardown!).notices.map(phraseText)).toEqual([
      'branch preview/pr-7 is gone: nothing to delete'
    ])
    expect(typedOutputs(report).values).toMatchObject({ preflight: 'gone', blockers: [] })
    expect(typedOutputs(report).values).not.toHaveProperty('preflight_branch_id')
    expect(renderSummary(report)).not.toContain('423')
  })

  it('gone found before the first poll: no error claimed, nothing said of unread operations', () => {
    const report = goneBranch(1)
    for (const text of [renderSummary(report), renderTextReport(report)]) {
      expect(text).not.toContain('error')
      expect(text).not.toContain('unknown')
    }
  })
})

describe('warnings and notices', () => {
  it('children before a reset: a warning about preserve_under_name; restrictions of other actions: a notice', () => {
    const check = checked(
      'reset',
      { restricted_actions: [{ name: 'delete-rw-endpoint', reason: 'in use' }] },
      [child(1)]
    )
    expect(check.preflight).toBe('clear')
    const { warnings, notices } = teardownNotes(check)
    expect(warnings.map(phraseText)).toEqual([
      'Branch preview/pr-7 (br-preview-7) has 1 child branch (preview/pr-7-child-1 (br-child-1)): the reset must keep its current state under another name (preserve_under_name), where the children move'
    ])
    expect(notices.map(phraseText)).toEqual([
      'Branch preview/pr-7 (br-preview-7) lists restricted actions that do not stop a reset: delete-rw-endpoint: "in use"'
    ])
    const summary = renderSummary(reportOf(check))
    expect(summary).toContain('<p>⚠️ Branch <code>preview/pr-7</code>')
    expect(summary).toContain('<p>ℹ️ Branch <code>preview/pr-7</code>')
  })

  it('operations that ended in failure while the gate waited: a warning each, the first five, then a count', () => {
    const failed = Array.from({ length: 7 }, (_, index) =>
      operation({
        id: `op-${index}`,
        action: 'start_compute',
        status: 'error',
        error: 'no capacity'
      })
    )
    const warnings = failedWhileIdling(
      [operation({ id: 'op-ok', status: 'finished' }), ...failed],
      'delete'
    ).map(phraseText)
    expect(warnings).toHaveLength(6)
    expect(warnings[0]).toBe(
      'Ended in failure while the gate waited: start_compute op-0 on br-main-000001, error: "no capacity"; before a delete, a failure is no reason to stop'
    )
    expect(warnings[5]).toBe(
      '… and 2 more operations ended in failure while the gate waited; the summary lists them'
    )
    // No failure of the gate's: no annotation for them.
    expect(annotationsFor(reportOf(checked('delete'), failed))).toEqual([])
  })
})

describe('API text stays text', () => {
  it('a branch name and a reason with HTML, Markdown and runner commands: escaped in the summary, made safe in the text', () => {
    const hostile = '<img src=x onerror=alert(1)>\n::error::pwned ##[set-output name=x;]y **bold**'
    const check = checked(
      'delete',
      { name: hostile, restricted_actions: [{ name: 'delete', reason: hostile }] },
      [child(1, hostile)]
    )
    const report = reportOf(check)
    const summary = renderSummary(report)
    expect(summary).not.toContain('<img')
    expect(summary).toContain('&lt;img src=x onerror=alert(1)&gt; ::error::pwned')
    const text = renderTextReport(report)
    expect(text).not.toMatch(/^::/m)
    expect(text).not.toContain('##[')
    expect(text).toContain('\\n::error::pwned ##\\u005bset-output')
  })
})

/** A delete whose branch was gone, after `requests` requests. */
function goneBranch(requests: number): RunReport {
  return {
    requests: { requests, retries: 0 },
    projectId: 'p-1',
    waitPlan: waitBefore('delete'),
    teardown: { action: 'delete', preflight: 'gone', branch: { name: 'preview/pr-7' } },
    outcome: 'success'
  }
}
