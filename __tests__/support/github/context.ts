import type { GitHubContext } from '../../../src/runner/github-context.js'

/** The context of a pull_request run of octo/app's pull request 42, with its API at `apiUrl`. */
export function pullRequestContext(apiUrl: string): GitHubContext {
  return {
    eventName: 'pull_request',
    sha: 'f'.repeat(40),
    repository: 'octo/app',
    workflow: 'Preview',
    job: 'gate',
    actor: 'octocat',
    serverUrl: 'https://github.com',
    apiUrl,
    runId: '9',
    runAttempt: '1',
    runnerName: '',
    step: '__octo_neon-operations-gate',
    pullRequest: { number: 42, headSha: 'a'.repeat(40), headRepository: 'octo/app' }
  }
}
