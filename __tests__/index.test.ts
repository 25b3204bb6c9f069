/*
 * src/index.ts, the entry point: when run() itself rejects (here: publishing throws), the step
 * still ends with one error line, redacted like every other, and no stack trace.
 */
import { expect, it, jest } from '@jest/globals'
import * as runner from './support/github/core.js'

const KEY = 'napi_index_test_key_0123456789'
const publish = jest.fn(async () => {
  throw new Error(`the summary file broke while writing Bearer ${KEY}`)
})
jest.unstable_mockModule('@actions/core', () => runner)
jest.unstable_mockModule('../src/runner/publish.js', () => ({ publish }))

it('a rejected run() is one redacted error line, and the step fails', async () => {
  runner.reset({ api_key: KEY, project_id: 'bad project' })
  await import('../src/index.js')
  expect(publish).toHaveBeenCalledTimes(1)
  const errors = runner.setFailed.mock.calls.map(([message]) => message)
  expect(errors).toEqual([
    'The action failed unexpectedly: the summary file broke while writing Bearer ***'
  ])
  expect(JSON.stringify(runner.logs)).not.toContain(KEY)
})
