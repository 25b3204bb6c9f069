/*
 * The summary's first lines, which answer "why", pinned for each outcome over a real wait with an
 * injected clock: what failed, what was still in flight and for how long (measured to the last
 * read, not read from the API), how many finished.
 */
import { describe, expect, it } from '@jest/globals'
import { plural } from '../src/domain/phrase.js'
import type { Logger } from '../src/domain/logger.js'
import type { OperationSource } from '../src/wait/operation-sources.js'
import { Pace } from '../src/api/pace.js'
import type { RunReport } from '../src/report/report.js'
import type { Operation } from '../src/domain/schemas.js'
import { renderSummary } from '../src/gate/run-report.js'
import { renderTimeline } from '../src/report/timeline.js'
import { type Outcome, waitForOperations } from '../src/wait/wait-for-operations.js'
import { FakeClock } from './support/time/clock.js'
import { operation } from './support/neon/operations.js'

const T0 = Date.parse('2026-11-21T12:00:00Z')
const iso = (ms: number) => new Date(T0 + ms).toISOString()
const silent: Logger = {
  info: () => undefined,
  warning: () => undefined,
  notice: () => undefined,
  debug: () => undefined
}

type Script = Partial<Operation>[]

/** Operations created at T0 whose state at each poll comes from a script (the last repeats). */
function scriptedSource(scripts: Record<string, Script>): OperationSource {
  let polls = 0
  let current: Operation[] = []
  return {
    get operations() {
      return current
    },
    get completedPolls() {
      return polls
    },
    async poll() {
      current = Object.entries(scripts).map(([id, script]) =>
        // A new object on every read, as a parsed answer is.
        operation({
          id,
          created_at: iso(0),
          total_duration_ms: 0,
          ...script[Math.min(polls, script.length - 1)]
        })
      )
      polls++
    }
  }
}

async function report(
  scripts: Record<string, Script>,
  options: { deadlineMs?: number; cancelOnSleep?: number; failFast?: boolean } = {}
): Promise<RunReport> {
  const clock = new FakeClock(T0)
  const controller = new AbortController()
  clock.onSleep = () => {
    if (clock.sleeps.length === options.cancelOnSleep) controller.abort(new Error('Cancelled'))
  }
  const wait = await waitForOperations(
    {
      wait: true,
      startedAt: T0,
      deadline: T0 + (options.deadlineMs ?? 600_000),
      failFast: options.failFast ?? false
    },
    {
      source: scriptedSource(scripts),
      pace: new Pace(5000, clock, silent),
      clock,
      logger: silent,
      signal: controller.signal
    }
  )
  return {
    outcome: wait.outcome,
    wait,
    elapsedMs: wait.elapsedMs,
    requests: { requests: 3, retries: 0 },
    ...(options.failFast ? { failFast: true } : {})
  }
}

const createBranch: Script = [
  { action: 'create_branch', branch_id: 'br-preview-pr-7', status: 'running' },
  {
    action: 'create_branch',
    branch_id: 'br-preview-pr-7',
    status: 'finished',
    updated_at: iso(3000),
    total_duration_ms: 3000
  }
]
const startCompute: Script = [
  { action: 'start_compute', branch_id: 'br-preview-pr-7', status: 'scheduling' },
  { action: 'start_compute', branch_id: 'br-preview-pr-7', status: 'failed' },
  {
    action: 'start_compute',
    branch_id: 'br-preview-pr-7',
    status: 'error',
    error: 'compute failed to start: out of capacity',
    updated_at: iso(9000),
    total_duration_ms: 9000
  }
]
const applyConfig: Script = [
  { action: 'apply_config', branch_id: 'br-main-000001', status: 'running', updated_at: iso(0) }
]

/** The lines between the heading and the counts. */
function firstLines(html: string): string {
  return html
    .split('\n')
    .slice(1, html.includes('<p>⏳') ? 3 : 2)
    .join('\n')
}

describe('the first line answers why', () => {
  it('failure: what failed, with the API’s error; apart from it, what was still in flight', async () => {
    const failed = await report({ a: createBranch, b: startCompute, c: applyConfig })
    expect(failed.outcome).toBe('failure')
    expect(firstLines(renderSummary(failed))).toBe(
      [
        '<p><b>❌ failure</b>: <code>start_compute</code> on <code>br-preview-pr-7</code> ended in <code>error</code> after 9.0 s: “compute failed to start: out of capacity”</p>',
        '<p>⏳ 1 still in flight: <code>apply_config</code> on <code>br-main-000001</code>, <code>running</code> for 10.0 s so far</p>'
      ].join('\n')
    )
  })

  it('failure under fail_fast: a `failed` one is said as still retried, for how long so far, never as ended', async () => {
    const failed = await report({ b: startCompute }, { failFast: true })
    expect(failed.outcome).toBe('failure')
    expect(firstLines(renderSummary(failed))).toBe(
      '<p><b>❌ failure</b>: <code>start_compute</code> on <code>br-preview-pr-7</code>, <code>failed</code> for 5.0 s so far: “compute failed to start; the control plane will retry”</p>'
    )
  })

  it('success: how many finished, and in how long', async () => {
    const passed = await report({ a: createBranch, b: createBranch })
    expect(firstLines(renderSummary(passed))).toBe(
      '<p><b>✅ success</b>: all 2 operations finished in 5.0 s</p>'
    )
    const one = await report({ a: createBranch })
    expect(firstLines(renderSummary(one))).toBe(
      '<p><b>✅ success</b>: the operation finished in 5.0 s</p>'
    )
  })

  it.each([
    ['timeout', { deadlineMs: 8000 }, '⌛ timeout</b> after 8.0 s', '8.0 s'],
    ['cancelled', { cancelOnSleep: 2 }, '🚫 cancelled</b> after 5.0 s', '5.0 s']
  ] as const)(
    '%s: what was still in flight, and for how long so far',
    async (outcome, options, label, soFar) => {
      const cut = await report({ a: createBranch, c: applyConfig }, options)
      expect(cut.outcome).toBe(outcome satisfies Outcome)
      expect(firstLines(renderSummary(cut))).toBe(
        `<p><b>${label}: 1 still in flight: <code>apply_config</code> on <code>br-main-000001</code>, <code>running</code> for ${soFar} so far</p>`
      )
    }
  )

  it('in flight, the table says how long so far and the bar ends at the last read', async () => {
    const cut = await report({ c: applyConfig }, { deadlineMs: 8000 })
    const html = renderSummary(cut)
    expect(html).toContain('<td>⏳ Running</td><td>8.0 s so far</td>')
    // total_duration_ms is 0 for an operation in flight: never shown as its running time.
    expect(html).not.toContain('<td>0 ms</td>')
    expect(renderTimeline(cut.wait!.operations, cut.wait!.readAt)).toContain(
      `:active, ${T0}, ${T0 + 8000}`
    )
  })
})

describe('the database, when the gate was to end with a query and never got that far', () => {
  it.each([
    ['timeout', { deadlineMs: 8000 }, 'the timeout ran out before the control plane was done'],
    ['cancelled', { cancelOnSleep: 2 }, 'the job was cancelled before the control plane was done']
  ] as const)('%s: the summary says it was not tried, and why', async (_outcome, options, why) => {
    const cut = await report({ a: createBranch, c: applyConfig }, options)
    const html = renderSummary({ ...cut, databaseRequested: true })
    expect(html).toContain(`<p>The database was not tried: ${why}.</p>`)
    expect(renderSummary(cut)).not.toContain('The database was not tried')
  })

  it('failure, pending and an error each give their reason', async () => {
    const failed = await report({ a: createBranch, b: startCompute })
    expect(renderSummary({ ...failed, databaseRequested: true })).toContain(
      '<p>The database was not tried: an operation failed.</p>'
    )
    expect(renderSummary({ ...failed, outcome: 'pending', databaseRequested: true })).toContain(
      '<p>The database was not tried: the gate read once without waiting, and the control plane was not done at that read.</p>'
    )
    expect(
      renderSummary({ ...failed, outcome: 'error', error: 'HTTP 500', databaseRequested: true })
    ).toContain('<p>The database was not tried: the error above came first.</p>')
  })
})

describe('plural forms', () => {
  it.each([
    [0, 'failure', '0 failures'],
    [1, 'failure', '1 failure'],
    [2, 'failure', '2 failures'],
    [1, 'retry', '1 retry'],
    [3, 'retry', '3 retries']
  ])('%i %s', (count, noun, expected) => {
    expect(plural(count, noun, noun === 'retry' ? 'retries' : undefined)).toBe(expected)
  })
})
