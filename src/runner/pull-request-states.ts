/*
 * A sweep's pull requests (issue 69, `sweep: preview/pr-{pr}`): the state of each one GitHub gives
 * (`GET /repos/{owner}/{repo}/pulls/{pull_number}`, which needs `pull-requests: read`): open,
 * closed, or merged. One that cannot be read (404, 403, 500, no answer, an answer that is no pull
 * request) is named with why, never guessed: the verdict (domain/sweep-verdict.ts) names it too.
 * Octokit is loaded only here, only when a sweep reads pull requests.
 */
import { z } from 'zod'
import type { PullRequestState, ReadPullRequests } from '../domain/sweep-verdict.js'
import { truncate } from '../domain/untrusted-text.js'
import type { GitHubContext } from './github-context.js'
import { type OctokitOptions, octokitFor } from './octokit.js'

/** Reads one pull request: GitHub's JSON, or a throw (with `status` when GitHub answered). */
export type PullRequestRead = (pullNumber: number) => Promise<unknown>

/** Reads at a time: a sweep of hundreds of previews stays within GitHub's secondary limits. */
const PARALLEL_READS = 4

const PullRequestSchema = z.object({
  number: z.number().int(),
  state: z.enum(['open', 'closed']),
  merged: z.boolean().nullish(),
  merged_at: z.string().nullish()
})

/** Why a read failed, in a few words: the status and what it likely means, or the error. */
function unreadable(error: unknown): { unreadable: string } {
  const status = (error as { status?: unknown }).status
  if (status === 404) return { unreadable: 'HTTP 404 (no such pull request in this repository)' }
  if (status === 401 || status === 403) {
    return {
      unreadable: `HTTP ${status} (the token cannot read pull requests: give the job pull-requests: read)`
    }
  }
  if (typeof status === 'number') return { unreadable: `HTTP ${status}` }
  const message = error instanceof Error ? error.message : String(error)
  return { unreadable: `no answer (${truncate(message, 200)})` }
}

/** A read cut by `signal`: its reason, in a few words. */
function stopped(signal: AbortSignal): { unreadable: string } {
  const reason: unknown = signal.reason
  return { unreadable: reason instanceof Error ? reason.message : 'the run stopped' }
}

/** The state in GitHub's answer for `pullNumber`; an answer that is not that pull request: unreadable. */
export function stateOf(pullNumber: number, answer: unknown): PullRequestState {
  const parsed = PullRequestSchema.safeParse(answer)
  if (!parsed.success || parsed.data.number !== pullNumber) {
    return { unreadable: 'the answer is not this pull request (no number and state)' }
  }
  const { state, merged, merged_at } = parsed.data
  if (state === 'open') return 'open'
  return merged === true || Boolean(merged_at) ? 'merged' : 'closed'
}

/**
 * The state of each of `numbers`, a few reads at a time; each failure is that one's answer, and
 * once `signal` aborts (the run's timeout, the job cancelled), its reason is the answer of each read
 * not over.
 */
export async function readPullRequestStates(
  read: PullRequestRead,
  numbers: readonly number[],
  signal?: AbortSignal
): Promise<Map<number, PullRequestState>> {
  const states = new Map<number, PullRequestState>()
  const queue = [...new Set(numbers)]
  const reader = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const pullNumber = next
      if (signal?.aborted) {
        states.set(pullNumber, stopped(signal))
        continue
      }
      states.set(
        pullNumber,
        await read(pullNumber).then(
          (answer) => stateOf(pullNumber, answer),
          (error: unknown) => (signal?.aborted ? stopped(signal) : unreadable(error))
        )
      )
    }
  }
  await Promise.all(Array.from({ length: PARALLEL_READS }, reader))
  return states
}

/** Reads of one repository's pull requests through @actions/github's Octokit (proxies honoured). */
export async function octokitPullRequests(
  options: OctokitOptions & { repository: string }
): Promise<PullRequestRead> {
  const octokit = await octokitFor(options)
  const [owner, repo] = options.repository.split('/')
  return async (pullNumber) =>
    (await octokit.rest.pulls.get({ owner, repo, pull_number: pullNumber })).data
}

/** Why no pull request is read without a token: a run that gets no secrets passes an empty one. */
const NO_TOKEN = { unreadable: "github_token is empty (leave it out to use the job's token)" }

/**
 * The sweep's reader of pull requests in this repository, with the token the comment uses: the
 * states of the numbers asked for, each one that cannot be read (no token, 404, …) named with why.
 */
export function gitHubPullRequests(
  context: Pick<GitHubContext, 'apiUrl' | 'repository'>,
  token: string
): ReadPullRequests {
  return async (numbers, signal) => {
    if (!token) return new Map(numbers.map((pullNumber) => [pullNumber, NO_TOKEN]))
    if (numbers.length === 0) return new Map()
    const read = await octokitPullRequests({ ...context, token, signal })
    return readPullRequestStates(read, numbers, signal)
  }
}
