/*
 * gate() end to end, with no runner: typed inputs in, a report out, against the local API server on
 * 127.0.0.1 and an injected clock. Nothing of @actions/core is loaded.
 */
import { CONTRACT_NAMING } from '../src/domain/input-naming.js'
import { afterEach, describe, expect, it } from '@jest/globals'
import { httpGet } from '../src/api/http-transport.js'
import { queryDatabase } from '../src/steps/database/postgres.js'
import { RetryPolicy } from '../src/api/retry-policy.js'
import { Redactor } from '../src/domain/untrusted-text.js'
import { errorLine } from '../src/gate/run-report.js'
import { gate } from '../src/gate/gate.js'
import { planOf } from '../src/gate/plan.js'
import { getInputs } from '../src/runner/input-helper.js'
import { type ApiServer, startApiServer } from './support/neon/server.ts'
import { demoWorld, operationIn } from './support/neon/scenarios.ts'
import { FakeClock } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'
import { KEYS, PROJECT } from './support/neon/ids.js'

let server: ApiServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function gateOn(values: Record<string, string>, world = demoWorld()) {
  server = await startApiServer(world)
  const all: Record<string, string> = {
    api_key: KEYS.organization,
    api_host: server.apiHost,
    ...values
  }
  const inputs = getInputs((name) => all[name])
  const { logger, lines } = collectingLogger()
  const report = await gate(planOf(inputs), {
    clock: new FakeClock(Date.now()),
    retryPolicy: new RetryPolicy({ random: () => 0 }),
    random: () => 0,
    logger,
    redactor: new Redactor([KEYS.organization]),
    signal: new AbortController().signal,
    transport: httpGet,
    queryDatabase,
    naming: CONTRACT_NAMING
  })
  return { report, lines }
}

describe('gate()', () => {
  it('the project gate on a finished operation: success, and the report holds it', async () => {
    const world = demoWorld({ history: 0 })
    const op = operationIn(world, 'finished')
    const { report } = await gateOn({ project_id: PROJECT, operation_id: op.id }, world)
    expect(report.outcome).toBe('success')
    expect(report.wait?.operations.map((operation) => operation.id)).toEqual([op.id])
    expect(report.requests.requests).toBe(1)
    expect(errorLine(report)).toBeUndefined()
  })

  it('a failed operation: failure, and the error line names it', async () => {
    const world = demoWorld({ history: 0 })
    const op = operationIn(world, 'error', { action: 'start_compute', error: 'out of capacity' })
    const { report } = await gateOn({ project_id: PROJECT, operation_id: op.id }, world)
    expect(report.outcome).toBe('failure')
    expect(errorLine(report)).toMatch(/^An operation ended in failure: .*"out of capacity"/)
  })

  it('a revoked key: the error is the report’s, redacted, and nothing was read', async () => {
    const { report } = await gateOn({ api_key: KEYS.revoked, project_id: PROJECT })
    expect(report.outcome).toBe('error')
    expect(report.error).toMatch(/^The API rejected the key \(HTTP 401/)
    expect(report.wait).toBeUndefined()
  })

  it('listing projects: success with the listing, and the log counts them', async () => {
    const { report, lines } = await gateOn({ list_projects: 'true' })
    expect(report.outcome).toBe('success')
    expect(report.listing?.projects.length).toBe(3)
    expect(lines).toContain('info: Found 3 projects')
  })
})
