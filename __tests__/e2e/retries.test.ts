/*
 * Retries over the bundle against the local API server, for what real HTTP shows: a connection
 * dropped mid-request, a 429 whose Retry-After header is read off the wire, and a slow answer are
 * retried, then succeed; the log and the summary count them. When each retry goes out, and the
 * 5xx and 423 answers, are proven on simulated time (simulated/pace.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('bundle end to end: retries', () => {
  it('a dropped connection, a 429 with Retry-After and a slow answer: retried, then success', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    server.addFault({ kind: 'drop', times: 1 })
    server.addFault({ kind: 'status', status: 429, retryAfter: '1', times: 1 })
    server.addFault({ kind: 'slow', delayMs: 300, times: 1 })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(server.requests.map((request) => request.fault ?? request.status)).toEqual([
      'drop',
      'status',
      'slow'
    ])
    expect(server.requests.at(-1)?.status).toBe(200)
    expect(run.stdout).toMatch(/no answer \(ECONNRESET/)
    expect(run.stdout).toMatch(/HTTP 429, Retry-After 1; retrying in \d\.\d s/)
    expect(run.stdout).toContain('429: polling every 3.0 s for now')
    expect(run.summary).toContain('3 requests · 2 retries · 1 × HTTP 429')
  })
})
