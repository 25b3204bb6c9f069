/*
 * Before a teardown (`before`), in process over the local API server on simulated time: the gate
 * waits until the whole project is idle, at the wait's pace and within `timeout`, but not for the
 * branch to be ready; what failed is warned about; then one read of the branch and one walk of
 * every branch decide. Its requests and the server's answers against Neon's document:
 * simulated/contract.test.ts; what the step shows of it, over both bundles: e2e/teardown.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { typedOutputs } from '../../src/gate/run-report.js'
import type { BranchRecord } from '../support/neon/records.ts'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { NEAR_NAMES, operationIn } from '../support/neon/scenarios.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'

const TARGET = 'br-preview-pr-7'
const OTHER = 'br-preview-pr-8'

/** A project with the preview branch to tear down (with `fields`), another, nothing in flight. */
function world(fields: Partial<BranchRecord> = {}) {
  const setup = simulatedWorld()
  setup.world.addBranch(PROJECT, { name: 'preview/pr-7', ...fields, id: TARGET })
  setup.world.addBranch(PROJECT, { id: OTHER, name: 'preview/pr-8' })
  return setup
}

/** One `action` on `branchId`, in `status` for its first `reads` reads, then finished. */
function finishesAfter(
  setup: ReturnType<typeof world>,
  reads: number,
  status: string,
  action: string,
  branchId: string
) {
  return operationIn(setup.world, status, { action, branchId, reads, then: 'finished' })
}

/**
 * The target deleted at the gate's first read of the project's operations, while an operation on
 * the other branch keeps the gate waiting; `then`, once it is gone.
 */
function deletedWhileWaiting(setup: ReturnType<typeof world>, then?: () => void) {
  finishesAfter(setup, 1, 'running', 'start_compute', OTHER)
  setup.api.onRequest = (request) => {
    if (request.route !== 'operations' || request.query.cursor) return
    const branches = setup.world.branchesOf(PROJECT)
    const index = branches.findIndex((branch) => branch.id === TARGET)
    if (index < 0) return
    branches.splice(index, 1)
    then?.()
  }
}

/** The gate run on `setup` before `before` of `branchId`, with `extra` inputs. */
function check(
  setup: ReturnType<typeof world>,
  branchId: string,
  before: string,
  extra: Record<string, string> = {}
) {
  return runSimulated(setup, { project_id: PROJECT, branch_id: branchId, before, ...extra })
}

const routes = (run: { requests: { route?: string; t: number }[] }) =>
  run.requests.map((request) => `${request.route}@${Math.round(request.t / 1000)}s`)

describe('the wait: the whole project, until it is idle', () => {
  it("another branch's operation delays the check; the branch stuck in init does not", async () => {
    const setup = world({ state: { current: 'init' } })
    finishesAfter(setup, 2, 'running', 'apply_config', OTHER)
    const run = await check(setup, 'preview/pr-7', 'delete')
    expect(run.report.outcome).toBe('success')
    expect(run.report.teardown?.preflight).toBe('clear')
    // Resolved by name; the operations read at the wait's pace (the first read's empty page after
    // the newest); once the project was idle, at 10 s, its state (every compute and branch but the
    // one torn down: a tie at a page end may hide an operation), then the branch and every branch.
    expect(routes(run)).toEqual([
      'branches@0s',
      'operations@0s',
      'operations@0s',
      'operations@5s',
      'operations@10s',
      'project-computes@10s',
      'branches@10s',
      'branch@10s',
      'branches@10s'
    ])
    expect(run.report.branch?.current_state).toBe('init')
    expect(typedOutputs(run.report).values).toMatchObject({
      outcome: 'success',
      preflight: 'clear',
      blockers: [],
      branch_state: 'init'
    })
    expect(run.lines).toContain(
      'info: Before a delete of branch preview/pr-7 (br-preview-pr-7): waiting until the project is idle'
    )
    expect(run.lines).toContain(
      'info: Branch preview/pr-7 (br-preview-pr-7) can be deleted now: nothing blocks it'
    )
  })

  it('a 429 while it checks: the retry keeps the pace, and the check still decides', async () => {
    const setup = world()
    setup.api.addFault({ kind: 'status', status: 429, route: 'branch', times: 1 })
    const run = await check(setup, 'preview/pr-7', 'reset')
    expect(run.report.teardown?.preflight).toBe('clear')
    const reads = run.requests.filter((request) => request.route === 'branch')
    // The refused read, and its retry no sooner than one interval after it.
    expect(reads.map((request) => request.status)).toEqual([429, 200])
    expect(reads[1].t - reads[0].t).toBeGreaterThanOrEqual(5000)
    expect(run.report.pace?.rateLimited).toBe(1)
  })

  it('timeout while something is in flight: busy, no blockers, a warning that a delete now meets 423', async () => {
    const setup = world()
    operationIn(setup.world, 'running', { action: 'start_compute', branchId: OTHER })
    const run = await check(setup, 'preview/pr-7', 'delete', { timeout: '12s' })
    expect(run.report.outcome).toBe('timeout')
    expect(run.report.teardown?.preflight).toBe('busy')
    const { values } = typedOutputs(run.report)
    expect(values).toMatchObject({ outcome: 'timeout', preflight: 'busy' })
    expect(values).not.toHaveProperty('blockers')
    expect(values.elapsed_ms).toBe(run.endedAt)
    expect(run.lines).toContain(
      'warning: Branch preview/pr-7 (br-preview-pr-7) was not checked: the project still has work in flight, so a delete now would meet 423 Locked; let the gate wait until the project is idle, or retry the delete on 423'
    )
    expect(run.requests.some((request) => request.route === 'branch')).toBe(false)
    expect(run.endedAt).toBeLessThanOrEqual(13_000)
  })

  // Every status that is not over, `failed` (the API retries it) among them, keeps a project busy.
  it.each(['running', 'scheduling', 'cancelling', 'failed'])(
    'wait: false while something is %s: pending and busy, no verdict',
    async (status) => {
      const setup = world()
      operationIn(setup.world, status, { action: 'start_compute', branchId: TARGET })
      const run = await check(setup, TARGET, 'reset', { wait: 'false' })
      expect(run.report.outcome).toBe('pending')
      expect(run.report.teardown).toEqual({
        action: 'reset',
        preflight: 'busy',
        branch: expect.objectContaining({ id: TARGET })
      })
      expect(typedOutputs(run.report).values).toMatchObject({
        outcome: 'pending',
        preflight: 'busy'
      })
      expect(run.lines).toContain(
        'warning: Branch preview/pr-7 (br-preview-pr-7) was not checked: the project still has work in flight, so a reset now would meet 423 Locked; let the gate wait until the project is idle, or retry the reset on 423'
      )
    }
  )

  it('timeout before anything could be read: nothing is known in flight, so not busy', async () => {
    const setup = world()
    setup.api.addFault({ kind: 'status', status: 503, route: 'operations' })
    const run = await check(setup, TARGET, 'delete', { timeout: '12s' })
    expect(run.report.outcome).toBe('timeout')
    expect(typedOutputs(run.report).values).not.toHaveProperty('preflight')
  })

  it('fail_fast is ignored: a failed operation is waited on until it is final', async () => {
    const setup = world()
    finishesAfter(setup, 2, 'failed', 'start_compute', TARGET)
    const run = await check(setup, TARGET, 'delete', { fail_fast: 'true' })
    expect(run.report.outcome).toBe('success')
    expect(run.report.teardown?.preflight).toBe('clear')
    expect(run.report.wait?.polls).toBe(3)
  })
})

describe('failures are warnings before a teardown', () => {
  it('an error on the branch just before the gate, and one while it waited: warnings; the check decides', async () => {
    const setup = world()
    const now = setup.world.now()
    const recent = setup.world.addOperation(PROJECT, {
      action: 'start_compute',
      branchId: TARGET,
      createdAt: now - 30_000,
      error: 'compute quota exceeded',
      timeline: [{ status: 'running', ms: 5000 }, { status: 'error' }]
    })
    const later = setup.world.addOperation(PROJECT, {
      action: 'apply_config',
      branchId: TARGET,
      error: 'could not apply',
      timeline: [{ status: 'running', reads: 1 }, { status: 'error' }]
    })
    const run = await check(setup, TARGET, 'delete')
    expect(run.report.outcome).toBe('success')
    expect(run.report.teardown?.preflight).toBe('clear')
    expect(run.lines).toContain(
      `warning: Ended in failure before the gate started: start_compute ${recent.id} on ${TARGET}, error 25.0 s before the gate started: "compute quota exceeded"; before a delete, a failure is no reason to stop: a broken branch is one to delete`
    )
    expect(run.lines).toContain(
      `warning: Ended in failure while the gate waited: apply_config ${later.id} on ${TARGET}, error: "could not apply"; before a delete, a failure is no reason to stop`
    )
  })
})

describe('the check', () => {
  it('children found only on a later page of the branches: blocked', async () => {
    const setup = world()
    // 150 newer branches: the child, the oldest, comes on the second page.
    setup.world.addBranch(PROJECT, { id: 'br-child-000001', name: 'child', parentId: TARGET })
    for (let i = 0; i < 150; i++) {
      setup.world.addBranch(PROJECT, {
        id: `br-other-${String(i).padStart(6, '0')}`,
        createdAt: setup.world.now() + 1000 + i
      })
    }
    // The child the oldest: created before the others.
    setup.world.branchesOf(PROJECT).find((branch) => branch.id === 'br-child-000001')!.createdAt =
      setup.world.now() - 60_000
    const run = await check(setup, TARGET, 'delete')
    expect(run.report.outcome).toBe('failure')
    expect(typedOutputs(run.report).values.blockers).toEqual([
      {
        reason: 'children',
        detail: 'it has 1 child branch, to delete first: child (br-child-000001)'
      }
    ])
    // Both pages, for the project's state once it was idle, then for the pre-flight.
    const pages = run.requests.filter((request) => request.route === 'branches')
    expect(pages.map((page) => page.query.cursor !== undefined)).toEqual([false, true, false, true])
  })

  it('the root branch, default, protected, with children and restrictions: every blocker, the rest a notice', async () => {
    const setup = world()
    const main = setup.world.branchesOf(PROJECT)[0]
    Object.assign(main, {
      protected: true,
      restrictedActions: [
        { name: 'delete-rw-endpoint', reason: 'the production endpoint' },
        { name: 'restore', reason: 'a restore is running' }
      ]
    })
    const run = await check(setup, 'main', 'delete')
    expect(run.report.outcome).toBe('failure')
    expect(
      (typedOutputs(run.report).values.blockers as { reason: string }[]).map((b) => b.reason)
    ).toEqual(['root', 'default', 'protected', 'children', 'restricted'])
    expect(run.lines).toContain(
      'notice: Branch main (br-main-000001) lists restricted actions that do not stop a delete: restore: "a restore is running"'
    )
  })

  it('the branch deleted while the gate waited: gone before a delete, an input error before a reset', async () => {
    for (const before of ['delete', 'reset']) {
      const setup = world()
      deletedWhileWaiting(setup)
      const run = await check(setup, TARGET, before)
      if (before === 'delete') {
        expect(run.report.outcome).toBe('success')
        expect(run.report.teardown?.preflight).toBe('gone')
        expect(run.lines).toContain(
          'notice: branch preview/pr-7 (br-preview-pr-7) is gone: nothing to delete'
        )
      } else {
        expect(run.report.outcome).toBe('error')
        expect(run.report.errorCause).toBe('input')
        expect(run.report.error).toBe(
          `input "branch_id": project "${PROJECT}" has no branch "${TARGET}" any more (preview/pr-7 was deleted while the gate waited); there is nothing to reset`
        )
      }
    }
  })

  it('a branch gone before the gate started: gone at once before a delete, no operation read', async () => {
    const setup = world()
    const run = await check(setup, 'br-hotfix-7', 'delete')
    expect(run.report.outcome).toBe('success')
    expect(run.report.teardown).toEqual({
      action: 'delete',
      preflight: 'gone',
      branch: { name: 'br-hotfix-7' }
    })
    // Shaped like an id: read by id, searched as a name, then every branch of the project read
    // (the project answers, and nothing is a near match); no operation read.
    expect(run.requests.map((request) => request.route)).toEqual(['branch', 'branches', 'branches'])
    expect(run.lines).toContain('notice: branch br-hotfix-7 is gone: nothing to delete')
    expect(typedOutputs(run.report).values).toMatchObject({
      preflight: 'gone',
      elapsed_ms: run.endedAt
    })
  })

  it('a branch gone before the gate started, before a reset: an input error, never gone', async () => {
    const run = await check(world(), 'preview/gone', 'reset')
    expect(run.report.outcome).toBe('error')
    expect(run.report.errorCause).toBe('input')
    expect(run.report.teardown?.preflight).toBeUndefined()
    expect(run.report.error).toBe(
      `input "branch_id": project "${PROJECT}" has no branch named "preview/gone"; give a branch id (br-…) or the exact name of one branch of the project`
    )
  })

  it('a branch named like an id is found by its name, and checked by its id', async () => {
    const setup = world()
    setup.world.addBranch(PROJECT, { id: 'br-real-000009', name: 'br-hotfix-7' })
    const run = await check(setup, 'br-hotfix-7', 'delete')
    expect(run.report.teardown?.preflight).toBe('clear')
    expect(run.requests.filter((request) => request.route === 'branch').map((r) => r.path)).toEqual(
      [
        `/api/v2/projects/${PROJECT}/branches/br-hotfix-7`,
        `/api/v2/projects/${PROJECT}/branches/br-real-000009`
      ]
    )
  })
})

describe('which branch, and whether it is gone', () => {
  it.each([
    ['case', 'Preview/PR-7'],
    ['spaces for the slash', 'preview pr-7'],
    ['a space inside', 'preview /pr-7'],
    ['no slash', 'previewpr-7'],
    ['a backslash for the slash', 'preview\\pr-7'],
    ['a Unicode hyphen (U+2010)', 'preview/pr\u20107'],
    ['a full-width digit', 'preview/pr-\uff17']
  ])(
    'a name that differs only in %s: an input error naming the branch found, never gone',
    async (_case, input) => {
      for (const before of ['delete', 'reset']) {
        const setup = world()
        const run = await check(setup, input, before)
        expect(run.report.outcome).toBe('error')
        expect(run.report.errorCause).toBe('input')
        expect(run.report.teardown).toBeUndefined()
        expect(run.report.error).toBe(
          `input "branch_id": project "${PROJECT}" has no branch named "${input}", but has preview/pr-7 (br-preview-pr-7): names are exact but for spaces around them (case, spaces within, quotes and separators count); give that name or the branch id`
        )
        expect(typedOutputs(run.report).values).not.toHaveProperty('preflight')
        expect(run.requests.some((request) => request.route === 'operations')).toBe(false)
      }
    }
  )

  it.each(NEAR_NAMES)(
    '$name, near $branch.name: an input error that names what it found, never gone',
    async ({ branch, name, why }) => {
      const setup = simulatedWorld()
      setup.world.addBranch(PROJECT, branch)
      const run = await runSimulated(setup, {
        project_id: PROJECT,
        branch_id: name,
        before: 'delete'
      })
      expect([run.report.outcome, run.report.errorCause]).toEqual(['error', 'input'])
      expect(run.report.error).toContain(
        `input "branch_id": project "${PROJECT}" has no branch named "${name}", ${why}`
      )
      expect(run.report.teardown).toBeUndefined()
      expect(typedOutputs(run.report).values).not.toHaveProperty('preflight')
      expect([run.report.error, ...run.lines].join('\n')).not.toContain('is gone')
    }
  )

  it('the branch gate (without before) names the branch found too', async () => {
    const setup = world()
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'PREVIEW/PR-7' })
    expect(run.report.outcome).toBe('error')
    expect(run.report.error).toContain('but has preview/pr-7 (br-preview-pr-7)')
  })

  it('a project the API does not know, or that the key cannot see: an error, never gone', async () => {
    const unknown = await check(world(), 'preview/pr-7', 'delete', {
      project_id: 'no-such-project'
    })
    expect(unknown.report.outcome).toBe('error')
    expect(unknown.report.error).toMatch(/HTTP 404/)
    const hidden = await check(world(), TARGET, 'delete', { api_key: KEYS.otherProject })
    expect(hidden.report.outcome).toBe('error')
    expect(hidden.report.error).toMatch(/HTTP 403/)
    for (const run of [unknown, hidden]) {
      expect(run.report.teardown).toBeUndefined()
      expect(typedOutputs(run.report).values).not.toHaveProperty('preflight')
    }
  })

  it('an answer that lists no branch at all proves no project: an error naming project_id, never gone', async () => {
    const setup = world()
    setup.api.addFault({
      kind: 'altered',
      route: 'branches',
      alter: (body) => ({ ...(body as object), branches: [] })
    })
    const run = await check(setup, 'br-preview-pr-9', 'delete')
    expect(run.report.outcome).toBe('error')
    expect(run.report.errorCause).toBe('input')
    expect(run.report.error).toBe(
      `input "project_id": project "${PROJECT}" lists no branch at all, though every project has its root branch; check project_id`
    )
    expect(run.report.teardown).toBeUndefined()
  })

  it('the project deleted while the gate waited: an error, never gone', async () => {
    const setup = world()
    finishesAfter(setup, 1, 'running', 'start_compute', OTHER)
    // Gone when the check reads the branch, once the project was idle.
    setup.api.onRequest = (request) => {
      if (request.route !== 'branch') return
      const index = setup.world.projects.findIndex((project) => project.id === PROJECT)
      if (index >= 0) setup.world.projects.splice(index, 1)
    }
    const run = await check(setup, 'preview/pr-7', 'delete')
    expect(run.report.outcome).toBe('error')
    expect(run.report.error).toMatch(/HTTP 404/)
    expect(run.report.teardown).toBeUndefined()
    expect(run.requests.map((request) => `${request.route} ${request.status}`).slice(-2)).toEqual([
      'branch 404',
      'branches 404'
    ])
  })

  it('a branch deleted, and another made under its name, while the gate waited: the new one is checked', async () => {
    const setup = world()
    deletedWhileWaiting(setup, () =>
      setup.world.addBranch(PROJECT, {
        id: 'br-preview-pr-7b',
        name: 'preview/pr-7',
        protected: true
      })
    )
    const run = await check(setup, 'preview/pr-7', 'delete')
    expect(run.report.outcome).toBe('failure')
    expect(run.report.teardown).toMatchObject({
      preflight: 'blocked',
      branch: { id: 'br-preview-pr-7b' }
    })
  })

  it('an older answer: primary: true without default is the default branch', async () => {
    const setup = world()
    Object.assign(setup.world.branchesOf(PROJECT)[0], { primaryOnly: true, parentId: 'br-root-0' })
    const run = await check(setup, 'main', 'delete')
    expect(run.report.outcome).toBe('failure')
    expect(
      (typedOutputs(run.report).values.blockers as { reason: string }[]).map((b) => b.reason)
    ).toEqual(['default', 'children'])
  })
})
