/*
 * A GitHub error as a warning tells it (github-comments.ts): the error's own message, or what was
 * thrown when it is not an Error, with the HTTP status and what that status means for the comment.
 */
import { describe, expect, it } from '@jest/globals'
import { describeGitHubError, gitHubErrorText } from '../src/runner/github-comments.js'
import { octokitFor } from '../src/runner/octokit.js'

/** What Octokit throws for a request to `fetch`: a refused connection when it throws. */
async function octokitError(fetch: typeof globalThis.fetch): Promise<unknown> {
  const { signal } = new AbortController()
  const apiUrl = 'http://127.0.0.1:9/api/v3'
  const octokit = await octokitFor({ token: 'ghs_errors_test', apiUrl, signal, fetch })
  return octokit.rest.users.getAuthenticated().then(
    () => undefined,
    (error: unknown) => error
  )
}

describe('a GitHub error, as a warning tells it', () => {
  it('an Error: its message, with its HTTP status', () => {
    const error = Object.assign(new Error('Server Error'), { status: 502, response: {} })
    expect(describeGitHubError(error)).toBe('Server Error (HTTP 502)')
  })

  it('what Octokit throws: the status GitHub answered with, and none where no answer came', async () => {
    const answered = await octokitError(async () =>
      Response.json({ message: 'Bad credentials' }, { status: 401 })
    )
    expect(gitHubErrorText(answered)).toBe('Bad credentials (HTTP 401)')
    // Octokit gives a request that got no answer the status 500, which GitHub never sent.
    const refused = await octokitError(async () => {
      throw Object.assign(new TypeError('fetch failed'), {
        cause: new Error('connect ECONNREFUSED 127.0.0.1:9')
      })
    })
    expect(refused).toMatchObject({ status: 500 })
    expect(gitHubErrorText(refused)).not.toContain('HTTP')
    expect(describeGitHubError(refused)).not.toContain('HTTP')
  })

  it('not an Error (a string thrown, or an object without a message): what was thrown', () => {
    expect(describeGitHubError('socket hang up')).toBe('socket hang up')
    expect(gitHubErrorText({ message: 'no status', response: {} })).toBe('no status')
    expect(describeGitHubError({ status: 500, message: 7, response: {} })).toBe(
      '[object Object] (HTTP 500)'
    )
  })
})
