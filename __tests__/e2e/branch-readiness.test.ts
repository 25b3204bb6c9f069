/*
 * The gated branch over the bundle: its state is read once its operations are final, every time,
 * never remembered from the resolution; operations that start while the gate waits for it are
 * waited on; a branch without a state is not ready; and its state stays within an output's bounds.
 */
import { describe, expect, it } from '@jest/globals'
import { PROJECT, runAction, serve } from '../fixtures/e2e.js'
import { hostile, json } from '../fixtures/hostile-servers.js'

const branchReads = (server: { requests: { route?: string }[] }) =>
  server.requests.filter((request) => request.route === 'branch').length

describe('the branch is read after its operations, not remembered', () => {
  it('ready when resolved, then resetting after its operation: the gate waits until it is ready again', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, {
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
    world.addOperation(PROJECT, {
      action: 'timeline_unarchive',
      branchId: 'br-staging-000021',
      timeline: [{ status: 'running', reads: 1 }, { status: 'finished' }]
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'br-staging-000021' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.branch_state).toBe('ready')
    expect(run.stdout).toContain('Branch staging (br-staging-000021) is resetting')
    expect(branchReads(server)).toBe(4)
    // The last request is the read that found it ready again.
    expect(server.requests.at(-1)?.route).toBe('branch')
  })

  it('an operation that starts while the gate waits for the branch is waited on too', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, {
      id: 'br-preview-pr-44',
      name: 'preview/pr-44',
      state: { current: 'init' },
      statesByRead: [{ current: 'init' }, { current: 'init' }, { current: 'ready' }]
    })
    // It starts as the second read of the branch comes in: the next poll's list holds it.
    let started: { id: string } | undefined
    server.onRequest = (request) => {
      if (started || request.route !== 'branch' || branchReads(server) < 2) return
      started = world.addOperation(PROJECT, {
        action: 'start_compute',
        branchId: 'br-preview-pr-44',
        timeline: [{ status: 'running', reads: 1 }, { status: 'finished' }]
      })
    }
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'preview/pr-44' })
    expect(run.outputs.outcome).toBe('success')
    const operations = JSON.parse(run.outputs.operations) as { id: string; status: string }[]
    expect(operations).toEqual([expect.objectContaining({ id: started?.id, status: 'finished' })])
    expect(run.stdout).toMatch(/start_compute on br-preview-pr-44: running\n/)
  })
})

describe('a branch the API states no state of is not ready', () => {
  it.each([
    ['missing', {}],
    ['null', { current_state: null }]
  ])('current_state %s: warned about and waited on, not passed', async (_name, state) => {
    const server = await hostile((request, response) => {
      if (request.url?.includes('/branches/')) {
        json(response, 200, {
          branch: { id: 'br-vague-000001', name: 'vague', project_id: PROJECT, ...state }
        })
      } else json(response, 200, { operations: [], pagination: {} })
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      branch_id: 'br-vague-000001',
      timeout: '2s'
    })
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain(
      '::warning::Branch vague (br-vague-000001) is in an unknown state, no current_state; waiting until it is ready'
    )
    expect(run.stdout).toContain(
      '::error::timeout ran out while branch vague is still no current_state'
    )
  })
})

describe('the branch in the outputs and the annotations', () => {
  it('a 300,000-character state: branch_state is cut like every other field', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, {
      id: 'br-huge-000001',
      name: 'huge',
      state: { current: `x${'y'.repeat(300_000)}` }
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      branch_id: 'br-huge-000001',
      timeout: '2s'
    })
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.outputs.branch_state).toMatch(/^xy{199}… \[299801 more characters\]$/)
    const outputBytes = Object.values(run.outputs).reduce((sum, value) => sum + value.length, 0)
    expect(outputBytes).toBeLessThan(64 * 1024)
    expect(run.summary.length).toBeLessThan(64 * 1024)
  })

  it('timeout while the branch is not ready: the annotation names the branch, not "0 in flight"', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-slow-000011', name: 'slow', state: { current: 'init' } })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'slow', timeout: '2s' })
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain(
      '::error title=timeout%3A branch slow is still init::timeout ran out while branch slow is still init'
    )
    expect(run.stdout).not.toContain('0 still in flight')
  })
})

describe('the branch must be ready, not just created', () => {
  it('a branch that stays init for 3 polls, then is ready: the gate waits, then passes', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, {
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
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'preview/pr-31' })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.branch_state).toBe('ready')
    expect(run.stdout).toContain('Branch preview/pr-31 (br-preview-pr-31) is init')
    expect(run.stdout).toContain('Branch preview/pr-31 (br-preview-pr-31) is ready')
    // Each poll reads the newest operations (one may have started meanwhile) and then the branch;
    // the first also the page after the newest (empty: a short page does not end discovery); the
    // search that resolved the name is the tenth request.
    expect(server.requests.filter((request) => request.route === 'branch')).toHaveLength(4)
    expect(server.requests.filter((request) => request.route === 'operations')).toHaveLength(5)
    expect(run.summary).toContain(' · 4 polls · 10 requests · ')
    expect(run.summary).toContain('branch state <code>ready</code>')
  })

  it('resetting: waits until it is ready again', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, {
      id: 'br-staging-000007',
      name: 'staging',
      // Resolving the id reads it once, then each poll.
      statesByRead: [{ current: 'resetting' }, { current: 'resetting' }, { current: 'ready' }]
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'br-staging-000007' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Branch staging (br-staging-000007) is resetting')
    expect(run.outputs.branch_state).toBe('ready')
  })

  it('archived: passes, with a warning that the first queries will be slow', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-old-000009', name: 'old', state: { current: 'archived' } })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'old' })
    expect(run.code).toBe(0)
    expect(run.outputs.branch_state).toBe('archived')
    expect(run.stdout).toContain(
      '::warning::Branch old (br-old-000009) is archived: its first queries will be slow'
    )
  })

  it('timeout while the branch is still init: the outcome, the error line and the first line say so', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-slow-000011', name: 'slow', state: { current: 'init' } })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'slow', timeout: '2s' })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.outputs.branch_state).toBe('init')
    expect(run.stdout).toContain('::error::timeout ran out while branch slow is still init')
    expect(run.summary).toMatch(
      /<p><b>⌛ timeout<\/b> after [\d.]+ s: branch <code>slow<\/code> is still <code>init<\/code><\/p>/
    )
  })

  it('without branch_id, no branch is read', async () => {
    const { server } = await serve()
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(0)
    expect(run.outputs.branch_state).toBeUndefined()
    expect(server.requests.some((request) => request.route?.startsWith('branch'))).toBe(false)
  })
})
