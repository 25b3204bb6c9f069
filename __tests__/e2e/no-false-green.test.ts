/*
 * Never pass a gate falsely, over the real bundle: answers about another operation or another
 * project, times that cannot be read, and branch names that fit no branch or several.
 */
import { describe, expect, it } from '@jest/globals'
import { hostile, json, OP, runningOp } from '../fixtures/hostile-servers.js'
import { PROJECT, runAction, serve } from '../fixtures/e2e.js'

describe('answers are held to the question', () => {
  it('an answer for another operation does not count as the one asked for', async () => {
    const other = '0f0e0d0c-0b0a-4909-8807-060504030201'
    const server = await hostile((_request, response) =>
      json(response, 200, { operation: runningOp({ id: other, status: 'finished' }) })
    )
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP
    })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBeUndefined()
    expect(run.stdout).toContain(`the answer is operation "${other}", not the one asked for`)
  })

  it('50 running operations with unreadable created_at keep the gate closed', async () => {
    const operations = Array.from({ length: 50 }, (_, i) =>
      runningOp({
        id: `5a1f2c3d-4e5f-4a6b-8c7d-${String(i).padStart(12, '0')}`,
        created_at: 'yesterday-ish'
      })
    )
    const server = await hostile((_request, response) =>
      json(response, 200, { operations, pagination: {} })
    )
    const run = await runAction(server, {
      project_id: PROJECT,
      wait: 'false'
    })
    expect(run.outputs.outcome).toBe('pending')
    expect(JSON.parse(run.outputs.operations)).toHaveLength(50)
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.stdout).toContain('has no readable created_at')
  })
})

describe('branch answers are held to the question', () => {
  it('a branch named like an id (br-hotfix-7) resolves by its name', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-quiet-sun-123456', name: 'br-hotfix-7' })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'br-hotfix-7' })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Gating branch br-hotfix-7 (br-quiet-sun-123456)')
  })

  it.each([
    ['read by id', 'br-main-000001'],
    ['found by name', 'main']
  ])('a branch of another project, %s, fails the step', async (_case, input) => {
    const stranger = { id: 'br-main-000001', name: 'main', project_id: 'someone-else-123' }
    const server = await hostile((request, response) => {
      if (request.url?.includes('/branches/')) json(response, 200, { branch: stranger })
      else if (request.url?.includes('/branches')) json(response, 200, { branches: [stranger] })
      else json(response, 200, { operations: [], pagination: {} })
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: input })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('belongs to project "someone-else-123", not the one asked for')
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.hits.some((hit) => hit.includes('/operations'))).toBe(false)
  })
})

describe('branch_id: an id or a name, never an empty gate', () => {
  it('a branch name resolves to its branch, and the gate waits for its operations', async () => {
    const { world, server } = await serve()
    const [create, start] = world.createBranch(PROJECT, {
      branchId: 'br-preview-pr-12',
      branchName: 'preview/pr-12'
    })
    create.timeline = start.timeline = [{ status: 'running', reads: 1 }, { status: 'finished' }]
    const onMain = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running', reads: 1 }, { status: 'finished' }]
    })
    const main = await runAction(server, { project_id: PROJECT, branch_id: 'main' })
    expect(main.code).toBe(0)
    expect(JSON.parse(main.outputs.operations).map((op: { id: string }) => op.id)).toEqual([
      onMain.id
    ])
    expect(main.stdout).toContain('Gating branch main (br-main-000001)')
    const preview = await runAction(server, { project_id: PROJECT, branch_id: 'preview/pr-12' })
    expect(preview.summary).toContain('branch preview/pr-12 <code>br-preview-pr-12</code>')
    expect(server.requests.filter((request) => request.route === 'branches')).toHaveLength(2)
  })

  it.each([
    ['a name that fits no branch', 'mian', 'has no branch named "mian"'],
    ['an id that names no branch', 'br-gone-123456', 'has no branch with the id "br-gone-123456"'],
    ['a name that fits several', 'twin', '2 branches of project']
  ])('%s is an input error before the first poll', async (_case, input, message) => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-twin-000001', name: 'twin' })
    world.addBranch(PROJECT, { id: 'br-twin-000002', name: 'twin' })
    world.addOperation(PROJECT, { action: 'apply_config', timeline: [{ status: 'running' }] })
    const run = await runAction(server, { project_id: PROJECT, branch_id: input })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`::error::input "branch_id": `)
    expect(run.stdout).toContain(message)
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.requests.some((request) => request.route === 'operations')).toBe(false)
  })
})
