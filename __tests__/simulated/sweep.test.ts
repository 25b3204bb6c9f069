/*
 * The sweep (issue 69) through the gate, as both front ends run it, in process on simulated time
 * over the local API server: under fail_on_stale, a branch list cut at its page cap is no pass;
 * without a reader of pull requests (the command has none), its line says that age alone decided;
 * and a pattern that matches no branch warns. What only a process shows is in e2e/sweep.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine, renderSummaryWithin } from '../../src/gate/run-report.js'
import { MAX_SUMMARY_BYTES } from '../../src/report/summary.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { addBusyBranches, addStalePreviews } from '../support/neon/stale-branches.js'
import type { World } from '../support/neon/world.js'

/** A demo world without history, and the limits that let 50 pages come without a rate limit. */
const sweepWorld = () => simulatedWorld({ history: 0, limits: { perSecondPerRoute: Infinity } })

describe('the sweep under fail_on_stale', () => {
  /** A sweep of `sweep` under fail_on_stale, on a world `add` fills. */
  const strictSweep = (add: (world: World) => unknown, sweep: string) => {
    const setup = sweepWorld()
    add(setup.world)
    return runSimulated(setup, { project_id: PROJECT, sweep, fail_on_stale: 'true' })
  }
  /** A sweep reads branches, never operations: its summary says nothing of them. */
  const saysNothingOfOperations = (summary: string) =>
    expect(summary).not.toMatch(/nothing could be read|state of the operations/i)

  it('more branches than the page cap, none stale among those read: an error that says the list stopped, never a pass', async () => {
    const run = await strictSweep(addBusyBranches, 'feature/busy-*')
    expect(run.report.sweep?.verdict.stale).toEqual([])
    expect(run.report.sweep?.cut).toBe('50 pages')
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toBe(
      'Could not tell that no branch is stale: the branch list stopped (50 pages) before its end'
    )
    saysNothingOfOperations(renderSummaryWithin(run.report, MAX_SUMMARY_BYTES))
  })

  it('stale branches fail the step, and the summary says only what was read: no word of operations, which a sweep never reads', async () => {
    const run = await strictSweep(addStalePreviews, 'preview/*')
    expect(run.report.outcome).toBe('failure')
    const summary = renderSummaryWithin(run.report, MAX_SUMMARY_BYTES)
    expect(summary).toContain('stale branch')
    saysNothingOfOperations(summary)
  })
})

describe('what the sweep says it read', () => {
  it.each([
    [
      'with {pr} and no reader of pull requests (as in the command): its line says none was read, so age alone decides',
      'preview/pr-{pr}',
      'info: 3 stale branches among 7 that match preview/pr-{pr} (no activity for 7 days; no pull request was read, so age alone decides)'
    ],
    [
      'a pattern that matches no branch (a typo) passes with a warning to check the pattern',
      'prevew/*',
      'warning: No branch of the project matches "prevew/*": check the pattern'
    ]
  ])('%s', async (_, sweep, line) => {
    const setup = sweepWorld()
    addStalePreviews(setup.world)
    const run = await runSimulated(setup, { project_id: PROJECT, sweep })
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContain(line)
  })
})
