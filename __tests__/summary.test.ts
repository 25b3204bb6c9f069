import { describe, expect, it } from '@jest/globals'
import { buildOutputs } from '../src/outputs.js'
import type { RunReport } from '../src/report.js'
import { renderSummary } from '../src/summary.js'
import { operation } from './fixtures/operations.js'

const report = (overrides: Partial<RunReport> = {}): RunReport => ({
  requests: { requests: 3, retries: 1 },
  ...overrides
})

describe('summary', () => {
  it('shows the outcome, the wait, polls, requests, retries and one row per operation', () => {
    const html = renderSummary(
      report({
        projectId: 'p-1',
        outcome: 'timeout',
        wait: {
          outcome: 'timeout',
          polls: 4,
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
      '⌛ timeout · waited 2 min 05 s · 4 polls · 3 requests · 1 retry · project <code>p-1</code>'
    )
    expect(html).toContain(
      '<tr><td><code>op-1</code></td><td>apply_config</td><td><code>br-main-123456</code></td><td><code>ep-quiet-sound-123456</code></td><td>🔁 Failed (retrying) (2 failures)<br>disk &lt;full&gt;</td><td>3.0 s</td><td>2026-11-21 10:00:00 UTC</td></tr>'
    )
    // No blank line may end the HTML block early.
    expect(html).not.toMatch(/\n\s*\n/)
  })

  it('shows the error and the operations last seen when an error cut the wait short', () => {
    const html = renderSummary(
      report({ error: 'HTTP 401 <x>', lastSeen: [operation({ id: 'op-2', status: 'running' })] })
    )
    expect(html).toContain('❌ <b>Error:</b> HTTP 401 &lt;x&gt;')
    expect(html).toContain('⏳ Running')
  })
})

describe('outputs', () => {
  it('status: the first operation that did not finish, else finished', () => {
    const ops = [
      operation({ id: 'a', status: 'finished' }),
      operation({ id: 'b', status: 'skipped' }),
      operation({ id: 'c', status: 'finished' })
    ]
    const wait = { outcome: 'success' as const, polls: 1, elapsedMs: 10, operations: ops }
    expect(buildOutputs(report({ wait })).outputs).toMatchObject({
      status: 'skipped',
      operation_id: 'b'
    })
    const allFinished = { ...wait, operations: [ops[0], ops[2]] }
    expect(buildOutputs(report({ wait: allFinished })).outputs).toMatchObject({
      status: 'finished',
      operation_id: 'a'
    })
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
        report({ wait: { outcome: 'success', polls: 1, elapsedMs: 1, operations: [op] } })
      ).outputs
    expect(outputs(withTotal).duration_ms).toBe('777')
    expect(outputs(without).duration_ms).toBe('1250')
  })

  it('no outcome after an error', () => {
    expect(buildOutputs(report({ outcome: 'error', error: 'boom' })).outputs).toEqual({})
  })
})
