/*
 * The e2e suites' way of running the bundle (support/bundles/run-bundle.ts): a bundle still running
 * when its test ends, a test that timed out say, is killed, not left in the process table.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { killRunningBundles, runBundle } from '../support/bundles/run-bundle.ts'
import { type LocalServer, startLocalServer } from '../support/listen.js'

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
})

describe('runBundle', () => {
  it('a bundle still running is killed by killRunningBundles, which the e2e fixtures call after each test', async () => {
    // A server that takes the request and never answers: the bundle would wait its 10 minutes.
    let requested = (): void => undefined
    const firstRequest = new Promise<void>((resolve) => (requested = resolve))
    server = await startLocalServer(() => requested())
    const run = runBundle({
      api_key: 'napi_run_bundle_test_key',
      project_id: 'some-project-123',
      api_host: `${server.url}/api/v2`
    })
    await firstRequest
    killRunningBundles()
    const ended = await run
    expect(ended.signal).toBe('SIGKILL')
    expect(ended.outputs).toEqual({})
  })
})
