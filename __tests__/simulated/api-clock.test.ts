/*
 * The API's clock, in process over the local API server on simulated time: the project gate
 * measures its 15-minute warning window on the server's Date header, whatever the runner's wall
 * clock says (its look-back is on the operations' own timestamps: no clock decides what is waited
 * on), and warns once when the runner is more than 60 s off. The same
 * over the bundle and real HTTP is e2e/api-clock.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine } from '../../src/gate/run-report.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'

const BRANCH = 'br-preview-000042'
const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * A world whose clock is `runnerOffMs` behind the runner's (the runner that far ahead), with the
 * preview branch; `ended` adds an operation of it created `agoMs` before the server's now.
 */
function world(runnerOffMs: number) {
  const setup = simulatedWorld({ clockSkewMs: -runnerOffMs })
  setup.world.addBranch(PROJECT, { id: BRANCH, name: 'preview/pr-42' })
  const ended = (
    status: string,
    agoMs: number,
    fields: { tookMs?: number; branchId?: string } = {}
  ) =>
    setup.world.addOperation(PROJECT, {
      action: 'start_compute',
      branchId: fields.branchId ?? BRANCH,
      createdAt: setup.world.now() - agoMs,
      error: 'out of capacity',
      timeline: [{ status: 'running', ms: fields.tookMs ?? 5000 }, { status }]
    })
  return { setup, ended }
}

const warnings = (lines: string[]) => lines.filter((line) => line.startsWith('warning'))

describe("the API's clock: windows are measured on the server's Date header", () => {
  it('a runner 16 minutes ahead: an error 20 s old still fails the branch gate, with one warning about the clock', async () => {
    const { setup, ended } = world(16 * MINUTE)
    const error = ended('error', 25_000)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([error.id])
    expect(warnings(run.lines)).toEqual([
      "warning: The runner's clock is 16 min 00 s ahead of the API's (its Date header): one of them is wrong, so each age the gate words is the least either clock allows"
    ])
  })

  it.each([61_000, 5 * MINUTE, 16 * MINUTE, 20 * MINUTE])(
    'the whole project, a runner %d ms ahead: an error that ended 15 s before the gate started, on the API, is warned about, aged 15 s (the Date header gives whole seconds), never hidden nor aged by the runner',
    async (ahead) => {
      const { setup, ended } = world(ahead)
      const error = ended('error', 20_000)
      const run = await runSimulated(setup, { project_id: PROJECT })
      expect(run.report.outcome).toBe('success')
      expect(run.report.recentFailures).toEqual([
        expect.objectContaining({ operation: expect.objectContaining({ id: error.id }) })
      ])
      expect(warnings(run.lines)).toEqual([
        expect.stringContaining("warning: The runner's clock is"),
        expect.stringMatching(
          new RegExp(
            `^warning: Ended in failure before the gate started: .*${error.id}.* at least 15\\.\\d s before the gate started`
          )
        )
      ])
    }
  )

  it('a runner 25 hours ahead: an operation in flight is still found by the first read, and waited on', async () => {
    const { setup, ended } = world(25 * HOUR)
    const running = ended('finished', 10_000, { tookMs: 20_000, branchId: 'br-main-000001' })
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    expect(run.report.wait?.operations).toEqual([
      expect.objectContaining({ id: running.id, status: 'finished' })
    ])
    // In flight for 10 s more: the poll at 10 s saw it finish.
    expect(run.report.wait?.polls).toBe(3)
    expect(warnings(run.lines)).toEqual([
      "warning: The runner's clock is 25 h 00 min ahead of the API's (its Date header): one of them is wrong, so each age the gate words is the least either clock allows"
    ])
  })

  it('a runner 16 minutes behind: an error 20 minutes old fails the gate, aged as a least (the clocks disagree)', async () => {
    const { setup, ended } = world(-16 * MINUTE)
    const error = ended('error', 20 * MINUTE)
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('failure')
    expect(run.report.recentFailures).toEqual([
      expect.objectContaining({
        operation: expect.objectContaining({ id: error.id }),
        failsGate: true
      })
    ])
    // It ended 5 s after its creation: 19 min 55 s before the gate started as the API tells time,
    // 3 min 55 s as the runner does. One of them is wrong, and nothing tells which: the least.
    expect(errorLine(run.report)).toContain(
      `${error.id} (start_compute on ${BRANCH} ended in error after 5.0 s, at least 3 min 55 s before the gate started`
    )
    expect(warnings(run.lines)).toEqual([
      "warning: The runner's clock is 16 min 00 s behind the API's (its Date header): one of them is wrong, so each age the gate words is the least either clock allows"
    ])
  })

  it('a runner 25 hours behind: an operation in flight for 30 hours that the first read reaches is waited on, whatever its age', async () => {
    const { setup, ended } = world(-25 * HOUR)
    const stuck = ended('finished', 30 * HOUR, { tookMs: 40 * HOUR, branchId: 'br-main-000001' })
    const run = await runSimulated(setup, { project_id: PROJECT, timeout: '30s' })
    expect(run.report.outcome).toBe('timeout')
    expect(run.report.wait?.operations).toEqual([
      expect.objectContaining({ id: stuck.id, status: 'running' })
    ])
  })

  it('a runner 59 s off: no warning; the window is the API’s to the second its Date header gives', async () => {
    for (const off of [59_000, -59_000]) {
      const { setup, ended } = world(off)
      ended('error', 15 * MINUTE - 2000)
      const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
      expect(run.report.outcome).toBe('failure')
      expect(warnings(run.lines)).toEqual([])
    }
  })

  it('a runner 61 s ahead: one warning, however many answers it reads', async () => {
    const { setup, ended } = world(61_000)
    ended('finished', 1000, { tookMs: 30_000 })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.report.outcome).toBe('success')
    expect(run.requests.length).toBeGreaterThan(5)
    expect(warnings(run.lines)).toEqual([
      "warning: The runner's clock is 1 min 01 s ahead of the API's (its Date header): one of them is wrong, so each age the gate words is the least either clock allows"
    ])
  })

  it("a Retry-After date is read on the API's clock: a runner 16 minutes behind waits 10 s, not 16 minutes", async () => {
    const { setup } = world(-16 * MINUTE)
    const retryAt = new Date(setup.world.now() + 10_000).toUTCString()
    setup.api.addFault({ kind: 'status', status: 429, retryAfter: retryAt, times: 1 })
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    const [refused, retried] = run.requests
    expect(refused.status).toBe(429)
    // Late in the interval after the 10 s the date names (the server's log is on its own clock).
    expect(retried.t - refused.t).toBeGreaterThanOrEqual(10_000)
    expect(retried.t - refused.t).toBeLessThanOrEqual(15_000)
  })

  it("durations so far are the API's too: an operation in flight for 12 s reads 12 s, not 16 minutes", async () => {
    const { setup, ended } = world(16 * MINUTE)
    ended('finished', 2000, { tookMs: 60_000 })
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      branch_id: BRANCH,
      timeout: '10s'
    })
    expect(run.report.outcome).toBe('timeout')
    const [operation] = run.report.wait!.operations
    const readAt = run.report.wait!.readAt.get(operation.id)!
    expect(readAt - Date.parse(operation.created_at!)).toBeGreaterThanOrEqual(12_000)
    expect(readAt - Date.parse(operation.created_at!)).toBeLessThan(13_500)
  })
})
