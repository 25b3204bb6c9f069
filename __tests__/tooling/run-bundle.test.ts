/*
 * The e2e suites' way of running the bundle (support/bundles/run-bundle.ts): a bundle still running
 * when its test ends, a test that timed out say, is killed, not left in the process table.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

  it("sets action.yml's defaults as the runner does: only for the inputs not given, an empty one kept empty", async () => {
    // A stand-in for node that writes its INPUT_* variables as outputs.
    const dir = mkdtempSync(join(tmpdir(), 'run-bundle-test-'))
    const node = join(dir, 'node')
    writeFileSync(
      node,
      '#!/bin/sh\nenv | grep "^INPUT_" | while IFS== read -r name value; do printf "%s<<END\\n%s\\nEND\\n" "$name" "$value"; done >> "$GITHUB_OUTPUT"\n'
    )
    chmodSync(node, 0o755)
    try {
      const run = await runBundle({ api_key: 'k', branch_id: '', interval: '2s' }, { node })
      expect(run.outputs.INPUT_BRANCH_ID).toBe('')
      expect(run.outputs.INPUT_INTERVAL).toBe('2s')
      // Not given: action.yml's default.
      expect(run.outputs.INPUT_DATABASE_URL).toBe('(not given)')
      expect(run.outputs.INPUT_TIMEOUT).toBe('10m')
      // An expression's default is the runner's to evaluate.
      expect(run.outputs.INPUT_GITHUB_TOKEN).toBeUndefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
