/*
 * The local GitHub API's handler (server.ts's createGitHubApi: tokens, comments, faults, the log,
 * the contract checks) behind nock, for the unit tests that run Octokit in process.
 */
import { answerFrom } from '../nock.ts'
import { createGitHubApi, type GitHubApi } from './server.ts'

/** Where the unit tests' GitHub API is: nothing listens there; nock answers. */
export const GITHUB_ORIGIN = 'http://127.0.0.1:4020'

/**
 * A local GitHub API at `origin`, answering every request there until the test ends; one that
 * never answers (`silent`) holds the request open.
 */
export function nockGitHub(origin = GITHUB_ORIGIN): GitHubApi {
  const github = createGitHubApi({ apiUrl: origin })
  answerFrom(origin, async (request) => {
    const answer = await github.handle(request)
    if (!answer) return new Promise(() => undefined)
    const body = answer.status === 204 ? '' : JSON.stringify(answer.body)
    return {
      status: answer.status,
      body,
      headers: { 'content-type': 'application/json', ...answer.headers }
    }
  })
  return github
}
