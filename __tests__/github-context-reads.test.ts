/*
 * The runner's variables and event payloads, read field by field: every variable set or none,
 * addresses with more than one last /, the pull-request events whose payload is read (and a push,
 * whose is not), a fork's payload without its head repository, an issue comment's two pages, and
 * the pull_request_target run without a key.
 */
import { afterAll, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  readGitHubContext,
  summaryFacts,
  withheldSecretReason
} from '../src/runner/github-context.js'
import { pullRequestContext } from './support/github/context.js'

const dir = mkdtempSync(join(tmpdir(), 'github-context-reads-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The runner's GITHUB_EVENT_PATH, holding `payload` as JSON. */
function payloadAt(name: string, payload: object): string {
  const path = join(dir, `${name}.json`)
  writeFileSync(path, JSON.stringify(payload))
  return path
}

const head = 'c'.repeat(40)
/** pull request 7 of octo/app, its head in `repo`. */
const pullRequest7 = (repo: object | null) => ({
  pull_request: {
    number: 7,
    html_url: 'https://github.com/octo/app/pull/7',
    head: { sha: head, repo }
  }
})

describe('readGitHubContext: each variable', () => {
  it('every variable set: each read as it is', () => {
    expect(
      readGitHubContext({
        GITHUB_EVENT_NAME: 'workflow_dispatch',
        GITHUB_SHA: 'a'.repeat(40),
        GITHUB_REPOSITORY: 'octo/app',
        GITHUB_WORKFLOW: 'Preview',
        GITHUB_JOB: 'gate',
        GITHUB_ACTOR: 'octocat',
        GITHUB_SERVER_URL: 'http://ghe.example.test//',
        GITHUB_API_URL: 'http://ghe.example.test/api/v3//',
        GITHUB_RUN_ID: '9001',
        GITHUB_RUN_ATTEMPT: '2',
        RUNNER_NAME: 'runner-3',
        GITHUB_ACTION: '__octo_neon-operations-gate'
      })
    ).toEqual({
      eventName: 'workflow_dispatch',
      sha: 'a'.repeat(40),
      repository: 'octo/app',
      workflow: 'Preview',
      job: 'gate',
      actor: 'octocat',
      serverUrl: 'http://ghe.example.test',
      apiUrl: 'http://ghe.example.test/api/v3',
      runId: '9001',
      runAttempt: '2',
      runnerName: 'runner-3',
      step: '__octo_neon-operations-gate',
      pullRequest: undefined
    })
  })

  it('no variable set: every field empty, and GitHub’s own addresses', () => {
    expect(readGitHubContext({})).toEqual({
      eventName: '',
      sha: '',
      repository: '',
      workflow: '',
      job: '',
      actor: '',
      serverUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
      runId: '',
      runAttempt: '',
      runnerName: '',
      step: '',
      pullRequest: undefined
    })
  })
})

describe('readGitHubContext: the event payload', () => {
  const runOf = (event: string, path?: string) =>
    readGitHubContext({
      GITHUB_REPOSITORY: 'octo/app',
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: path
    })

  it.each(['pull_request_target', 'pull_request_review', 'pull_request_review_comment'])(
    'a %s run: the pull request of its payload',
    (event) => {
      const path = payloadAt(event, pullRequest7({ full_name: 'octo/app' }))
      expect(runOf(event, path).pullRequest).toEqual({
        number: 7,
        htmlUrl: 'https://github.com/octo/app/pull/7',
        headSha: head,
        headRepository: 'octo/app'
      })
    }
  )

  it('a push with a pull request’s comment at hand: no pull request', () => {
    const path = payloadAt('push', {
      issue: { number: 7, pull_request: { html_url: 'https://github.com/octo/app/pull/7' } }
    })
    expect(runOf('issue_comment', path).pullRequest).toEqual({
      number: 7,
      htmlUrl: 'https://github.com/octo/app/pull/7'
    })
    expect(runOf('push', path).pullRequest).toBeUndefined()
  })

  it('a pull request whose head repository is gone (null): no head repository, no fork', () => {
    const context = runOf('pull_request', payloadAt('head-repo-null', pullRequest7(null)))
    expect(context.pullRequest).toEqual({
      number: 7,
      htmlUrl: 'https://github.com/octo/app/pull/7',
      headSha: head,
      headRepository: undefined
    })
    expect(withheldSecretReason(context)).toBeUndefined()
  })

  it('an issue comment: the pull request’s page first, else the issue’s', () => {
    const comment = (name: string, pullRequestPage: string | null) =>
      runOf(
        'issue_comment',
        payloadAt(name, {
          issue: {
            number: 7,
            html_url: 'https://github.com/octo/app/issues/7',
            pull_request: { html_url: pullRequestPage }
          }
        })
      ).pullRequest
    expect(comment('both-pages', 'https://github.com/octo/app/pull/7')).toEqual({
      number: 7,
      htmlUrl: 'https://github.com/octo/app/pull/7'
    })
    expect(comment('issue-page-only', null)).toEqual({
      number: 7,
      htmlUrl: 'https://github.com/octo/app/issues/7'
    })
  })
})

describe('summaryFacts: the pull request’s link', () => {
  const firstFact = (htmlUrl: string) => {
    const context = pullRequestContext('https://api.github.com')
    context.pullRequest!.htmlUrl = htmlUrl
    return summaryFacts(context)[0]
  }

  it('an http:// page is a link', () => {
    expect(firstFact('http://ghe.example.test/octo/app/pull/42')).toBe(
      'pull request <a href="http://ghe.example.test/octo/app/pull/42">#42</a>'
    )
  })

  it('a page with an http(s) address only after its start is no link', () => {
    expect(firstFact('javascript:alert(1)//https://github.com/')).toBe('pull request #42')
  })
})

describe('withheldSecretReason: a pull_request_target run', () => {
  const reason =
    'input "api_key" is empty: pull_request_target runs get the repository\'s secrets, fork pull requests included, so the secret passed as api_key is not set in this repository (or its organization or environment), or its name is misspelled in the workflow'

  it.each([
    ['the repository’s own', 'octo/app'],
    ['a fork’s', 'someone/app']
  ])(
    '%s pull request: the secret is not set or misnamed, forks or not',
    (_case, headRepository) => {
      const context = {
        ...pullRequestContext('https://api.github.com'),
        eventName: 'pull_request_target'
      }
      context.pullRequest!.headRepository = headRepository
      expect(withheldSecretReason(context)).toBe(reason)
    }
  )
})
