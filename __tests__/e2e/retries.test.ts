/*
 * Retries over the bundle against the local API server: 5xx, 423, a dropped connection, a 429 with
 * Retry-After and a slow answer, each met once over real HTTP, are retried, then succeed; the
 * log and the summary count them. When each retry goes out is proven on simulated time
 * (simulated/pace.test.ts), where no real time passes.
 */
import { describe, expect, it } from '@jest/globals'
import { PROJECT, runAction, serve } from '../fixtures/e2e.js'

describe('bundle end to end: retries', () => {
  it('503, 423, a dropped connection, a 429 with Retry-After and a slow answer: retried, then success', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
    server.addFault({ kind: 'status', status: 503, times: 1 })
    server.addFault({ kind: 'status', status: 423, times: 1 })
    server.addFault({ kind: 'drop', times: 1 })
    server.addFault({ kind: 'status', status: 429, retryAfter: '1', times: 1 })
    server.addFault({ kind: 'slow', delayMs: 300, times: 1 })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(server.requests.map((request) => request.fault ?? request.status)).toEqual([
      'status',
      'status',
      'drop',
      'status',
      'slow'
    ])
    expect(server.requests.at(-1)?.status).toBe(200)
    expect(run.stdout).toMatch(/HTTP 503; retrying in \d\.\d s/)
    expect(run.stdout).toMatch(/HTTP 423; retrying in/)
    expect(run.stdout).toMatch(/no answer \(ECONNRESET/)
    expect(run.stdout).toMatch(/HTTP 429, Retry-After 1; retrying in \d\.\d s/)
    expect(run.stdout).toContain('429: polling every 3.0 s for now')
    expect(run.summary).toContain('5 requests · 4 retries · 1 × HTTP 429')
  })
})
