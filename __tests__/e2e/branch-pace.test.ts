/*
 * The branch search and the readiness read are part of the wait: over the bundle, a 429 on either
 * is retried at the gate's pace (never sooner than `interval`), not at the 2 s pace of listings.
 */
import { describe, expect, it } from '@jest/globals'
import { PROJECT, runAction } from '../fixtures/e2e.js'
import { hostile, json } from '../fixtures/hostile-servers.js'

const STAGING = { id: 'br-staging-000031', name: 'staging', project_id: PROJECT }

describe('branch reads keep the gate pace', () => {
  it('a 429 on the search and on the readiness read: each retried no sooner than interval (5 s)', async () => {
    const times = { search: [] as number[], read: [] as number[] }
    const server = await hostile((request, response) => {
      const url = request.url ?? ''
      const kind = url.includes('/branches/') ? 'read' : url.includes('/branches') ? 'search' : ''
      if (!kind) return json(response, 200, { operations: [], pagination: {} })
      times[kind].push(Date.now())
      if (times[kind].length === 1) {
        return json(response, 429, { code: '', message: 'rate limit exceeded, retry later' })
      }
      const branch = { ...STAGING, current_state: 'ready' }
      json(response, 200, kind === 'read' ? { branch } : { branches: [branch], pagination: {} })
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      branch_id: 'staging',
      interval: '5s',
      timeout: '60s'
    })
    expect(run.outputs.outcome).toBe('success')
    expect(times.search).toHaveLength(2)
    expect(times.read).toHaveLength(2)
    expect(times.search[1] - times.search[0]).toBeGreaterThanOrEqual(5000)
    expect(times.read[1] - times.read[0]).toBeGreaterThanOrEqual(5000)
  }, 45_000)
})
