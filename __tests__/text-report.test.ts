/*
 * The command's plain-text report (summary.ts through report-format.ts's TEXT_FORMAT): the same
 * facts as the job summary, headline first, no Markdown or HTML, and API text that can neither drive
 * a terminal nor start a workflow command. And the two guards it stands on: forLogLines and
 * forJsonLine.
 */
import { describe, expect, it } from '@jest/globals'
import { forJsonLine, forLogLines } from '../src/domain/untrusted-text.js'
import type { RunReport } from '../src/report/report.js'
import { renderTextReport } from '../src/gate/run-report.js'
import { operation } from './support/neon/operations.js'

const created = Date.parse('2026-11-21T10:00:00Z')

const report = (overrides: Partial<RunReport> & Pick<RunReport, 'outcome'>): RunReport => ({
  requests: { requests: 3, retries: 1 },
  ...overrides
})

const failedRun = (error: string): RunReport =>
  report({
    projectId: 'p-1',
    outcome: 'failure',
    branch: { id: 'br-main-000001', name: 'main', current_state: 'ready' } as RunReport['branch'],
    elapsedMs: 9000,
    wait: {
      outcome: 'failure',
      polls: 2,
      observed: true,
      readAt: new Map([['op-2', created + 9000]]),
      elapsedMs: 9000,
      operations: [
        operation({
          id: 'op-1',
          action: 'start_compute',
          status: 'error',
          error,
          created_at: '2026-11-21T10:00:00Z',
          updated_at: '2026-11-21T10:00:04Z',
          total_duration_ms: 4100
        }),
        operation({
          id: 'op-2',
          action: 'apply_config',
          status: 'running',
          created_at: '2026-11-21T10:00:00Z',
          total_duration_ms: undefined
        })
      ]
    }
  })

describe('the plain-text report', () => {
  it('says the outcome first, then the counts, then a table whose error stands under its row', () => {
    const text = renderTextReport(failedRun('compute failed: out of capacity'))
    const lines = text.split('\n')
    expect(lines[0]).toBe(
      '❌ failure: start_compute on br-main-000001 ended in error after 4.1 s: "compute failed: out of capacity"'
    )
    expect(lines[1]).toBe(
      '⏳ 1 still in flight: apply_config on br-main-000001, running for 9.0 s so far'
    )
    expect(lines[2]).toBe(
      'waited 9.0 s · 2 polls · 3 requests · 1 retry · project p-1 · branch main br-main-000001 · branch state ready'
    )
    expect(text).toContain('\nOperations (2)\n')
    // Where the clocks disagreed, a duration so far is a least, never less than its updated_at shows.
    const disagreed = (updated_at: string) => {
      const run = failedRun('x')
      const wait = { ...run.wait!, clocksDisagree: true as const }
      wait.operations = [wait.operations[0], { ...wait.operations[1], updated_at }]
      return renderTextReport({ ...run, wait }).split('\n')
    }
    for (const [updated, words] of [
      ['2026-11-21T10:00:05Z', 'at least 9.0 s so far'],
      ['2026-11-21T10:00:30Z', 'at least 30.0 s so far']
    ]) {
      const lines = disagreed(updated)
      expect(lines[1]).toBe(
        `⏳ 1 still in flight: apply_config on br-main-000001, running for ${words}`
      )
      // The table's row too.
      expect(lines.filter((line) => line.includes(words))).toHaveLength(2)
    }
    // The gate that ran, once the run has one (issue 58): in the counts, before the project.
    expect(renderTextReport({ ...failedRun('x'), gate: 'branch' }).split('\n')[2]).toBe(
      'waited 9.0 s · 2 polls · 3 requests · 1 retry · gate branch · project p-1 · branch main br-main-000001 · branch state ready'
    )
    const table = lines.slice(lines.indexOf('Operations (2)') + 1)
    expect(table[0]).toMatch(/^OPERATION +ACTION +BRANCH +COMPUTE +STATUS +DURATION +DATE$/)
    expect(table[1]).toMatch(
      /^op-1 +start_compute +br-main-000001 +ep-main-000001 +error +4\.1 s +2026-11-21 10:00:00 UTC$/
    )
    expect(table[2]).toBe('    compute failed: out of capacity')
    expect(table[3]).toMatch(
      /^op-2 +apply_config .* running +9\.0 s so far +2026-11-21 10:00:00 UTC$/
    )
    // The columns line up: each row's status starts where the header's does.
    expect(table[1].indexOf('error')).toBe(table[0].indexOf('STATUS'))
    expect(text).not.toMatch(/<\/?[a-z]+>|```|\*\*/)
  })

  it('shows API text inert: no control character, no ##[, no line that starts a workflow command', () => {
    const text = renderTextReport(
      failedRun('\u001b[2J\u001b]0;x\u0007\n::add-mask::k\n##[set-output name=a;]b')
    )
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    expect(text).not.toContain('##[')
    expect(text).not.toMatch(/^\s*::/m)
    expect(text).toContain('\\u001b[2J')
  })

  it('an error, the projects with the ones unavailable, and a table that says what it left out', () => {
    const projects = Array.from({ length: 102 }, (_, index) => ({
      id: `p-${index}`,
      name: `::project ${index}`,
      region_id: 'aws-us-east-2',
      pg_version: 17,
      created_at: index === 0 ? 'not a time' : '2026-11-21T10:00:00Z'
    }))
    const text = renderTextReport(
      report({
        outcome: 'success',
        listing: {
          projects: projects as never,
          unavailableProjectIds: Array.from({ length: 22 }, (_, index) => `p-gone-${index}`)
        }
      })
    )
    expect(text.split('\n')[0]).toBe('✅ success: 102 projects')
    expect(text).toContain('\nProjects (102)\n')
    expect(text).toMatch(/^NAME +ID +REGION +ENGINE VERSION +CREATED$/m)
    expect(text).toContain('… and 2 more projects not shown')
    expect(text).toMatch(/^\\u003a:project 0 +p-0 +aws-us-east-2 +17 +not a time$/m)
    expect(text).toContain('Unavailable projects: p-gone-0, p-gone-1,')
    expect(text).toContain('p-gone-19 and 2 more')

    const failed = renderTextReport(report({ outcome: 'error', error: 'HTTP 401 <x>' }))
    expect(failed.split('\n')[0]).toBe('❌ Error: HTTP 401 <x>')
  })

  it('what ended in failure before the gate started, listed apart', () => {
    const cancelled = operation({ id: 'op-9', action: 'apply_config', status: 'cancelled' })
    const text = renderTextReport(
      report({
        outcome: 'success',
        projectId: 'p-1',
        wait: {
          outcome: 'success',
          polls: 1,
          observed: true,
          readAt: new Map(),
          elapsedMs: 5,
          operations: []
        },
        recentFailures: [{ operation: cancelled, failsGate: false }]
      })
    )
    expect(text).toContain('No operation in flight.')
    expect(text).toContain('\n⚠️ Ended in failure before the gate started (1)\n')
    expect(text).toMatch(/^op-9 +apply_config .* cancelled /m)
  })
})

describe('forLogLines', () => {
  it('escapes the first colon of a line that would start a workflow command, spaces before it or not', () => {
    expect(forLogLines('ok\n::warning::x\n  ::debug::y\nnot :: this')).toBe(
      'ok\n\\u003a:warning::x\n  \\u003a:debug::y\nnot :: this'
    )
  })
})

describe('forJsonLine', () => {
  it('writes control and format characters and ##[ as escapes that read back as the same value', () => {
    const value = { error: 'a\u007fb\u009bc\u200bd\u{e0041}e\u2028f##[g]\n' }
    const line = forJsonLine(value)
    // eslint-disable-next-line no-control-regex
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u2028]|\u{e0041}/u)
    expect(line).not.toContain('##[')
    expect(line).toContain('\\u007f')
    expect(line).toContain('\\udb40\\udc41')
    expect(JSON.parse(line)).toEqual(value)
  })
})
