/*
 * Deadlines over the real bundle: a wall clock that steps (the bundle's own clocks), and what a
 * timeout or a cancel says when nothing could be read. How close to the deadline a wait ends, with
 * servers that answer slowly or not at all, is proven on simulated time (simulated/deadlines).
 */
import { describe, expect, it } from '@jest/globals'
import { join } from 'node:path'
import { runAction, serve, terminateOnFirstRequest } from '../support/bundles/action.js'
import { pathToFileURL } from 'node:url'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('a wall clock that steps moves no deadline', () => {
  const stepped = (stepMs: number) => ({
    NODE_OPTIONS: `--import ${pathToFileURL(join(import.meta.dirname, '..', 'support', 'time', 'clock-step.mjs'))}`,
    CLOCK_STEP_MS: String(stepMs),
    CLOCK_STEP_AFTER_MS: '300'
  })

  it('the wall clock stepping back an hour does not stretch timeout: 2s', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'running')
    // A wait on the wall clock would run an hour more: the kill after 20 s would end it.
    const run = await runAction(
      server,
      { project_id: PROJECT, operation_id: op.id, timeout: '2s', interval: '1s' },
      { env: stepped(-3_600_000), killAfterMs: 20_000 }
    )
    expect(run.signal).toBeNull()
    expect(run.outputs.outcome).toBe('timeout')
  })

  it('the wall clock stepping forward an hour does not end a wait early', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'running', { reads: 2, then: 'finished' })
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
    const { server } = await serve()
    server.addFault({ kind: 'status', status: 503, message: 'maintenance' })
    // An interval longer than the timeout: whenever the first 503 comes, its retry (at least one
    // interval later) cannot fit, however quick or slow the machine.
    const run = await runAction(server, { project_id: PROJECT, timeout: '2s', interval: '3s' })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain('outcome: timeout, before the operations could be read')
    // The last retry would have gone out after the deadline: the gate gave up with time left, and
    // says so with the numbers, not that the timeout ran out.
    expect(run.stdout).toMatch(
      /^::error::The API never gave a usable answer: gave up before anything could be read \(no retry fits before the deadline: the retry after HTTP 503 would wait [\d.]+ m?s, with [\d.]+ m?s of the timeout left; last error: /m
    )
    expect(run.stdout).toContain(
      '::error title=timeout%3A the state of the operations is unknown::'
    )
    expect(run.stdout).not.toContain('0 operation(s)')
    expect(run.summary).toContain(
      'The API never gave a usable answer before the gate gave up: the state of the operations is unknown.'
    )
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.outputs.operations).toBeUndefined()
    expect(run.outputs.status).toBeUndefined()
    expect(run.outputs.elapsed_ms).toMatch(/^\d+$/)
  })

  it('a 429 with Retry-After: 30 and 4 s left: no retry fits, said with the numbers, at once', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'status', status: 429, retryAfter: '30', message: 'slow down' })
    const run = await runAction(server, { project_id: PROJECT, timeout: '4s' })
    // What is left of the 4 s depends on how long the bundle took to start and be answered (1.1 s
    // on a busy machine): any figure under 4 s, with the numbers said.
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toMatch(
      /^::error::The API never gave a usable answer: gave up before anything could be read \(no retry fits before the deadline: the retry after HTTP 429, Retry-After 30 would wait 3\d\.\d s, with [0-4]\.\d s of the timeout left; last error: .*HTTP 429/m
    )
    expect(run.stdout).not.toContain('timeout ran out')
    expect(run.summary).not.toContain('timeout ran out')
    expect(run.runningMs).toBeLessThan(3000)
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
