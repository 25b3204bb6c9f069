import { describe, expect, it } from '@jest/globals'
import { buildOutputs } from '../src/gate/run-report.js'
import type { RunReport } from '../src/report/report.js'
import type { Operation } from '../src/domain/schemas.js'
import type { WaitResult } from '../src/wait/wait-for-operations.js'
import { renderSummary } from '../src/gate/run-report.js'
import { withoutTimeline } from './support/bundles/action.js'
import { operation } from './support/neon/operations.js'

/** A gate's report: its plan waits on the whole project (none but a step run alone has no wait). */
const report = (overrides: Partial<RunReport> & Pick<RunReport, 'outcome'>): RunReport => ({
  requests: { requests: 3, retries: 1 },
  waitPlan: { covers: 'project', failFast: false },
  ...overrides
})

/** A wait of one poll that read everything (`operations`), `elapsedMs` long. */
const waited = (
  outcome: WaitResult['outcome'],
  operations: Operation[],
  elapsedMs = 1
): WaitResult => ({ outcome, polls: 1, observed: true, readAt: new Map(), elapsedMs, operations })

describe('summary', () => {
  it('shows the outcome, the wait, polls, requests, retries and one row per operation', () => {
    const created = Date.parse('2026-11-21T10:00:00Z')
    const html = renderSummary(
      report({
        projectId: 'p-1',
        outcome: 'timeout',
        elapsedMs: 125_000,
        wait: {
          outcome: 'timeout',
          polls: 4,
          observed: true,
          readAt: new Map([['op-1', created + 125_000]]),
          elapsedMs: 125_000,
          operations: [
            operation({
              id: 'op-1',
              action: 'apply_config',
              status: 'failed',
              failures_count: 2,
              error: 'disk <full>',
              total_duration_ms: undefined,
              created_at: '2026-11-21T10:00:00Z',
              updated_at: '2026-11-21T10:00:03Z'
            })
          ]
        }
      })
    )
    expect(html).toContain(
      '<p><b>⌛ timeout</b> after 2 min 05 s: 1 still in flight: <code>apply_config</code> on <code>br-main-000001</code>, <code>failed</code> for 2 min 05 s so far</p>\n<p>waited 2 min 05 s · 4 polls · 3 requests · 1 retry · project <code>p-1</code></p>'
    )
    expect(html).toContain(
      '<tr><td><code>op-1</code></td><td>apply_config</td><td><code>br-main-000001</code></td><td><code>ep-main-000001</code></td><td>🔁 Failed (retrying) (2 failures)<br>disk &lt;full&gt;</td><td>2 min 05 s so far</td><td>2026-11-21 10:00:00 UTC</td></tr>'
    )
    // No blank line may end the HTML block early; only the timeline stands between blank lines.
    expect(withoutTimeline(html)).not.toMatch(/\n\s*\n/)
    expect(html).toContain(
      '\n\n```mermaid\ngantt\n    %%{init: {"gantt": {"leftPadding": 100}}}%%\n    dateFormat x\n    axisFormat %H:%M:%S\n    tickInterval 30second\n    section apply_config\n    ▸ br-main-000001 failed :crit, active, 1795255200000, 1795255325000\n```\n\n'
    )
  })

  it('shows the error and the operations last seen when an error cut the wait short', () => {
    const html = renderSummary(
      report({
        outcome: 'error',
        error: 'HTTP 401 <x>',
        wait: {
          outcome: 'error',
          polls: 2,
          observed: true,
          readAt: new Map(),
          elapsedMs: 5000,
          operations: [operation({ id: 'op-2', status: 'running' })]
        }
      })
    )
    expect(html).toContain('<p><b>❌ Error:</b> HTTP 401 &lt;x&gt;</p>')
    expect(html).toContain('⏳ Running')
  })
})

describe('summary: bounds and honesty', () => {
  it('an error before anything was read says so, instead of "No operation in flight"', () => {
    const html = renderSummary(report({ outcome: 'error', projectId: 'p-1', error: 'HTTP 401' }))
    expect(html).toContain('Nothing could be read before the error')
    expect(html).not.toContain('No operation in flight')
  })

  it('a plan without a wait (a sweep) reads no operation: its error or failure says nothing of them', () => {
    for (const outcome of ['error', 'failure'] as const) {
      const html = renderSummary(report({ outcome, projectId: 'p-1', waitPlan: undefined }))
      expect(html).not.toMatch(/Nothing could be read|No operation in flight/)
    }
  })

  it('stays far below 1 MiB and keeps one HTML block, whatever the API sends', () => {
    const huge = '<&"\r\n# x\u2028'.repeat(100_000)
    const operations = Array.from({ length: 5000 }, () =>
      operation({
        id: huge,
        action: huge,
        branch_id: huge,
        endpoint_id: huge,
        status: huge,
        error: huge
      })
    )
    const projects = Array.from({ length: 5000 }, () => ({ id: huge, name: huge, region_id: huge }))
    const html = renderSummary(
      report({
        outcome: 'timeout',
        projectId: 'p-1',
        error: huge,
        wait: {
          outcome: 'timeout',
          polls: 1,
          observed: true,
          readAt: new Map(),
          elapsedMs: 1,
          operations,
          reason: huge
        },
        listing: { projects, unavailableProjectIds: Array(5000).fill(huge) }
      })
    )
    expect(html.length).toBeLessThan(512 * 1024)
    expect(html).not.toMatch(/\r|\u2028|\n\s*\n/)
    expect(html).not.toContain('mermaid') // 5,000 operations: the table alone
    expect(html).toContain('… and 4950 more operations not shown')
    expect(html).toContain('… and 4900 more projects not shown')
  })
})

describe('nothing read', () => {
  it.each([
    ['timeout', 'Nothing could be read before the timeout ran out'],
    ['cancelled', 'Nothing could be read before the job was cancelled']
  ] as const)(
    '%s before the first answer: unknown, never "no operation in flight"',
    (outcome, says) => {
      const nothing = report({
        projectId: 'p-1',
        outcome,
        elapsedMs: 900,
        wait: {
          outcome,
          polls: 1,
          observed: false,
          readAt: new Map(),
          elapsedMs: 900,
          operations: []
        }
      })
      const html = renderSummary(nothing)
      expect(html).toContain(`${says}: the state of the operations is unknown.`)
      expect(html).not.toContain('No operation in flight')
      const { outputs } = buildOutputs(nothing)
      expect(outputs).toEqual({ outcome, elapsed_ms: '900' })
    }
  )

  it('a gate that read the list and found nothing says "no operation in flight"', () => {
    const idle = report({
      projectId: 'p-1',
      outcome: 'success',
      wait: waited('success', [], 900)
    })
    expect(renderSummary(idle)).toContain('No operation in flight')
    expect(buildOutputs(idle).outputs.operations).toBe('[]')
  })
})

describe('outputs', () => {
  it('gate names what the run checked, also after bad input found during the run (review L1)', () => {
    const checked = buildOutputs(report({ gate: 'teardown', outcome: 'success' })).outputs
    expect(checked.gate).toBe('teardown')
    // A branch name that only nearly matches one is an input error once the branches are read.
    const badInput = report({
      gate: 'teardown',
      outcome: 'error',
      error: 'branch_id: …',
      errorCause: 'input'
    })
    // docs/cli.md: the run that read nothing usable still names its gate, as the exit-3 one does.
    expect(buildOutputs(badInput).outputs.gate).toBe('teardown')
  })

  it('a huge operations list is cut to fit, with a note; long fields carry a marker', () => {
    const operations = Array.from({ length: 20_000 }, (_, i) =>
      operation({ id: `op-${i}`, error: 'e'.repeat(10_000) })
    )
    const { outputs, notes } = buildOutputs(
      report({
        outcome: 'pending',
        wait: waited('pending', operations)
      })
    )
    // Every output together, names included, under GitHub's 1 MB a job, counted as UTF-16.
    const utf16 = Object.entries(outputs).reduce(
      (sum, [k, v]) => sum + 2 * (k.length + v.length),
      0
    )
    expect(utf16).toBeLessThan(1_000_000)
    expect(utf16).toBeGreaterThan(900_000)
    const kept = JSON.parse(outputs.operations) as { error: string }[]
    expect(kept.length).toBeGreaterThan(50)
    expect(kept[0].error).toMatch(/… \[6000 more characters\]$/)
    expect(notes).toEqual([
      `The operations output holds the first ${kept.length} of 20000: GitHub allows 1 MB of outputs per job, counted as UTF-16`
    ])
    expect(outputs.error.length).toBeLessThan(4100)
  })

  it('operations and projects share what the other outputs leave: the smaller keeps all of it', () => {
    const ops = (count: number) =>
      Array.from({ length: count }, (_, i) => operation({ id: `op-${i}`, error: 'e'.repeat(4000) }))
    const projects = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ id: `p-${i}`, name: 'n'.repeat(200) }))
    const outputsOf = (operationCount: number, projectCount: number) =>
      buildOutputs(
        report({
          outcome: 'pending',
          listing: { projects: projects(projectCount), unavailableProjectIds: [] },
          wait: waited('pending', ops(operationCount))
        })
      )
    const size = (outputs: Record<string, string>) =>
      Object.entries(outputs).reduce((sum, [k, v]) => sum + 2 * (k.length + v.length), 0)
    const count = (text: string) => (JSON.parse(text) as unknown[]).length
    // Both fit: all of each, no note.
    const small = outputsOf(10, 10)
    expect([count(small.outputs.operations), count(small.outputs.projects)]).toEqual([10, 10])
    expect(small.notes).toEqual([])
    // Few projects, many operations: every project, and the operations the rest.
    const manyOps = outputsOf(1000, 10)
    expect(count(manyOps.outputs.projects)).toBe(10)
    expect(count(manyOps.outputs.operations)).toBeGreaterThan(100)
    expect(size(manyOps.outputs)).toBeLessThan(1_000_000)
    expect(size(manyOps.outputs)).toBeGreaterThan(980_000)
    expect(manyOps.notes).toEqual([expect.stringMatching(/^The operations output holds the first/)])
    // The other way round, and both large: half each, two notes.
    const manyProjects = outputsOf(10, 10_000)
    expect(count(manyProjects.outputs.operations)).toBe(10)
    expect(manyProjects.notes).toEqual([expect.stringMatching(/^The projects output holds/)])
    const both = outputsOf(1000, 10_000)
    expect(both.notes).toHaveLength(2)
    expect(size(both.outputs)).toBeLessThan(1_000_000)
    expect(2 * both.outputs.operations.length).toBeLessThanOrEqual(495_000)
    expect(2 * both.outputs.operations.length).toBeGreaterThan(480_000)
  })

  it('status: the first operation that did not finish, else finished', () => {
    const ops = [
      operation({ id: 'a', status: 'finished' }),
      operation({ id: 'b', status: 'skipped' }),
      operation({ id: 'c', status: 'finished' })
    ]
    const wait = {
      outcome: 'success' as const,
      polls: 1,
      observed: true,
      readAt: new Map(),
      elapsedMs: 10,
      operations: ops
    }
    expect(buildOutputs(report({ outcome: 'success', wait })).outputs).toMatchObject({
      status: 'skipped',
      operation_id: 'b'
    })
    const allFinished = { ...wait, operations: [ops[0], ops[2]] }
    expect(buildOutputs(report({ outcome: 'success', wait: allFinished })).outputs).toMatchObject({
      status: 'finished',
      operation_id: 'a'
    })
  })

  it('on failure: the operation that failed, never one still running before it', () => {
    const running = operation({ id: 'a', action: 'apply_config', status: 'running' })
    const failed = operation({
      id: 'b',
      action: 'start_compute',
      status: 'error',
      error: 'out of capacity'
    })
    const retrying = operation({ id: 'c', action: 'suspend_compute', status: 'failed' })
    const outputs = (operations: ReturnType<typeof operation>[], failFast = false) =>
      buildOutputs(
        report({
          outcome: 'failure',
          failFast,
          wait: waited('failure', operations, 10)
        })
      ).outputs
    expect(outputs([running, failed])).toMatchObject({
      status: 'error',
      operation_id: 'b',
      action: 'start_compute',
      error: 'out of capacity'
    })
    expect(JSON.parse(outputs([running, failed]).operation)).toMatchObject({ id: 'b' })
    // With fail_fast, `failed` is a final failure too; without it, a retry still in flight.
    expect(outputs([running, retrying], true)).toMatchObject({
      status: 'failed',
      operation_id: 'c'
    })
    expect(outputs([running, retrying])).toMatchObject({ status: 'running', operation_id: 'a' })
  })

  it('duration_ms: total_duration_ms when present, else updated_at − created_at', () => {
    const withTotal = operation({ total_duration_ms: 777 })
    const without = operation({
      total_duration_ms: undefined,
      created_at: '2026-11-21T10:00:00Z',
      updated_at: '2026-11-21T10:00:01.250Z'
    })
    const outputs = (op: typeof withTotal) =>
      buildOutputs(
        report({
          outcome: 'success',
          wait: waited('success', [op])
        })
      ).outputs
    expect(outputs(withTotal).duration_ms).toBe('777')
    expect(outputs(without).duration_ms).toBe('1250')
  })

  it('no outcome after an error', () => {
    expect(buildOutputs(report({ outcome: 'error', error: 'boom' })).outputs).toEqual({})
  })
})
