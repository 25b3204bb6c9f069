/*
 * What each answer of the API makes of the gate, in process over the local API server (simulated
 * time, so nothing waits): a refused key fails at once, a 403 and a 404 name what the key could not
 * reach, a body that is not JSON names the endpoint. The error line is the step's, as the runner
 * shows it (e2e/http.test.ts shows one of them over the bundle).
 */
import { describe, expect, it } from '@jest/globals'
import { errorLine } from '../../src/report/headline.js'
import { KEYS } from '../../script/servers/neon-api/scenarios.ts'
import { PROJECT, runSimulated, simulatedWorld } from '../fixtures/simulated-gate.js'

describe('error answers of the API', () => {
  it.each([
    ['revoked', KEYS.revoked],
    ['unknown', 'napi_not_a_key_at_all_123']
  ])('401 for a %s key: an error at once, no retry', async (_kind, key) => {
    const setup = simulatedWorld({ history: 0 })
    const run = await runSimulated(setup, { api_key: key, project_id: PROJECT })
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toMatch(
      /^The API rejected the key \(HTTP 401 on GET \/projects\/demo-project-000001\/operations\): api_key is missing, invalid or revoked/
    )
    expect(run.requests).toHaveLength(1)
    expect(run.endedAt).toBeLessThan(10)
  })

  it('403 for a project-scoped key of another project', async () => {
    const setup = simulatedWorld({ history: 0 })
    const run = await runSimulated(setup, { api_key: KEYS.otherProject, project_id: PROJECT })
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toMatch(
      new RegExp(`^The key has no access to project "${PROJECT}" \\(HTTP 403`)
    )
    expect(run.requests).toHaveLength(1)
  })

  it('404 names the project, or the operation, that was not found', async () => {
    const setup = simulatedWorld({ history: 0 })
    const project = await runSimulated(setup, { project_id: 'no-such-project' })
    expect(errorLine(project.report)).toMatch(/^Project "no-such-project" was not found \(HTTP 404/)
    const id = '3f9a0c1e-5b7d-4e2f-8a6c-0d1e2f3a4b5c'
    const operation = await runSimulated(setup, { project_id: PROJECT, operation_id: id })
    expect(errorLine(operation.report)).toMatch(
      new RegExp(`^Operation "${id}" of project "${PROJECT}" was not found \\(HTTP 404`)
    )
    expect(errorLine(operation.report)).toMatch(/request id [0-9a-f-]{36}/)
    expect(operation.report.wait).toBeUndefined()
    expect(setup.api.requests.map((request) => request.status)).toEqual([404, 404])
  })

  it('a body that is not JSON is an error naming the endpoint', async () => {
    const setup = simulatedWorld({ history: 0 })
    const op = setup.world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'running' }]
    })
    setup.api.addFault({ kind: 'malformed', times: 1 })
    const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id })
    expect(run.report.outcome).toBe('error')
    expect(errorLine(run.report)).toBe(
      `Unexpected response from GET /projects/${PROJECT}/operations/${op.id}: the body is not JSON`
    )
    expect(run.requests).toHaveLength(1)
  })
})
