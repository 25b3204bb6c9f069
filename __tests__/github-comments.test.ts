/*
 * A GitHub error as a warning tells it (github-comments.ts): the error's own message, or what was
 * thrown when it is not an Error, with the HTTP status and what that status means for the comment.
 */
import { describe, expect, it } from '@jest/globals'
import { describeGitHubError } from '../src/runner/github-comments.js'

describe('a GitHub error, as a warning tells it', () => {
  it('an Error: its message, with its HTTP status', () => {
    const error = Object.assign(new Error('Server Error'), { status: 502 })
    expect(describeGitHubError(error)).toBe('Server Error (HTTP 502)')
  })

  it('not an Error (a string thrown, or an object without a message): what was thrown', () => {
    expect(describeGitHubError('socket hang up')).toBe('socket hang up')
    expect(describeGitHubError({ status: 500, message: 7 })).toBe('[object Object] (HTTP 500)')
  })
})
