/*
 * Issue 65's cases over both bundles, the action and the command, against the local API server on
 * 127.0.0.1: an error on a branch's compute 25 h and 72 h old still fails, an operation running
 * since 25 h is waited on, a Date header 48 h ahead hides nothing in flight, and a suspend after a
 * failed start supersedes nothing, and past the project gate's 24 h read a compute still starting
 * keeps it open. The rules at their edges: simulated/authority.test.ts and the
 * properties (simulated/verdict-properties.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { gateCommand } from '../support/bundles/command.js'
import { PROJECT } from '../support/neon/ids.js'
import type { World } from '../support/neon/world.ts'

const BRANCH = 'br-preview-pr-65'
const COMPUTE = 'ep-preview-pr-65'
const MINUTE = 60_000
const HOUR = 60 * MINUTE

/** The preview branch, created 4 days ago; `add` puts an operation of its compute `agoMs` back. */
function previewBranch(world: World) {
  const now = world.now()
  world.addBranch(PROJECT, { id: BRANCH, name: 'preview/pr-65', createdAt: now - 96 * HOUR })
  return (action: string, agoMs: number, timeline: { status: string; ms?: number }[]) =>
    world.addOperation(PROJECT, {
      action,
      branchId: BRANCH,
      endpointId: COMPUTE,
      createdAt: now - agoMs,
      timeline
    })
}

/**
 * The action's and the command's run of the branch gate, or of the project gate where `branch` is
 * null (`wait`: false reads once).
 */
async function bothFrontEnds(
  server: { apiHost: string },
  wait: boolean,
  branch: string | null = BRANCH
) {
  const inputs: Record<string, string> = { project_id: PROJECT, wait: String(wait) }
  const args = ['--output', 'json', ...(wait ? [] : ['--no-wait'])]
  if (branch) {
    inputs.branch_id = branch
    args.push('--branch-id', branch)
  }
  return { action: await runAction(server, inputs), command: await gateCommand(server, args) }
}

describe('no age decides a verdict, on both front ends', () => {
  it.each([
    ['25 h', 25 * HOUR],
    ['72 h', 72 * HOUR]
  ])('a start_compute that ended in error %s ago, nothing run since: failure', async (_, ago) => {
    const { world, server } = await serve()
    const add = previewBranch(world)
    const error = add('start_compute', ago, [{ status: 'running', ms: 5000 }, { status: 'error' }])
    const { action, command } = await bothFrontEnds(server, true)
    expect(action.code).toBe(1)
    expect(action.outputs).toMatchObject({ outcome: 'failure', operation_id: error.id })
    expect(command.code).toBe(1)
    expect(JSON.parse(command.stdout)).toMatchObject({ outcome: 'failure', operation_id: error.id })
  })

  it('an operation running on the branch since 25 h ago is in flight: pending, named, never a pass', async () => {
    const { world, server } = await serve()
    const stuck = previewBranch(world)('apply_config', 25 * HOUR, [{ status: 'running' }])
    const { action, command } = await bothFrontEnds(server, false)
    expect(action.outputs).toMatchObject({ outcome: 'pending', operation_id: stuck.id })
    expect(command.code).toBe(75)
    expect(JSON.parse(command.stdout)).toMatchObject({ outcome: 'pending', operation_id: stuck.id })
  })
})

describe('no clock hides work, on both front ends', () => {
  /** The branch gate on the preview branch, and the project gate (`branch` null). */
  const gates = [
    ['the branch gate', BRANCH],
    ['the project gate', null]
  ] as const

  /**
   * An operation of the preview branch running for 5 s, read under a Date header 48 h ahead by
   * both front ends (`wait` false), through the gate on `branch`: the operation, and the two runs.
   */
  async function runningUnderAClockAhead(branch: string | null) {
    const { world, server } = await serve({ dateHeader: 48 * HOUR })
    const running = previewBranch(world)('apply_config', 5000, [{ status: 'running' }])
    return { running, ...(await bothFrontEnds(server, false, branch)) }
  }

  it.each(gates)(
    'a Date header 48 h ahead: an operation running for 5 s is in flight for %s',
    async (_, branch) => {
      const { running, action, command } = await runningUnderAClockAhead(branch)
      expect(action.outputs).toMatchObject({
        outcome: 'pending',
        gate: branch ? 'branch' : 'project',
        operation_id: running.id
      })
      expect(command.code).toBe(75)
      expect(JSON.parse(command.stdout)).toMatchObject({ operation_id: running.id })
    }
  )

  it.each(gates)(
    'a Date header 48 h ahead: an operation running for 5 s is worded so, never 48 h, for %s',
    async (_, branch) => {
      const { action, command } = await runningUnderAClockAhead(branch)
      const json = JSON.parse(command.stdout) as { duration_ms: number }
      for (const durationMs of [Number(action.outputs.duration_ms), json.duration_ms]) {
        expect(durationMs).toBeGreaterThanOrEqual(5000)
        expect(durationMs).toBeLessThan(5 * MINUTE)
      }
      const clockWarning = /^.*The runner's clock is 4[78] h \d\d min behind.*$/m
      for (const text of [action.summary, action.stdout, command.stderr]) {
        expect(text.replace(clockWarning, '')).not.toMatch(/\b4[78] h\b/)
      }
      expect(action.summary).toMatch(/running<\/code> for at least \d+\.\d s so far/)
    }
  )
})

describe("past the project gate's 24 h read, the state decides, on both front ends", () => {
  /** A day and more of history on a server that caps pages at 50: the read stops at its 24 h. */
  async function stuckBehindADay(compute: { current: string; pending?: string }) {
    const { world, server } = await serve({ history: 0 })
    world.addHistory(PROJECT, 300, { everyMs: 10 * MINUTE })
    world.operationsPageCap = 50
    previewBranch(world)('apply_config', 30 * HOUR, [{ status: 'running' }])
    world.addCompute(PROJECT, { id: COMPUTE, branchId: BRANCH, ...compute })
    return bothFrontEnds(server, false, null)
  }

  it('an apply_config running since 30 h ago, its compute starting: pending, saying why', async () => {
    const { action, command } = await stuckBehindADay({ current: 'init', pending: 'active' })
    expect(action.outputs).toMatchObject({ outcome: 'pending', gate: 'project', operation_id: '' })
    expect(command.code).toBe(75)
    expect(JSON.parse(command.stdout)).toMatchObject({ outcome: 'pending', gate: 'project' })
    expect(command.stderr).toContain(`compute ${COMPUTE} is init, pending active`)
  })

  it('the same with the compute idle, nothing pending: success', async () => {
    const { action, command } = await stuckBehindADay({ current: 'idle' })
    expect(action.outputs).toMatchObject({ outcome: 'success', gate: 'project' })
    expect(command.code).toBe(0)
  })
})

describe('a suspend supersedes no failed start, on both front ends', () => {
  it('start_compute in error, then suspend_compute finished on the same compute: failure', async () => {
    const { world, server } = await serve()
    const add = previewBranch(world)
    const error = add('start_compute', 20 * MINUTE, [
      { status: 'running', ms: 5000 },
      { status: 'error' }
    ])
    add('suspend_compute', 10 * MINUTE, [{ status: 'running', ms: 2000 }, { status: 'finished' }])
    const { action, command } = await bothFrontEnds(server, true)
    expect(action.code).toBe(1)
    expect(action.outputs).toMatchObject({ outcome: 'failure', operation_id: error.id })
    expect(command.code).toBe(1)
    expect(JSON.parse(command.stdout)).toMatchObject({ outcome: 'failure', operation_id: error.id })
  })
})
