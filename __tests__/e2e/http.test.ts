import { describe, expect, it } from '@jest/globals'
import { KEYS, PROJECT, runAction, serve, terminateOnFirstRequest } from '../fixtures/e2e.js'

describe('bundle end to end: HTTP behaviour', () => {
  it.each([
    ['revoked', KEYS.revoked],
    ['unknown', 'napi_not_a_key_at_all_123']
  ])('401 for a %s key: fails at once, no retry', async (_kind, key) => {
    const { server } = await serve()
    const run = await runAction(server, { api_key: key, project_id: PROJECT })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::The API rejected the key (HTTP 401')
    expect(run.stdout).toContain('api_key is missing, invalid or revoked')
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.requests).toHaveLength(1)
    expect(run.summary).toContain('Error:')
  })

  it('403 for a project-scoped key of another project', async () => {
    const { server } = await serve()
    const run = await runAction(server, { api_key: KEYS.otherProject, project_id: PROJECT })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`::error::The key has no access to project "${PROJECT}" (HTTP 403`)
    expect(run.outputs).toEqual({})
    expect(run.summary).toContain('HTTP 403')
    expect(server.requests).toHaveLength(1)
  })

  it('404 names the project, or the operation, that was not found', async () => {
    const { server } = await serve()
    const missingProject = await runAction(server, { project_id: 'no-such-project' })
    expect(missingProject.code).toBe(1)
    expect(missingProject.stdout).toContain(
      '::error::Project "no-such-project" was not found (HTTP 404'
    )
    const id = '3f9a0c1e-5b7d-4e2f-8a6c-0d1e2f3a4b5c'
    const missingOperation = await runAction(server, { project_id: PROJECT, operation_id: id })
    expect(missingOperation.stdout).toContain(
      `::error::Operation "${id}" of project "${PROJECT}" was not found (HTTP 404`
    )
    expect(missingOperation.stdout).toMatch(/request id [0-9a-f-]{36}/)
    expect(missingOperation.summary).toContain('was not found')
    expect(missingOperation.outputs).toEqual({})
    expect(server.requests.map((request) => request.status)).toEqual([404, 404])
  })

  it('malformed JSON is an error naming the endpoint', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    server.addFault({ kind: 'malformed', times: 1 })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      `::error::Unexpected response from GET /projects/${PROJECT}/operations/${op.id}: the body is not JSON`
    )
    expect(run.summary).toContain('the body is not JSON')
    expect(run.outputs).toEqual({})
    expect(server.requests).toHaveLength(1)
  })

  it('a key revoked in the middle of a wait: fails at once on the next read', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    // Revoked once the server has answered the first read: the second one meets it.
    server.onRequest = () => {
      if (server.requests.length === 2) world.keys.get(KEYS.organization)!.revoked = true
    }
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::The API rejected the key (HTTP 401')
    expect(run.summary).toContain(`<code>${op.id}</code>`)
    expect(server.requests.map((request) => request.status)).toEqual([200, 401])
  })

  it('a server that holds the request open: the process still ends at the deadline', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
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
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
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

  it('a Retry-After longer than the time left ends the wait now with timeout', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    server.addFault({ kind: 'status', status: 429, retryAfter: '120' })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '30s'
    })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain('no retry fits before the deadline; last error:')
    // Far below the 30 s a wait for the next try would take; at once, on simulated time.
    expect(run.runningMs).toBeLessThan(15_000)
    expect(run.summary).toContain('⌛ timeout')
    expect(server.requests).toHaveLength(1)
  })

  it.each([
    [{ api_key: '' }, 'input "api_key": required'],
    [{ operation_id: 'abc' }, 'input "operation_id": "abc" is not a UUID'],
    [{ project_id: 'Not Valid' }, 'input "project_id": "Not Valid" is not valid'],
    [{ interval: '200ms' }, 'input "interval": "200ms" is below the minimum of 1 second'],
    [{ timeout: 'soon' }, 'input "timeout": "soon" is not a duration'],
    [{ wait: 'maybe' }, 'input "wait": "maybe" is not a boolean'],
    [{ interval: '700h' }, 'input "interval": "700h" is above the maximum of 1h'],
    [
      { api_host: 'http://example.com/api/v2' },
      'input "api_host": "http://example.com/api/v2" is not allowed'
    ]
  ])('bad input %j fails before any request', async (bad, message) => {
    const { server } = await serve()
    const run = await runAction(server, { project_id: PROJECT, ...bad })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`::error::Invalid input: ${message}`)
    expect(run.outputs).toEqual({})
    expect(run.summary).toContain('Invalid input')
    expect(server.requests).toHaveLength(0)
  })
})
