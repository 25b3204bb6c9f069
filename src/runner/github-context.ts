/*
 * What the run is for: the event, the commit, the pull request. Read from the same environment
 * variables and event payload as @actions/github's `context`, validated with zod, without loading
 * Octokit: most runs write no comment, and start-up stays lean (pr-comment.ts loads
 * @actions/github only when a comment is to be written). Why not import `context`: @actions/github
 * 9 exports only `.` and `./lib/utils`, and both load Octokit; there is no Octokit-free path.
 */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { forHtml } from '../domain/untrusted-text.js'
import { HTML_FORMAT } from '../report/report-format.js'

const PullRequestEventSchema = z.object({
  pull_request: z.object({
    number: z.number().int().positive(),
    html_url: z.string().nullish(),
    head: z.object({
      sha: z.string().min(1),
      repo: z.object({ full_name: z.string() }).nullish()
    })
  })
})

/**
 * `issue_comment` on a pull request (ChatOps: `/deploy` in a comment): the issue is the pull
 * request, and `pull_request` says so; the event carries no head commit.
 */
const IssueCommentEventSchema = z.object({
  issue: z.object({
    number: z.number().int().positive(),
    html_url: z.string().nullish(),
    pull_request: z.object({ html_url: z.string().nullish() }).nullish()
  })
})

interface PullRequest {
  number: number
  htmlUrl?: string
  /** Undefined when the event does not carry it (`issue_comment`). */
  headSha?: string
  /** `owner/name` of the head repository; differs from the repository on a fork. */
  headRepository?: string
}

export interface GitHubContext {
  eventName: string
  sha: string
  /** `owner/name`. */
  repository: string
  workflow: string
  job: string
  actor: string
  serverUrl: string
  apiUrl: string
  runId: string
  /** GITHUB_RUN_ATTEMPT: 1, then 2 and on for each re-run of the same run. */
  runAttempt: string
  /** RUNNER_NAME: the runner this job runs on (the jobs API names each job's runner). */
  runnerName: string
  /** GITHUB_ACTION: the step's id, or the action's name with a count (`__owner_repo_2`). */
  step: string
  pullRequest?: PullRequest
}

const PULL_REQUEST_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment'
])

/** The pull request the event is about, from its payload; undefined for any other run. */
function pullRequestOf(eventName: string, eventPath: string | undefined): PullRequest | undefined {
  const pullRequestEvent = PULL_REQUEST_EVENTS.has(eventName)
  if (!eventPath || !(pullRequestEvent || eventName === 'issue_comment')) return undefined
  let json: unknown
  try {
    json = JSON.parse(readFileSync(eventPath, 'utf8'))
  } catch {
    // No readable payload: the run is described by its commit alone.
    return undefined
  }
  if (pullRequestEvent) {
    const payload = PullRequestEventSchema.safeParse(json)
    if (!payload.success) return undefined
    const { number, html_url, head } = payload.data.pull_request
    return {
      number,
      htmlUrl: html_url ?? undefined,
      headSha: head.sha,
      headRepository: head.repo?.full_name
    }
  }
  const payload = IssueCommentEventSchema.safeParse(json)
  const issue = payload.success ? payload.data.issue : undefined
  if (!issue?.pull_request) return undefined
  return {
    number: issue.number,
    htmlUrl: issue.pull_request.html_url ?? issue.html_url ?? undefined
  }
}

export function readGitHubContext(env: NodeJS.ProcessEnv = process.env): GitHubContext {
  const eventName = env.GITHUB_EVENT_NAME ?? ''
  const pullRequest = pullRequestOf(eventName, env.GITHUB_EVENT_PATH)
  return {
    eventName,
    sha: env.GITHUB_SHA ?? '',
    repository: env.GITHUB_REPOSITORY ?? '',
    workflow: env.GITHUB_WORKFLOW ?? '',
    job: env.GITHUB_JOB ?? '',
    actor: env.GITHUB_ACTOR ?? '',
    serverUrl: (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    runId: env.GITHUB_RUN_ID ?? '',
    runAttempt: env.GITHUB_RUN_ATTEMPT ?? '',
    runnerName: env.RUNNER_NAME ?? '',
    step: env.GITHUB_ACTION ?? '',
    pullRequest
  }
}

/**
 * The commit the run is about: a pull request's head, else GITHUB_SHA; '' for a pull request whose
 * event carries no head (`issue_comment`, where GITHUB_SHA is the default branch's, not the
 * pull request's).
 */
export function headSha(context: GitHubContext): string {
  return context.pullRequest ? (context.pullRequest.headSha ?? '') : context.sha
}

/** `pull request #42 (head 1a2b3c4)`, or `commit 1a2b3c4`, or '' outside GitHub. */
export function describeRun(context: GitHubContext): string {
  const short = headSha(context).slice(0, 7)
  if (context.pullRequest) {
    return `pull request #${context.pullRequest.number}${short ? ` (head ${short})` : ''}`
  }
  return short ? `commit ${short}` : ''
}

/**
 * What the run is for, first in the job summary's and the comment's counts line (HTML):
 * `pull request #42` (a link, to an http(s) address only) and `head 1a2b3c4`, or `commit 1a2b3c4`.
 */
export function summaryFacts(context: GitHubContext): string[] {
  const facts: string[] = []
  const { pullRequest } = context
  if (pullRequest) {
    const label = `#${pullRequest.number}`
    const url = pullRequest.htmlUrl
    const linked =
      url && /^https?:\/\//.test(url) ? `<a href="${forHtml(url, 300)}">${label}</a>` : label
    facts.push(`pull request ${linked}`)
  }
  const sha = headSha(context)
  if (sha) facts.push(`${pullRequest ? 'head' : 'commit'} ${HTML_FORMAT.code(sha.slice(0, 7))}`)
  return facts
}

/**
 * Why `api_key` is empty, when GitHub withheld the secret: a pull request from a fork, or a run
 * started by Dependabot. A `pull_request_target` run gets the repository's secrets, forks included:
 * there the secret is not set, or misnamed. Undefined otherwise.
 */
export function withheldSecretReason(context: GitHubContext): string | undefined {
  if (context.eventName === 'pull_request_target') {
    return 'input "api_key" is empty: pull_request_target runs get the repository\'s secrets, fork pull requests included, so the secret passed as api_key is not set in this repository (or its organization or environment), or its name is misspelled in the workflow'
  }
  const fromFork =
    context.pullRequest?.headRepository !== undefined &&
    context.pullRequest.headRepository !== context.repository
  const skip =
    'Skip the step for them with: if: github.event.pull_request.head.repo.full_name == github.repository'
  if (fromFork) {
    return `input "api_key" is empty: this ${context.eventName} run is for a pull request from the fork ${context.pullRequest!.headRepository}, and GitHub does not pass repository secrets to workflows of fork pull requests. ${skip}`
  }
  if (context.actor === 'dependabot[bot]') {
    return `input "api_key" is empty: this ${context.eventName} run was started by Dependabot, and GitHub passes Dependabot runs only Dependabot secrets. Add the key as a Dependabot secret, or skip the step with: if: github.actor != 'dependabot[bot]'`
  }
  return undefined
}
