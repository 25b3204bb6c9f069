/*
 * The gated branch, in process over the local API server on simulated time: its state is read once
 * its operations are final, every time, never remembered from the resolution; an operation that
 * starts while the gate waits for it is waited on too; a branch without a state is not ready.
 * What the step shows of it (the warning lines, the annotation, branch_state) is e2e/branch-readiness.
 */
import { describe, expect, it } from '@jest/globals'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const reads = (run: { requests: { route?: string }[] }, route: string) =>
  run.requests.filter((request) => request.route === route).length

describe('the branch is read after its operations, not remembered', () => {
  it('ready when resolved, then resetting after its operation: the gate waits until it is ready again', async () => {
    const setup = simulatedWorld({ history: 0 })
    setup.world.addBranch(PROJECT, {
      id: 'br-staging-000021',
      name: 'staging',
      // The resolution reads it ready; the reads after its operation see it resetting twice.
      statesByRead: [
        { current: 'ready' },
        { current: 'resetting' },
        { current: 'resetting' },
        { current: 'ready' }
      ]
    })
    operationIn(setup.world, 'running', {
      action: 'timeline_unarchive',
      then: 'finished',
      branchId: 'br-staging-000021'
    })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'br-staging-000021' })
    expect(run.report.outcome).toBe('success')
    expect(run.report.branch?.current_state).toBe('ready')
    expect(run.lines).toContain('info: Branch staging (br-staging-000021) is resetting')
    expect(reads(run, 'branch')).toBe(4)
    // The last request is the read that found it ready again.
    expect(run.requests.at(-1)?.route).toBe('branch')
  })

  it('an operation that starts while the gate waits for the branch is waited on too', async () => {
    const setup = simulatedWorld({ history: 0 })
    setup.world.addBranch(PROJECT, {
      id: 'br-preview-pr-44',
      name: 'preview/pr-44',
      state: { current: 'init' },
      statesByRead: [{ current: 'init' }, { current: 'init' }, { current: 'ready' }]
    })
    // It starts as the second read of the branch comes in: the next poll's list holds it.
    let started: { id: string } | undefined
    setup.api.onRequest = (request) => {
      if (started || request.route !== 'branch' || reads(setup.api, 'branch') < 2) return
      started = operationIn(setup.world, 'running', {
        action: 'start_compute',
        then: 'finished',
        branchId: 'br-preview-pr-44'
      })
    }
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'preview/pr-44' })
    expect(run.report.outcome).toBe('success')
    expect(run.report.wait?.operations).toEqual([
      expect.objectContaining({ id: started?.id, status: 'finished' })
    ])
    expect(run.lines).toContainEqual(
      expect.stringMatching(/start_compute on br-preview-pr-44: running$/)
    )
    // Not read while its operation ran: the third read, once it was final, found it ready.
    expect(reads(run, 'branch')).toBe(3)
  })
})

describe('the branch must be ready, not just created', () => {
  it('a branch that stays init for 3 polls, then is ready: each poll reads the newest operations, then the branch', async () => {
    const setup = simulatedWorld()
    setup.world.addBranch(PROJECT, {
      id: 'br-preview-pr-31',
      name: 'preview/pr-31',
      state: { current: 'init' },
      statesByRead: [
        { current: 'init' },
        { current: 'init' },
        { current: 'init' },
        { current: 'ready' }
      ]
    })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'preview/pr-31' })
    expect(run.report.outcome).toBe('success')
    expect(run.report.branch?.current_state).toBe('ready')
    // The first poll reads the branch's computes, then the list back to the branch's creation (one
    // page); the search that resolved the name is the tenth request.
    expect(reads(run, 'branch')).toBe(4)
    expect(reads(run, 'computes')).toBe(1)
    expect(reads(run, 'operations')).toBe(4)
    expect(run.report.requests.requests).toBe(10)
    expect(run.report.wait?.polls).toBe(4)
  })

  it('resetting: waits until it is ready again', async () => {
    const setup = simulatedWorld({ history: 0 })
    setup.world.addBranch(PROJECT, {
      id: 'br-staging-000007',
      name: 'staging',
      // Resolving the id reads it once, then each poll.
      statesByRead: [{ current: 'resetting' }, { current: 'resetting' }, { current: 'ready' }]
    })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'br-staging-000007' })
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContain('info: Branch staging (br-staging-000007) is resetting')
    expect(run.report.branch?.current_state).toBe('ready')
  })

  it.each([
    ['a pending state', { current: 'ready', pending: 'resetting' }],
    ['a current_state of null', { current: null }]
  ])('%s keeps the gate waiting until the timeout', async (_case, state) => {
    const setup = simulatedWorld({ history: 0 })
    setup.world.addBranch(PROJECT, {
      id: 'br-vague-000001',
      name: 'vague',
      state: state as { current: string }
    })
    const run = await runSimulated(setup, {
      project_id: PROJECT,
      branch_id: 'br-vague-000001',
      timeout: '30s'
    })
    expect(run.report.outcome).toBe('timeout')
    expect(run.endedAt).toBeGreaterThanOrEqual(30_000)
    expect(reads(run, 'branch')).toBeGreaterThan(5)
  })

  it('without branch_id, no branch is read', async () => {
    const setup = simulatedWorld()
    const run = await runSimulated(setup, { project_id: PROJECT })
    expect(run.report.outcome).toBe('success')
    // No branch of its own: the branches are listed only for the project's state.
    expect(run.requests.some((request) => request.route === 'branch')).toBe(false)
    expect(run.report.branch).toBeUndefined()
  })
})
