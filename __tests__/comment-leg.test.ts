/*
 * How a leg of a workflow run is told apart (comment-leg.ts): by the `pr_comment_leg` input, else by the
 * one job of the run attempt in progress on this runner, read from the jobs API; never a failure.
 * The legs' comment as a whole is comment-legs.test.ts's and simulated/comment-legs.test.ts's.
 */
import { describe, expect, it } from '@jest/globals'
import { identifyLeg, legInputName } from '../src/runner/comment-leg.js'
import type { CommentApi, WorkflowJob } from '../src/runner/github-comments.js'
import { pullRequestContext } from './support/github/context.js'
import { collectingLogger } from './support/logger.js'

const RUNNER = 'GitHub Actions 7'
const onRunner = { ...pullRequestContext('http://127.0.0.1:9'), runId: '9', runnerName: RUNNER }

const job = (name: string, runner = RUNNER, status = 'in_progress'): WorkflowJob => ({
  name,
  status,
  runner_name: runner
})

/** Jobs on other runners: `count` of them, in pages of at most 100. */
function others(count: number): WorkflowJob[][] {
  const pages: WorkflowJob[][] = []
  for (let i = 0; i < count; i += 100) {
    const size = Math.min(100, count - i)
    pages.push(Array.from({ length: size }, (_, j) => job(`gate (${i + j})`, `other ${i + j}`)))
  }
  return pages
}

/** A jobs API listing `pages` (or failing with `failure`); the run ids and attempts it was asked for. */
function jobsApi(pages: WorkflowJob[][], failure?: unknown) {
  const asked: [number, number][] = []
  const api = {
    async *listJobs(runId: number, attempt: number) {
      asked.push([runId, attempt])
      if (failure !== undefined) throw failure
      yield* pages
    }
  } as Pick<CommentApi, 'listJobs'> as CommentApi
  return { api, asked }
}

async function identify(
  pages: WorkflowJob[][],
  options: { context?: Partial<typeof onRunner>; failure?: unknown; signal?: AbortSignal } = {}
) {
  const { api, asked } = jobsApi(pages, options.failure)
  const { logger, lines } = collectingLogger()
  const identity = await identifyLeg({
    api,
    context: { ...onRunner, ...options.context },
    input: '',
    logger,
    signal: options.signal
  })
  return { identity, lines, asked }
}

async function fromInput(input: string, step = onRunner.step) {
  const { api, asked } = jobsApi([])
  const { logger, lines } = collectingLogger()
  const identity = await identifyLeg({ api, context: { ...onRunner, step }, input, logger })
  expect(asked).toEqual([])
  expect(lines).toEqual([])
  return identity
}

describe('the pr_comment_leg input', () => {
  it('a matrix of null (a job without a matrix) is named by its job id, or "null" without one', () => {
    expect(legInputName('null', 'gate')).toBe('gate')
    expect(legInputName('null', '')).toBe('null')
  })

  it('its key ignores whitespace, and differs by value and by step', async () => {
    const leg = await fromInput('{"os": "linux",\n "node": 24}')
    expect(leg).toEqual({ key: expect.stringMatching(/^n-[0-9a-f]{24}$/), name: 'linux, 24' })
    expect(await fromInput('{"os":"linux","node":24}')).toEqual(leg)
    expect((await fromInput('{"os": "linux",\n "node": 22}')).key).not.toBe(leg.key)
    expect((await fromInput('{"os": "linux",\n "node": 24}', 'other step')).key).not.toBe(leg.key)
  })

  it('its key stays the same from one version of the action to the next (the earlier attempt’s record holds it)', async () => {
    // A re-run may run a newer version of the action; its record must replace the older one's.
    expect((await fromInput('{"os": "linux", "node": 24}')).key).toBe('n-771880a13b0c09b62fbe91ec')
  })
})

describe('a leg told apart by the jobs API', () => {
  it('the one job in progress on this runner: its name, and a key the same in every attempt', async () => {
    const earlier = job('setup', RUNNER, 'completed')
    const pages = [[earlier, job('gate (a)', 'other')], [job('gate (b)')]]
    const { identity, lines, asked } = await identify(pages, {
      context: { runId: '12345', runAttempt: '12' }
    })
    expect(asked).toEqual([[12345, 12]])
    expect(lines).toEqual([])
    expect(identity).toEqual({ key: 'n-d9b3698b82d12db0211a3e97', name: 'gate (b)' })
    const again = await identify([[job('gate (b)')]], { context: { runAttempt: '2' } })
    expect(again.identity).toEqual(identity)
  })

  it('jobs are read up to 1000: a job after them is not found', async () => {
    const within = await identify([...others(999), [job('gate (b)')]])
    expect(within.identity.name).toBe('gate (b)')
    const beyond = await identify([...others(1000), [job('gate (b)')]])
    expect(beyond.identity).toEqual({})
    expect(beyond.lines).toEqual([
      `info: pr_comment: no job of this run attempt is in progress on runner ${RUNNER} alone, so this leg cannot be told apart; its result is added beside earlier attempts' (set the pr_comment_leg input to name it)`
    ])
  })

  it('no job, or two jobs, in progress on this runner: not told apart, one line', async () => {
    for (const pages of [[[job('gate (a)', 'other')]], [[job('gate (a)'), job('gate (b)')]]]) {
      const { identity, lines } = await identify(pages)
      expect(identity).toEqual({})
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^info: pr_comment: no job of this run attempt is in progress/)
    }
  })

  it('a job whose name another job of the attempt has: its name without a key, one line', async () => {
    const { identity, lines } = await identify([[job('gate'), job('gate', 'other')]])
    expect(identity).toEqual({ name: 'gate' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^info: pr_comment: another job of this run attempt is also named "gate"/
    )
  })

  it.each([
    ['a run id with text before it', { runId: 'x9' }],
    ['a run id with text after it', { runId: '9x' }],
    ['a run attempt with text before it', { runAttempt: 'x1' }],
    ['a run attempt with text after it', { runAttempt: '1x' }],
    ['no runner name', { runnerName: '' }]
  ])('%s: the jobs API is not asked, and the leg is not told apart', async (_, context) => {
    const { identity, lines, asked } = await identify([[job('gate (b)')]], { context })
    expect({ identity, lines, asked }).toEqual({ identity: {}, lines: [], asked: [] })
  })
})

describe('a jobs API that fails', () => {
  const warning = (why: string) =>
    `warning: pr_comment: could not tell this leg apart, because the jobs API failed: ${why}. Grant the job "permissions: actions: read", or set the pr_comment_leg input (pr_comment_leg: \${{ toJSON(matrix) }}), so that a re-run's result replaces the one it re-ran; until then earlier attempts' results stay beside it`

  it('is one warning with its message and HTTP status', async () => {
    // As Octokit throws it when GitHub answered: with the status, and the response.
    const failure = Object.assign(new Error('Resource not accessible by integration'), {
      status: 403,
      response: {}
    })
    const { identity, lines } = await identify([], { failure })
    expect(identity).toEqual({})
    expect(lines).toEqual([warning('Resource not accessible by integration (HTTP 403)')])
  })

  it('without a status, or not an Error: one warning with what was thrown', async () => {
    expect((await identify([], { failure: new Error('socket hang up') })).lines).toEqual([
      warning('socket hang up')
    ])
    expect((await identify([], { failure: 'socket hang up' })).lines).toEqual([
      warning('socket hang up')
    ])
  })

  it('once the comment is given up (its signal aborted), the failure is thrown, not warned of', async () => {
    const failure = new Error('aborted')
    const controller = new AbortController()
    controller.abort()
    const { api } = jobsApi([], failure)
    const { logger, lines } = collectingLogger()
    const leg = identifyLeg({
      api,
      context: onRunner,
      input: '',
      logger,
      signal: controller.signal
    })
    await expect(leg).rejects.toBe(failure)
    expect(lines).toEqual([])
  })
})
