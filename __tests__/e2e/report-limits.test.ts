/*
 * The report within GitHub's limits, over the real bundle: a huge error gives small outputs, log
 * and summary, and all the outputs of the step together stay under GitHub's 1 MB a job, counted as
 * UTF-16. 10,000 operations, and what
 * an early error or a cancellation says, are in process (simulated/report-limits.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('stay within GitHub limits; say what is known', () => {
  it('a 5 MB operation error gives small outputs and a small summary', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'error', { error: 'E'.repeat(5_000_000) })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.outputs.outcome).toBe('failure')
    expect(run.outputs.error.length).toBeLessThan(5000)
    expect(run.outputs.error).toMatch(/… \[\d+ more characters\]$/)
    const outputBytes = Object.values(run.outputs).reduce((sum, value) => sum + value.length, 0)
    expect(outputBytes).toBeLessThan(64 * 1024)
    expect(run.summary.length).toBeLessThan(64 * 1024)
    expect(run.stdout.length).toBeLessThan(64 * 1024)
  })

  it("all outputs of the step together stay under 1,000,000 bytes counted as UTF-16, as GitHub counts a job's", async () => {
    const { world, server } = await serve({ history: 0, extraProjects: 0 })
    // Each operation, once its fields are cut (200 characters; the error 4,000), is about 5,000
    // characters of JSON: 10 KB as UTF-16. Astral characters count two code units each.
    for (let i = 0; i < 150; i++) {
      world.addOperation(PROJECT, {
        action: `apply_config_${'a'.repeat(300)}`,
        branchId: `br-${'b'.repeat(300)}`,
        endpointId: `ep-${'e'.repeat(300)}`,
        error: `${'😀'.repeat(500)}${'x'.repeat(5000)}`,
        // Retried by the control plane, still in flight: the API sends its error.
        timeline: [{ status: 'failed' }]
      })
    }
    for (let i = 0; i < 1500; i++) {
      world.addProject({ id: `big-${i}`, orgId: 'org-demo-000001', name: 'p'.repeat(400) })
    }
    const run = await runAction(server, {
      project_id: PROJECT,
      list_projects: 'true',
      wait: 'false'
    })
    expect(run.outputs.outcome).toBe('pending')
    const utf16Bytes = Object.entries(run.outputs).reduce(
      (sum, [name, value]) => sum + 2 * (name.length + value.length),
      0
    )
    expect(utf16Bytes).toBeLessThan(1_000_000)
    // The JSON outputs were cut, with a warning each; both keep items, and stay JSON.
    expect(JSON.parse(run.outputs.operations).length).toBeGreaterThan(10)
    expect(JSON.parse(run.outputs.projects).length).toBeGreaterThan(10)
    // The demo project and the 1,500 above: the count is of every project, not of those kept.
    expect(run.outputs.project_count).toBe('1501')
    for (const name of ['operations', 'projects']) {
      expect(run.stdout).toMatch(
        new RegExp(
          `^::warning::The ${name} output holds the first \\d+ of \\d+: GitHub allows 1 MB of outputs per job, counted as UTF-16`,
          'm'
        )
      )
    }
    expect(Buffer.byteLength(run.summary)).toBeLessThanOrEqual(512 * 1024)
  })
})
