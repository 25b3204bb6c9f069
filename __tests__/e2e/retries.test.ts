/*
 * Retries over the bundle against the local API server: 5xx, 423, a dropped connection and a slow
 * answer are retried at the gate's pace, then succeed. (429s are in rate-limits.test.ts.)
 */
import { describe, expect, it } from '@jest/globals'
import { gaps, PROJECT, runAction, serve } from '../fixtures/e2e.js'

describe('bundle end to end: retries and the pace', () => {
  it('5xx, 423, a dropped connection and a slow answer are retried, then success', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'finished' }]
    })
    server.addFault({ kind: 'status', status: 503, times: 1 })
    server.addFault({ kind: 'status', status: 423, times: 1 })
    server.addFault({ kind: 'drop', times: 1 })
    server.addFault({ kind: 'slow', delayMs: 300, times: 1 })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(server.requests.map((request) => request.fault ?? request.status)).toEqual([
      'status',
      'status',
      'drop',
      'slow'
    ])
    expect(server.requests.at(-1)?.status).toBe(200)
    expect(run.stdout).toMatch(/HTTP 503; retrying in \d\.\d s/)
    expect(run.stdout).toMatch(/HTTP 423; retrying in/)
    expect(run.stdout).toMatch(/no answer \(ECONNRESET/)
    expect(run.summary).toContain('4 requests · 3 retries')
    for (const gap of gaps(server, () => true)) expect(gap).toBeGreaterThanOrEqual(990)
  })
})
