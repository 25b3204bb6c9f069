/*
 * What the run is for, read from the runner's variables and event payload: the pull request and
 * its head, the commit of other events, how the summary names them, and why a fork's or
 * Dependabot's run has no key.
 */
import { afterAll, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunReport } from '../src/report/report.js'
import { renderSummary } from '../src/gate/run-report.js'
import {
  describeRun,
  headSha,
  readGitHubContext,
  summaryFacts,
  withheldSecretReason
} from '../src/runner/github-context.js'

const dir = mkdtempSync(join(tmpdir(), 'github-context-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
/** An event payload file, as the runner writes GITHUB_EVENT_PATH. */
function eventFile(text: string): string {
  const path = join(dir, `event-${files++}.json`)
  writeFileSync(path, text)
  return path
}

const pullRequestEvent = (headRepository = 'octo/app') =>
  JSON.stringify({
    pull_request: {
      number: 42,
      html_url: 'https://github.com/octo/app/pull/42',
      head: { sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d', repo: { full_name: headRepository } }
    }
  })

const base = {
  GITHUB_REPOSITORY: 'octo/app',
  GITHUB_SHA: 'f'.repeat(40),
  GITHUB_API_URL: 'https://ghe.example.test/api/v3/',
  GITHUB_SERVER_URL: 'https://ghe.example.test/'
}

/** A run of this repository for `event`, its payload in the file at `eventPath`, if any. */
const runOf = (event: string, eventPath?: string) =>
  readGitHubContext({ ...base, GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: eventPath })

describe('readGitHubContext', () => {
  it('issue_comment on a pull request: the pull request, with no head (GITHUB_SHA is not it)', () => {
    const issue = (extra: object) =>
      eventFile(
        JSON.stringify({
          issue: { number: 42, html_url: 'https://github.com/octo/app/pull/42', ...extra },
          comment: { body: '/deploy' }
        })
      )
    const context = runOf(
      'issue_comment',
      issue({ pull_request: { html_url: 'https://github.com/octo/app/pull/42' } })
    )
    expect(context.pullRequest).toEqual({
      number: 42,
      htmlUrl: 'https://github.com/octo/app/pull/42'
    })
    expect(headSha(context)).toBe('')
    expect(describeRun(context)).toBe('pull request #42')
    expect(withheldSecretReason(context)).toBeUndefined()
    // A comment on a plain issue, or on a pull request of null, is no pull request.
    for (const extra of [{}, { pull_request: null }]) {
      const plain = runOf('issue_comment', issue(extra))
      expect(plain.pullRequest).toBeUndefined()
      expect(describeRun(plain)).toBe('commit fffffff')
    }
    // A payload that is not an issue comment's: no pull request either.
    const other = runOf('issue_comment', eventFile(pullRequestEvent()))
    expect(other.pullRequest).toBeUndefined()
  })

  it('a pull request: its number, page and head, from the payload; the addresses without a last /', () => {
    const context = runOf('pull_request', eventFile(pullRequestEvent()))
    expect(context.pullRequest).toEqual({
      number: 42,
      htmlUrl: 'https://github.com/octo/app/pull/42',
      headSha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
      headRepository: 'octo/app'
    })
    expect(context.apiUrl).toBe('https://ghe.example.test/api/v3')
    expect(context.serverUrl).toBe('https://ghe.example.test')
    expect(describeRun(context)).toBe('pull request #42 (head 1a2b3c4)')
  })

  it.each([
    ['not JSON', '{"pull_request": '],
    ['without a pull request', '{"number": 42}'],
    ['a pull request without its head', '{"pull_request": {"number": 42}}']
  ])('a payload %s: the run is described by its commit', (_case, text) => {
    const context = runOf('pull_request', eventFile(text))
    expect(context.pullRequest).toBeUndefined()
    expect(describeRun(context)).toBe('commit fffffff')
  })

  it('a payload file that cannot be read: the commit', () => {
    const context = runOf('pull_request', join(dir, 'no-such-file.json'))
    expect(context.pullRequest).toBeUndefined()
  })

  it('a push: the commit, and the payload is not read', () => {
    const context = runOf('push', eventFile(pullRequestEvent()))
    expect(context.pullRequest).toBeUndefined()
    expect(describeRun(context)).toBe('commit fffffff')
  })

  it('outside GitHub: nothing to describe, and GitHub’s own addresses', () => {
    const context = readGitHubContext({})
    expect(describeRun(context)).toBe('')
    expect(context.apiUrl).toBe('https://api.github.com')
    expect(context.serverUrl).toBe('https://github.com')
  })
})

describe('summaryFacts: what the run is for, first in the summary counts line', () => {
  const pullRequest = () => runOf('pull_request', eventFile(pullRequestEvent()))

  it('a pull request: a link to it and its head commit, before the counts', () => {
    const about = summaryFacts(pullRequest())
    expect(about).toEqual([
      'pull request <a href="https://github.com/octo/app/pull/42">#42</a>',
      'head <code>1a2b3c4</code>'
    ])
    const report: RunReport = { outcome: 'success', requests: { requests: 3, retries: 1 } }
    expect(renderSummary(report, { about })).toContain(
      '<p>pull request <a href="https://github.com/octo/app/pull/42">#42</a> · head <code>1a2b3c4</code> · 3 requests · 1 retry</p>'
    )
    expect(renderSummary(report)).toContain('<p>3 requests · 1 retry</p>')
  })

  it('a page that is no http(s) address is no link; its text is escaped', () => {
    const context = pullRequest()
    context.pullRequest!.htmlUrl = 'javascript:alert(1)'
    expect(summaryFacts(context)[0]).toBe('pull request #42')
    context.pullRequest!.htmlUrl = 'https://github.com/octo/app/pull/42?"><b>x'
    expect(summaryFacts(context)[0]).toBe(
      'pull request <a href="https://github.com/octo/app/pull/42?&quot;&gt;&lt;b&gt;x">#42</a>'
    )
  })

  it('a push: the commit; issue_comment: the pull request without a head; outside GitHub: nothing', () => {
    expect(summaryFacts(runOf('push'))).toEqual(['commit <code>fffffff</code>'])
    const comment = runOf(
      'issue_comment',
      eventFile(JSON.stringify({ issue: { number: 42, pull_request: { html_url: null } } }))
    )
    expect(summaryFacts(comment)).toEqual(['pull request #42'])
    expect(summaryFacts(readGitHubContext({}))).toEqual([])
  })
})

describe('withheldSecretReason', () => {
  it('a fork’s pull request: says so, and how to skip the step', () => {
    const context = runOf('pull_request', eventFile(pullRequestEvent('someone/app')))
    expect(withheldSecretReason(context)).toMatch(
      /^input "api_key" is empty: this pull_request run is for a pull request from the fork someone\/app, .* if: github\.event\.pull_request\.head\.repo\.full_name == github\.repository$/
    )
  })

  it('Dependabot: says so, and what to do', () => {
    const context = readGitHubContext({
      ...base,
      GITHUB_EVENT_NAME: 'push',
      GITHUB_ACTOR: 'dependabot[bot]'
    })
    expect(withheldSecretReason(context)).toMatch(
      /^input "api_key" is empty: this push run was started by Dependabot, .*Add the key as a Dependabot secret/
    )
  })

  it('a run of the repository itself: no reason, the key is simply missing', () => {
    const context = runOf('pull_request', eventFile(pullRequestEvent()))
    expect(withheldSecretReason(context)).toBeUndefined()
  })
})
