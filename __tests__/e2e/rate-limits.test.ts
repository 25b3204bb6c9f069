/*
 * 429s over the bundle against the local API server's limiter: with Retry-After (seconds or a date)
 * the gate waits it out; without, never sooner than interval, and the pace slows.
 */
import { describe, expect, it } from '@jest/globals'
import { gaps, PROJECT, runAction, serve } from '../fixtures/e2e.js'

describe('bundle end to end: 429s and the pace', () => {
  it.each(['seconds', 'date'] as const)(
    '429 from the server limiter with Retry-After as %s: waits it out, never faster',
    async (retryAfter) => {
      const { world, server } = await serve({
        limits: { perMinute: 2, accountWindowMs: 3000, retryAfter }
      })
      const op = world.addOperation(PROJECT, {
        action: 'apply_config',
        timeline: [{ status: 'running', ms: 2500 }, { status: 'finished' }],
        startOnFirstRead: true
      })
      const run = await runAction(server, {
        project_id: PROJECT,
        operation_id: op.id,
        timeout: '2m'
      })
      expect(run.code).toBe(0)
      expect(run.outputs.outcome).toBe('success')
      const statuses = server.requests.map((request) => request.status)
      expect(statuses.filter((status) => status === 429)).toHaveLength(1)
      // The third request is refused until the first leaves the 3 s window; it is not retried sooner.
      const limited = server.requests.findIndex((request) => request.status === 429)
      const retry = server.requests[limited + 1]
      expect(retry.at - server.requests[0].at).toBeGreaterThanOrEqual(3000)
      expect(run.stdout).toMatch(/HTTP 429, Retry-After .*; retrying in/)
      expect(run.summary).toContain('1 retry')
    }
  )

  it('429s without Retry-After from the server limiter: never sooner than interval, and the pace slows', async () => {
    const { world, server } = await serve({
      limits: { perMinute: 3, accountWindowMs: 4000, retryAfter: 'none' }
    })
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running', ms: 9000 }, { status: 'finished' }],
      startOnFirstRead: true
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '2m'
    })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    const statuses = server.requests.map((request) => request.status)
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0)
    for (const gap of gaps(server, () => true)) expect(gap).toBeGreaterThanOrEqual(990)
    // The request right after a 429 waits at least the pace it had (1 s), then the pace is 3 s.
    const limited = server.requests.findIndex((request) => request.status === 429)
    const next = server.requests[limited + 1]
    expect(next.at - server.requests[limited].at).toBeGreaterThanOrEqual(990)
    expect(run.stdout).toContain('429: polling every 3.0 s for now')
    expect(run.summary).toMatch(/\d+ × HTTP 429 · slowest pace \d/)
    // How the pace recovers takes dozens of polls: pace.test.ts and main.test.ts pin it on an
    // injected clock. Here it never goes past the recovery bound, 3 intervals, plus the jitter.
    for (const gap of gaps(server, () => true)) expect(gap).toBeLessThan(5000)
  })
})
