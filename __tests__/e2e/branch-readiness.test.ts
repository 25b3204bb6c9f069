/*
 * The gated branch over the bundle, for what the step shows of it: the log lines and warnings, the
 * error line and the annotation of a timeout, the branch_state output within its bounds. Which reads
 * the gate makes of the branch and when it passes is tested in process (simulated/branch-readiness).
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import type { Fault } from '../support/neon/faults.ts'
import { PROJECT } from '../support/neon/ids.js'
import type { World } from '../support/neon/world.ts'

/** The branch gate, run by the action, on a world that holds `branch`, its API behind `fault`. */
async function branchGate(
  branch: Parameters<World['addBranch']>[1],
  inputs: { branch_id: string; timeout?: string },
  fault?: Fault
) {
  const { world, server } = await serve()
  world.addBranch(PROJECT, branch)
  if (fault) server.addFault(fault)
  return { server, run: await runAction(server, { project_id: PROJECT, ...inputs }) }
}

describe('the branch must be ready, not just created', () => {
  it('a branch that is init, then ready: the gate waits, then passes; the log and summary say so', async () => {
    const { server, run } = await branchGate(
      {
        id: 'br-preview-pr-31',
        name: 'preview/pr-31',
        state: { current: 'init' },
        statesByRead: [{ current: 'init' }, { current: 'ready' }]
      },
      { branch_id: 'preview/pr-31' }
    )
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.branch_state).toBe('ready')
    expect(run.stdout).toContain('Branch preview/pr-31 (br-preview-pr-31) is init')
    expect(run.stdout).toContain('Branch preview/pr-31 (br-preview-pr-31) is ready')
    expect(server.requests.filter((request) => request.route === 'branch')).toHaveLength(2)
    expect(run.summary).toContain('branch state <code>ready</code>')
  })

  it('archived: passes, with a warning that the first queries will be slow', async () => {
    const { run } = await branchGate(
      { id: 'br-old-000009', name: 'old', state: { current: 'archived' } },
      { branch_id: 'old' }
    )
    expect(run.code).toBe(0)
    expect(run.outputs.branch_state).toBe('archived')
    expect(run.stdout).toContain(
      '::warning::Branch old (br-old-000009) is archived: its first queries will be slow'
    )
  })

  it('timeout while the branch is still init: the outcome, the error line, the annotation and the first line say so', async () => {
    const { run } = await branchGate(
      { id: 'br-slow-000011', name: 'slow', state: { current: 'init' } },
      { branch_id: 'slow', timeout: '1s' }
    )
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.outputs.branch_state).toBe('init')
    // The error line is its annotation, once, titled with the branch, not "0 in flight".
    expect(run.stdout.split('\n').filter((line) => line.includes('timeout ran out'))).toEqual([
      '::error title=timeout%3A branch slow is still init::timeout ran out while branch slow is still init'
    ])
    expect(run.stdout).not.toContain('0 still in flight')
    expect(run.summary).toMatch(
      /<p><b>⌛ timeout<\/b> after [\d.]+ m?s: branch <code>slow<\/code> is still <code>init<\/code><\/p>/
    )
  })
})

describe('a branch the API states no state of is not ready', () => {
  it('current_state missing: warned about and waited on, not passed', async () => {
    const { run } = await branchGate(
      { id: 'br-vague-000001', name: 'vague' },
      { branch_id: 'br-vague-000001', timeout: '1s' },
      {
        kind: 'altered',
        route: 'branch',
        alter: (body) => {
          const branch = { ...(body as { branch: Record<string, unknown> }).branch }
          delete branch.current_state
          return { ...(body as object), branch }
        }
      }
    )
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain(
      '::warning::Branch vague (br-vague-000001) is in an unknown state, no current_state; waiting until it is ready'
    )
    expect(run.stdout).toMatch(
      /^::error title=[^:]+::timeout ran out while branch vague is still no current_state$/m
    )
  })
})

describe('the branch in the outputs', () => {
  it('a 300,000-character state: branch_state is cut like every other field', async () => {
    const { run } = await branchGate(
      {
        id: 'br-huge-000001',
        name: 'huge',
        state: { current: `x${'y'.repeat(300_000)}` }
      },
      { branch_id: 'br-huge-000001', timeout: '1s' }
    )
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.outputs.branch_state).toMatch(/^xy{199}… \[299801 more characters\]$/)
    const outputBytes = Object.values(run.outputs).reduce((sum, value) => sum + value.length, 0)
    expect(outputBytes).toBeLessThan(64 * 1024)
    expect(run.summary.length).toBeLessThan(64 * 1024)
  })
})
