/*
 * Never pass a gate falsely, in process on simulated time: answers about another operation or
 * another project, times that cannot be read, and branch names that fit no branch or several.
 * Two of them are shown over the bundle too (e2e/no-false-green.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine } from '../../src/gate/run-report.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('answers are held to the question', () => {
  it('50 running operations with unreadable created_at keep the gate closed', async () => {
    const setup = simulatedWorld({ history: 0 })
    for (let i = 0; i < 50; i++) operationIn(setup.world, 'running')
    setup.api.addFault({
      kind: 'altered',
      alter: (body) => {
        const page = body as { operations: object[] }
        const operations = page.operations.map((op) => ({ ...op, created_at: 'yesterday-ish' }))
        return { ...page, operations }
      }
    })
    const run = await runSimulated(setup, { project_id: PROJECT, wait: 'false' })
    expect(run.report.outcome).toBe('pending')
    expect(run.report.wait?.operations).toHaveLength(50)
    expect(run.lines).toContainEqual(expect.stringContaining('has no readable created_at'))
  })

  it.each([
    ['read by id', 'br-main-000001'],
    ['found by name', 'main']
  ])('a branch of another project, %s, fails the step', async (_case, input) => {
    const setup = simulatedWorld({ history: 0 })
    const stranger = (branch: object) => ({ ...branch, project_id: 'someone-else-123' })
    setup.api.addFault({
      kind: 'altered',
      route: 'branch',
      alter: (body) => ({
        ...(body as object),
        branch: stranger((body as { branch: object }).branch)
      })
    })
    setup.api.addFault({
      kind: 'altered',
      route: 'branches',
      alter: (body) => {
        const page = body as { branches: object[] }
        return { ...page, branches: page.branches.map(stranger) }
      }
    })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: input })
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toContain(
      'belongs to project "someone-else-123", not the one asked for'
    )
    expect(run.requests.some((request) => request.route === 'operations')).toBe(false)
  })
})

describe('branch_id: an id or a name, never an empty gate', () => {
  it('a branch named like an id (br-hotfix-7) resolves by its name', async () => {
    const setup = simulatedWorld({ history: 0 })
    setup.world.addBranch(PROJECT, { id: 'br-quiet-sun-123456', name: 'br-hotfix-7' })
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: 'br-hotfix-7' })
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContain('info: Gating branch br-hotfix-7 (br-quiet-sun-123456)')
  })

  it('a branch name resolves to its branch, and the gate waits for its operations only', async () => {
    const setup = simulatedWorld({ history: 0 })
    const [create, start] = setup.world.createBranch(PROJECT, {
      branchId: 'br-preview-pr-12',
      branchName: 'preview/pr-12'
    })
    create.timeline = start.timeline = [{ status: 'running', reads: 1 }, { status: 'finished' }]
    const onMain = operationIn(setup.world, 'running', { then: 'finished' })
    const main = await runSimulated(setup, { project_id: PROJECT, branch_id: 'main' })
    expect(main.report.outcome).toBe('success')
    expect(main.report.wait?.operations.map((op) => op.id)).toEqual([onMain.id])
    expect(main.lines).toContain('info: Gating branch main (br-main-000001)')
    const preview = await runSimulated(setup, { project_id: PROJECT, branch_id: 'preview/pr-12' })
    expect(preview.report.branch).toMatchObject({ id: 'br-preview-pr-12', name: 'preview/pr-12' })
    expect(setup.api.requests.filter((request) => request.route === 'branches')).toHaveLength(2)
  })

  it.each([
    ['an id that names no branch', 'br-gone-123456', 'has no branch with the id "br-gone-123456"'],
    ['a name that fits several', 'twin', '2 branches of project']
  ])('%s is an input error before the first poll', async (_case, input, message) => {
    const setup = simulatedWorld({ history: 0 })
    setup.world.addBranch(PROJECT, { id: 'br-twin-000001', name: 'twin' })
    setup.world.addBranch(PROJECT, { id: 'br-twin-000002', name: 'twin' })
    operationIn(setup.world, 'running')
    const run = await runSimulated(setup, { project_id: PROJECT, branch_id: input })
    expect(run.report.outcome).toBe('error')
    expect(run.report.error).toMatch(/^input "branch_id": /)
    expect(run.report.error).toContain(message)
    expect(run.requests.some((request) => request.route === 'operations')).toBe(false)
  })
})
