/*
 * HTTP over the bundle, for what only a process shows: the error line and the exit code of a
 * refused key, a key revoked between two reads, a request held open past the deadline, SIGTERM
 * while a request hangs, a bad input. How each status is worded is tested in process
 * (simulated/answers.test.ts); each input's problems in input-helper.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve, terminateOnFirstRequest } from '../support/bundles/action.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('bundle end to end: HTTP behaviour', () => {
  it('401 for a revoked key: fails at once, no retry', async () => {
    const { server } = await serve()
    const run = await runAction(server, { api_key: KEYS.revoked, project_id: PROJECT })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::The API rejected the key (HTTP 401')
    expect(run.stdout).toContain('api_key is missing, invalid or revoked')
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.requests).toHaveLength(1)
    expect(run.summary).toContain('Error:')
  })

  it('a key revoked in the middle of a wait: fails at once on the next read', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'running')
    // Revoked once the server has answered the first read: the second one meets it.
    server.onRequest = () => {
      if (server.requests.length === 2) world.keys.get(KEYS.organization)!.revoked = true
    }
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::The API rejected the key (HTTP 401')
    expect(run.summary).toContain(`<code>${op.id}</code>`)
    expect(server.requests.map((request) => request.status)).toEqual([200, 401])
    // The outputs keep the state last read, as the summary does; the outcome stays empty (an error).
    expect(run.outputs.outcome).toBeUndefined()
    expect(run.outputs).toMatchObject({ status: 'running', operation_id: op.id })
    expect(JSON.parse(run.outputs.operations)).toEqual([
      expect.objectContaining({ id: op.id, status: 'running' })
    ])
    expect(Number(run.outputs.elapsed_ms)).toBeGreaterThan(0)
    // Still running at its last read: measured from its creation to that read, never "0 ms".
    expect(run.summary).not.toContain('<td>0 ms</td>')
    expect(run.summary).toMatch(/<td>[\d.]+ m?s so far<\/td>/)
  })

  it('a server that holds the request open: the process still ends at the deadline', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'running')
    server.addFault({ kind: 'slow', delayMs: 60_000 })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, timeout: '3s' },
      { killAfterMs: 50_000 }
    )
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    // Cut at the deadline: what was left of the 3 s when the request started (less on a busy machine).
    expect(run.stdout).toMatch(/no answer within [0-3]\.\d s/)
    // A ceiling far below the held answer's 60 s; the cut itself is exact on simulated time.
    expect(run.runningMs).toBeLessThan(20_000)
    expect(run.summary).toContain('⌛ timeout')
    expect(server.requests).toHaveLength(1)
  })

  it('SIGTERM while a request hangs: exits at once, with cancelled', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'running')
    server.addFault({ kind: 'slow', delayMs: 60_000 })
    const terminate = terminateOnFirstRequest(server)
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id },
      { onStart: terminate.onStart }
    )
    expect(run.code).toBe(1)
    // A ceiling far below the held answer's 60 s.
    expect(run.endedAt - terminate.sentAt()).toBeLessThan(10_000)
    expect(run.outputs.outcome).toBe('cancelled')
    expect(run.stdout).toContain('::error::The wait was cancelled')
    expect(run.summary).toContain('🚫 cancelled')
    expect(server.requests).toHaveLength(1)
  })

  it('a bad input fails before any request: exit 1, the error line, no output', async () => {
    // Each input's problems are worded in input-helper.test.ts; here, what the step does with one.
    const { server } = await serve()
    const run = await runAction(server, { project_id: PROJECT, interval: '200ms' })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      '::error::Invalid input: input "interval": "200ms" is below the minimum of 1 second'
    )
    expect(run.outputs).toEqual({})
    expect(run.summary).toContain('Invalid input')
    expect(server.requests).toHaveLength(0)
  })
})
