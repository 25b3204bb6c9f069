/*
 * The API's clock over the bundle and real HTTP: the local API server's clock set 16 minutes and 25
 * hours behind this machine's (a runner that far ahead), its Date header read from node:http's
 * answers. The rules themselves, both ways and at the edges, are in simulated/api-clock.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const BRANCH = 'br-preview-pr-42'
const MINUTE = 60_000

/** The API's clock 16 minutes behind (the runner ahead), and an error on the branch 20 s before. */
async function sixteenMinutesAhead() {
  const { world, server } = await serve({ clockSkewMs: -16 * MINUTE })
  world.addBranch(PROJECT, { id: BRANCH, name: 'preview/pr-42' })
  const error = world.addOperation(PROJECT, {
    action: 'start_compute',
    branchId: BRANCH,
    createdAt: world.now() - 25_000,
    error: 'out of capacity',
    timeline: [{ status: 'running', ms: 5000 }, { status: 'error' }]
  })
  return { server, error }
}

describe("bundle end to end: the windows are measured on the API's clock", () => {
  it('a runner 16 minutes ahead: an error 20 s old fails the branch gate, and the clock is warned about once', async () => {
    const { server, error } = await sixteenMinutesAhead()
    const run = await runAction(server, { project_id: PROJECT, branch_id: BRANCH })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ outcome: 'failure', operation_id: error.id })
    const warnings = run.stdout.split('\n').filter((line) => line.startsWith('::warning'))
    expect(warnings).toEqual([
      expect.stringMatching(
        /^::warning::The runner's clock is 1[56] min \d\d s ahead of the API's \(its Date header\): one of them is wrong, so each age the gate words is the least either clock allows$/
      )
    ])
  })

  it("a runner 16 minutes ahead, the whole project: an error 20 s old is warned about, never hidden by the runner's clock", async () => {
    const { server, error } = await sixteenMinutesAhead()
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ outcome: 'success' })
    expect(run.stdout).toMatch(
      new RegExp(
        `^::warning::Ended in failure before the gate started: start_compute ${error.id} .*, error at least 2\\d\\.\\d s before`,
        'm'
      )
    )
  })

  it('a runner 25 hours ahead: an operation in flight is found by the first read and waited on', async () => {
    const { world, server } = await serve({ clockSkewMs: -25 * 60 * MINUTE })
    const running = operationIn(world, 'running', {
      reads: 2,
      then: 'finished',
      createdAt: world.now() - 5000
    })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({
      outcome: 'success',
      operation_id: running.id,
      status: 'finished'
    })
    expect(run.stdout).toMatch(
      /::warning::The runner's clock is 2[45] h \d\d min ahead of the API's/
    )
  })
})
