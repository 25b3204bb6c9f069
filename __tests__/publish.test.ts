/*
 * publish() in process, as the runner's toolkit sees it (the fake of @actions/core): the step's
 * error line and annotations, the outputs, the job summary, the pull-request comment's call and
 * its comment_url, and a runner file that cannot be written. The comment's writer is a stand-in
 * here: what it writes on GitHub is pr-comment.test.ts's.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as runner from './support/github/core.js'
import { pullRequestContext } from './support/github/context.js'
import { operation } from './support/neon/operations.js'
import type { Logger } from '../src/domain/logger.js'
import type { RunReport } from '../src/report/report.js'
import type { DatabaseProbe } from '../src/steps/database/database-probe.js'

const writePullRequestComment = jest.fn(
  async (_parameters: unknown): Promise<string | undefined> => undefined
)
jest.unstable_mockModule('@actions/core', () => runner)
jest.unstable_mockModule('../src/runner/pr-comment.js', () => ({ writePullRequestComment }))
const { publish } = await import('../src/runner/publish.js')
const { getInputs } = await import('../src/runner/input-helper.js')

const context = pullRequestContext('https://api.github.com')
/** A directory: no runner file can be written there. */
const DIRECTORY = mkdtempSync(join(tmpdir(), 'publish-test-'))

/** The log's lines, debug ones too (support/logger.ts's drops them). */
let lines: string[] = []
const logger: Logger = {
  info: (message) => lines.push(`info: ${message}`),
  warning: (message) => lines.push(`warning: ${message}`),
  notice: (message) => lines.push(`notice: ${message}`),
  debug: (message) => lines.push(`debug: ${message}`)
}
const redact = (text: string) => text.replaceAll('s3cret', '***')
const sinks = { logger, redact, toLog: (text: string) => `[${redact(text)}]` }

/** A report of `outcome` whose wait read `operations`. */
function report(
  outcome: RunReport['outcome'],
  operations = [operation({ status: 'finished' })],
  extra: Partial<RunReport> = {}
): RunReport {
  const waited = outcome === 'error' || !outcome ? 'failure' : outcome
  return {
    outcome,
    requests: { requests: 1, retries: 0 },
    wait: {
      outcome: waited,
      polls: 1,
      observed: true,
      elapsedMs: 1000,
      operations,
      readAt: new Map()
    },
    ...extra
  }
}

/** The action's inputs, as the runner would give them. */
const inputsOf = (values: Record<string, string>) =>
  getInputs(
    (name) => (({ api_key: 'key', project_id: 'p-1', ...values }) as Record<string, string>)[name]
  )

beforeEach(() => {
  runner.reset({})
  lines = []
  process.env.GITHUB_STEP_SUMMARY = '/dev/null'
  delete process.env.GITHUB_OUTPUT
})
afterEach(() => {
  process.exitCode = undefined
  delete process.env.GITHUB_STEP_SUMMARY
})
afterAll(() => rmSync(DIRECTORY, { recursive: true }))

/** A database that never answered in time, probed three times. */
const database: DatabaseProbe = {
  outcome: 'timeout',
  state: 'unreachable',
  attempts: 3,
  target: { host: '10.0.0.5', database: 'app', user: 'gate' },
  span: { start: 100, end: 140 },
  afterControlPlaneMs: 40,
  failure: { state: 'unreachable', retry: 'retry', message: 'connect ETIMEDOUT' }
}
const URL = 'https://github.com/octo/app/pull/42#issuecomment-7'

describe('publish: the step and its annotations', () => {
  it('an annotation that says the error line gives it its title, once; the others follow; the step fails', async () => {
    const failed = operation({ status: 'error', action: 'create_branch', error: 'no s3cret space' })
    await publish(report('timeout', [failed], { database }), undefined, context, sinks)
    expect(runner.logs).toEqual([
      'annotation: [database unreachable]: [timeout ran out: the database app on 10.0.0.5 did not answer: "connect ETIMEDOUT"]',
      `annotation: [create_branch error on br-main-000001]: [Operation ${failed.id}: no *** space]`
    ])
    expect(runner.setFailed).not.toHaveBeenCalled()
    expect(process.exitCode).toBe(1)
    expect(writePullRequestComment).not.toHaveBeenCalled()
    expect(runner.outputs).not.toHaveProperty('comment_url')
  })

  it("outputs cut to fit GitHub's limit say so in a warning", async () => {
    const operations = Array.from({ length: 150 }, () => operation({ error: 'e'.repeat(4000) }))
    await publish(report('pending', operations), undefined, context, sinks)
    expect(lines).toEqual([
      expect.stringMatching(/^warning: The operations output holds the first \d+ of 150: GitHub/)
    ])
    expect(runner.outputs.outcome).toBe('pending')
  })
})

describe("publish: the runner's files", () => {
  it('the job summary says which pull request and head it is about, redacted', async () => {
    const failed = operation({ status: 'error', error: 'no s3cret space' })
    await publish(report('failure', [failed]), undefined, context, sinks)
    expect(runner.summaries).toHaveLength(1)
    expect(runner.summaries[0]).toContain('pull request #42')
    expect(runner.summaries[0]).toContain('head <code>aaaaaaa</code>')
    expect(runner.summaries[0]).toContain('no *** space')
    expect(runner.summaries[0]).not.toContain('s3cret')
  })

  it('without GITHUB_STEP_SUMMARY no job summary is written, and a debug line says so', async () => {
    delete process.env.GITHUB_STEP_SUMMARY
    await publish(report('success'), undefined, context, sinks)
    expect(lines).toEqual(['debug: GITHUB_STEP_SUMMARY is not set; no job summary written'])
    expect(runner.summaries).toEqual([])
    expect(runner.outputs.outcome).toBe('success')
  })

  it('a GITHUB_STEP_SUMMARY that cannot be written is a warning; the outputs are still written', async () => {
    process.env.GITHUB_STEP_SUMMARY = DIRECTORY
    await publish(report('success'), undefined, context, sinks)
    expect(lines).toEqual([
      'warning: Could not write the job summary (GITHUB_STEP_SUMMARY): it cannot be opened for writing (EISDIR)'
    ])
    expect(runner.summaries).toEqual([])
    expect(runner.summary.addRaw).not.toHaveBeenCalled()
    expect(runner.outputs.outcome).toBe('success')
    expect(runner.setFailed).not.toHaveBeenCalled()
  })

  it('a job summary whose write fails is a warning, and leaves nothing behind for a later write', async () => {
    runner.summary.write.mockRejectedValueOnce(new Error('disk full'))
    await publish(report('success'), undefined, context, sinks)
    expect(lines).toEqual([
      'warning: Could not write the job summary (GITHUB_STEP_SUMMARY): disk full'
    ])
    await runner.summary.write()
    expect(runner.summaries).toEqual([''])
  })

  it('a GITHUB_OUTPUT that cannot be written fails the step; the job summary is still written', async () => {
    process.env.GITHUB_OUTPUT = DIRECTORY
    await publish(report('success'), undefined, context, sinks)
    expect(runner.setFailed).toHaveBeenCalledWith(
      "[Could not write the step's outputs (GITHUB_OUTPUT): it cannot be opened for writing (EISDIR)]"
    )
    expect(runner.outputs).toEqual({})
    expect(runner.summaries).toHaveLength(1)
  })

  it('a GITHUB_OUTPUT that can be written takes every output', async () => {
    process.env.GITHUB_OUTPUT = '/dev/null'
    await publish(report('success'), undefined, context, sinks)
    expect(runner.setFailed).not.toHaveBeenCalled()
    expect(runner.outputs).toMatchObject({ outcome: 'success', status: 'finished' })
  })
})

describe('publish: the pull-request comment', () => {
  it("is written for the gate's branch, as the inputs say, and its URL is the comment_url output", async () => {
    writePullRequestComment.mockResolvedValueOnce(URL)
    const inputs = inputsOf({ pr_comment: 'always', branch_id: 'br-1', github_token: 'ghs_t' })
    const done = report('success')
    await publish(done, inputs, context, sinks)
    expect(writePullRequestComment).toHaveBeenCalledTimes(1)
    expect(writePullRequestComment).toHaveBeenCalledWith({
      mode: 'always',
      token: 'ghs_t',
      author: inputs.prCommentAuthor,
      legInput: inputs.prCommentLeg,
      context,
      report: done,
      gate: { projectId: 'p-1', branchId: 'br-1', operationIds: [] },
      logger,
      redact
    })
    expect(runner.outputs.comment_url).toBe(URL)
  })

  it('that wrote no comment leaves comment_url empty', async () => {
    await publish(report('success'), inputsOf({ pr_comment: 'always' }), context, sinks)
    expect(writePullRequestComment).toHaveBeenCalledTimes(1)
    expect(runner.outputs.comment_url).toBe('')
  })

  it('is not written with pr_comment off', async () => {
    await publish(report('success'), inputsOf({ pr_comment: 'off' }), context, sinks)
    expect(writePullRequestComment).not.toHaveBeenCalled()
    expect(runner.outputs).not.toHaveProperty('comment_url')
  })
})
