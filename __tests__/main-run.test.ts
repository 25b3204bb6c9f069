/*
 * The action's run() in process (the fake of @actions/core, the local API server behind nock): what
 * it says before and around the gate, the GitHub context it reads, and the inputs as the runner
 * hands them over.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals'
import * as runner from './support/github/core.js'
import { withoutNetwork } from './support/nock.js'
import { FakeClock } from './support/time/clock.js'
import { KEYS, PROJECT } from './support/neon/ids.js'
import { API_HOST, nockWorld } from './support/neon/nock.js'
import { addStalePreviews } from './support/neon/stale-branches.js'
import { ACTIONS_BOT } from './support/github/server.js'
import { GITHUB_ORIGIN, nockGitHub } from './support/github/nock.js'

jest.unstable_mockModule('@actions/core', () => runner)
const { failUnexpectedly, run } = await import('../src/runner/main.js')

/** The job's token, which may read the repository's pull requests. */
const TOKEN = 'ghs_main_run_token_0123456789'
const REPOSITORY = 'octo/app'
const CONTEXT = ['GITHUB_EVENT_NAME', 'GITHUB_API_URL', 'GITHUB_REPOSITORY', 'GITHUB_STEP_SUMMARY']
const saved = CONTEXT.map((name) => process.env[name])

/** A fake clock whose sleeps end only when aborted: GitHub's answers come before any time limit. */
class HeldClock extends FakeClock {
  override sleep(_ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((_, reject) =>
      signal?.addEventListener('abort', () => reject(signal.reason))
    )
  }
}

/** A fresh world on a fake clock; the inputs are `values` with the project and its host. */
function start(values: Record<string, string>, clock = new FakeClock()) {
  const { world, api } = nockWorld(clock)
  runner.reset({ project_id: PROJECT, api_host: API_HOST, ...values })
  return { world, api, outcome: () => run({ clock, random: () => 0 }) }
}

beforeEach(() => {
  process.env.GITHUB_STEP_SUMMARY = '/dev/null'
})
afterEach(() => {
  CONTEXT.forEach((name, i) => {
    if (saved[i] === undefined) delete process.env[name]
    else process.env[name] = saved[i]
  })
})
withoutNetwork()

describe('run, around the gate', () => {
  it('an input error: the banner is still the first line, and SIGINT and SIGTERM are let go', async () => {
    const { outcome } = start({ api_key: KEYS.organization, operation_id: 'nope' })
    const listeners = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]
    expect(await outcome()).toBe('error')
    expect(runner.logs.find((line) => line.startsWith('info: '))).toMatch(
      /^info: Neon operations gate /
    )
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(listeners)
  })

  it('no api_key on a pull_request_target run: an input error that says why, no request', async () => {
    process.env.GITHUB_EVENT_NAME = 'pull_request_target'
    const { outcome, api } = start({})
    expect(await outcome()).toBe('error')
    expect(runner.setFailed).toHaveBeenCalledWith(
      expect.stringMatching(/^input "api_key" is empty: pull_request_target runs get/)
    )
    expect(api.requests).toEqual([])
  })

  it("the gate's notices and debug lines reach the runner as such", async () => {
    const { outcome } = start({
      api_key: KEYS.organization,
      branch_id: 'br-hotfix-7',
      before: 'delete'
    })
    expect(await outcome()).toBe('success')
    expect(runner.notice).toHaveBeenCalledWith('branch br-hotfix-7 is gone: nothing to delete')
    expect(runner.debug).toHaveBeenCalledWith(expect.stringMatching(/^GET /))
  })

  it('white space alone as operation_id reaches the inputs as given, untrimmed: named as such', async () => {
    const { outcome, api } = start({ api_key: KEYS.organization, operation_id: ' ' })
    expect(await outcome()).toBe('error')
    expect(runner.setFailed).toHaveBeenCalledWith(
      expect.stringContaining('input "operation_id": holds only white space')
    )
    expect(api.requests).toEqual([])
  })
})

describe("run, a sweep's pull requests", () => {
  /** A sweep of the stale previews, with the local GitHub API at the context's URL. */
  function sweep(values: Record<string, string>) {
    process.env.GITHUB_API_URL = GITHUB_ORIGIN
    process.env.GITHUB_REPOSITORY = REPOSITORY
    const github = nockGitHub()
    github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: false })
    const inputs = { api_key: KEYS.organization, sweep: 'preview/pr-{pr}', ...values }
    const started = start(inputs, new HeldClock())
    addStalePreviews(started.world)
    return { github, outcome: started.outcome }
  }

  it('read with github_token, which is masked', async () => {
    const { github, outcome } = sweep({ github_token: TOKEN })
    await outcome()
    expect(runner.setSecret).toHaveBeenCalledWith(TOKEN)
    expect(github.requests.length).toBeGreaterThan(0)
    expect(new Set(github.requests.map((request) => request.token))).toEqual(new Set([TOKEN]))
  })

  it('without github_token: GitHub is not asked', async () => {
    const { github, outcome } = sweep({})
    await outcome()
    expect(github.requests).toEqual([])
  })
})

describe('failUnexpectedly', () => {
  it('one redacted error line, and the outcome error', () => {
    runner.reset({ api_key: KEYS.organization })
    expect(failUnexpectedly(new Error(`socket closed for ${KEYS.organization}`))).toBe('error')
    expect(runner.setFailed).toHaveBeenCalledWith(
      'The action failed unexpectedly: socket closed for ***'
    )
  })
})
