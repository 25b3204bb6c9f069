/*
 * Deadlines over the real bundle: servers that answer slowly or not at all, a wall clock that
 * steps, and what a timeout or a cancel says when nothing could be read.
 */
import { describe, expect, it } from '@jest/globals'
import { join } from 'node:path'
import { hostile, json } from '../fixtures/hostile-servers.js'
import { PROJECT, runAction, serve, terminateOnFirstRequest } from '../fixtures/e2e.js'
import { pathToFileURL } from 'node:url'

const errorBody = (message: string) => ({ code: '', message, request_id: 'req-1' })

describe('never hang, never overrun timeout', () => {
  it('10 operation ids against a server that answers in 0.9 s: timeout 2s still ends in time', async () => {
    const { world, server } = await serve()
    const ids = Array.from(
      { length: 10 },
      () =>
        world.addOperation(PROJECT, { action: 'apply_config', timeline: [{ status: 'running' }] })
          .id
    )
    server.addFault({ kind: 'slow', delayMs: 900 })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: ids.join(','),
      timeout: '2s'
    })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    // A 2 s timeout, its 1 s grace, and a loaded machine (start-up not counted).
    expect(run.runningMs).toBeLessThan(6000)
    expect(server.requests.length).toBeLessThanOrEqual(4)
  })

  it('a request without an answer is cut after 3 intervals (10 s at least) and retried at once', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
    server.addFault({ kind: 'slow', delayMs: 15_000, times: 1 })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '25s'
    })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('(no answer within 10.0 s); retrying now, the wait spent on it')
    const [first, second] = server.requests.map((request) => request.at)
    // The server sees the first request a little after the action sent it (more on a loaded
    // machine); a retry that waited again after the cut would come 10 s later still.
    expect(second - first).toBeGreaterThanOrEqual(9000)
    expect(second - first).toBeLessThan(20_000)
  })
})

describe('a wall clock that steps moves no deadline', () => {
  const stepped = (stepMs: number) => ({
    NODE_OPTIONS: `--import ${pathToFileURL(join(import.meta.dirname, '..', 'fixtures', 'clock-step.mjs'))}`,
    CLOCK_STEP_MS: String(stepMs),
    CLOCK_STEP_AFTER_MS: '300'
  })

  it('the wall clock stepping back an hour does not stretch timeout: 2s', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, timeout: '2s', interval: '1s' },
      { env: stepped(-3_600_000), killAfterMs: 12_000 }
    )
    expect(run.signal).toBeNull()
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.runningMs).toBeLessThan(6000)
  })

  it('the wall clock stepping forward an hour does not end a wait early', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      startOnFirstRead: true,
      timeline: [{ status: 'running', ms: 2500 }, { status: 'finished' }]
    })
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, timeout: '30s', interval: '1s' },
      { env: stepped(3_600_000) }
    )
    expect(run.outputs.outcome).toBe('success')
    expect(run.code).toBe(0)
  })
})

describe('nothing read is not "nothing in flight"', () => {
  it('503 until the timeout: the log, summary, annotation and outputs say nothing could be read', async () => {
    const server = await hostile((_request, response) =>
      json(response, 503, errorBody('maintenance'))
    )
    const run = await runAction(server, { project_id: PROJECT, timeout: '2s' })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain('outcome: timeout, before the operations could be read')
    expect(run.stdout).toMatch(
      /^::error::timeout ran out before anything could be read \(no retry fits/m
    )
    expect(run.stdout).toContain(
      '::error title=timeout%3A the state of the operations is unknown::'
    )
    expect(run.stdout).not.toContain('0 operation(s)')
    expect(run.summary).toContain(
      'Nothing could be read before the timeout ran out: the state of the operations is unknown.'
    )
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.outputs.operations).toBeUndefined()
    expect(run.outputs.status).toBeUndefined()
    expect(run.outputs.elapsed_ms).toMatch(/^\d+$/)
  })

  it('cancelled during the first read: the same, on the cancel path', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'slow', delayMs: 10_000 })
    const terminate = terminateOnFirstRequest(server)
    const run = await runAction(server, { project_id: PROJECT }, { onStart: terminate.onStart })
    expect(run.outputs.outcome).toBe('cancelled')
    expect(run.stdout).toMatch(
      /^::error::The wait was cancelled before anything could be read \(Cancelled by SIGTERM\)/m
    )
    expect(run.summary).toContain('Nothing could be read before the job was cancelled')
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.outputs.operations).toBeUndefined()
  })
})
