/*
 * Never pass a gate falsely, over the real bundle: an answer about another operation, and a branch
 * name that fits no branch, fail the step. Every other such case (another project's branch,
 * unreadable times, names that fit several) is in process, simulated/no-false-green.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('answers are held to the question', () => {
  it('an answer for another operation does not count as the one asked for', async () => {
    const other = '0f0e0d0c-0b0a-4909-8807-060504030201'
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    server.addFault({
      kind: 'altered',
      alter: (body) => ({ operation: { ...(body as { operation: object }).operation, id: other } })
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBeUndefined()
    expect(run.stdout).toContain(`the answer is operation "${other}", not the one asked for`)
  })
})

describe('branch_id: an id or a name, never an empty gate', () => {
  // An id that names no branch, and a name that fits several: simulated/no-false-green.test.ts.
  it('a name that fits no branch is an input error before the first poll', async () => {
    const { world, server } = await serve()
    operationIn(world, 'running')
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'mian' })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`::error::input "branch_id": `)
    expect(run.stdout).toContain('has no branch named "mian"')
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.requests.some((request) => request.route === 'operations')).toBe(false)
  })
})
