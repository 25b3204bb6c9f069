/*
 * Matrix legs that write the sticky comment at once, on simulated time: each leg is the action's own
 * writePullRequestComment (its pauses and time limit on the simulated clock), talking to the local
 * GitHub API over the simulated network (simulated.ts), where each request of each leg takes its
 * own time each way. A run of legs plays until every leg is done; what the comment holds then is
 * the test's. Used by __tests__/simulated/comment-legs.test.ts (the race, re-runs).
 */
import type { CommentMode } from '../../../src/runner/comment-writes.js'
import { readView } from '../../../src/runner/comment-view.js'
import { gateMarker, writePullRequestComment } from '../../../src/runner/pr-comment.js'
import type { RunReport } from '../../../src/report/report.js'
import type { Outcome } from '../../../src/wait/wait-for-operations.js'
import { collectingLogger } from '../logger.ts'
import type { Logger } from '../../../src/domain/logger.js'
import { operation } from '../neon/operations.ts'
import type { SimulatedTime } from '../time/clock.ts'
import { pullRequestContext } from './context.ts'
import { type GitHubApi } from './server.ts'
import { simulatedCommentApi } from './simulated.ts'

export const TOKEN = 'ghs_simulated_legs_token_0123456'
const REPOSITORY = 'octo/app'
const context = pullRequestContext('https://api.github.com')
const gate = { projectId: 'p-1', branchId: 'br-1', operationIds: [] }
const marker = gateMarker(context, gate)

/** A report of `outcome` on one operation (its action names the leg). */
function report(outcome: Outcome, action: string): RunReport {
  const status = outcome === 'success' ? 'finished' : outcome === 'failure' ? 'error' : 'running'
  const operations = [
    operation({ action, status, error: status === 'error' ? 'no capacity' : undefined })
  ]
  const wait = { outcome, polls: 1, observed: true, readAt: new Map(), elapsedMs: 10, operations }
  return { outcome, wait, elapsedMs: 10, requests: { requests: 1, retries: 0 } }
}

export interface Leg {
  /** The leg's id when it cannot be told apart, and its operation's action (`action_of_<name>`). */
  name: string
  outcome: Outcome
  /** When it starts writing, on the simulated clock, from the run's start. */
  startMs?: number
  /** Each way of each of its requests, in ms; drawn per request. */
  halfTripMs: () => number
  /** The pr_comment_leg input. */
  legInput?: string
  /** RUNNER_NAME: the jobs API finds the leg's job by it. */
  runnerName?: string
}

export interface LegsRun {
  runId?: string
  attempt?: string
  mode?: CommentMode
  seed?: number
  /** The run's head commit (the pull request's head unless said). */
  head?: string
}

/** The pull request's head commit in these runs, unless a run says otherwise. */
export const HEAD = context.pullRequest!.headSha!

/** Leg `index`'s comment, as the action writes it, with its own logger and network. */
function writeLegComment(
  time: SimulatedTime,
  github: GitHubApi,
  { leg, run }: { leg: Leg; index: number; run: LegsRun },
  logger: Logger
): Promise<string | undefined> {
  return writePullRequestComment({
    mode: run.mode ?? 'always',
    token: TOKEN,
    context: {
      ...context,
      runId: run.runId ?? '9',
      runAttempt: run.attempt ?? '1',
      runnerName: leg.runnerName ?? '',
      pullRequest: { ...context.pullRequest!, headSha: run.head ?? HEAD }
    },
    report: report(leg.outcome, `action_of_${leg.name}`),
    gate,
    logger,
    redact: (text) => text,
    clock: time,
    leg: leg.name,
    legInput: leg.legInput,
    api: async (signal) =>
      simulatedCommentApi(time, github, {
        signal,
        token: TOKEN,
        repository: REPOSITORY,
        issueNumber: 42,
        halfTrip: leg.halfTripMs,
        agent: leg.name
      })
  })
}

/**
 * Runs `legs` at once on `time` against `github`; each leg's comment_url, log lines, and when it
 * ended (ms from the run's start).
 */
export async function runLegs(
  time: SimulatedTime,
  github: GitHubApi,
  legs: Leg[],
  run: LegsRun
): Promise<{ urls: (string | undefined)[]; lines: string[][]; endMs: number[] }> {
  const start = time.now()
  if (!github.pulls.has(`${REPOSITORY}#42`)) github.pulls.set(`${REPOSITORY}#42`, HEAD)
  const lines: string[][] = []
  const endMs: number[] = []
  const written = legs.map(
    (leg, index) =>
      new Promise<string | undefined>((resolve) => {
        const { logger, lines: own } = collectingLogger()
        lines.push(own)
        time.at(start + (leg.startMs ?? 0), () => {
          void writeLegComment(time, github, { leg, index, run }, logger).then((url) => {
            endMs[index] = time.now() - start
            resolve(url)
          })
        })
      })
  )
  await time.run()
  return { urls: await Promise.all(written), lines, endMs }
}

/** The comments of the gate on the pull request, and what each holds. */
export function gateComments(github: GitHubApi) {
  return github.comments
    .filter((comment) => comment.body.startsWith(marker))
    .map((comment) => ({ comment, content: readView(comment.body, marker) }))
}

/**
 * How often a leg wrote from a read older than another leg's write that GitHub applied in between:
 * the lost-update race that GitHub's lack of a conditional update allows. A trial where it never
 * happened did not test the race.
 */
export function staleWrites(github: GitHubApi): number {
  const lastRead = new Map<string, number>()
  const writes: { agent: string; index: number }[] = []
  let stale = 0
  github.requests.forEach((request, index) => {
    const agent = String(request.headers['user-agent'])
    if (request.method === 'GET' && request.path.endsWith('/comments')) lastRead.set(agent, index)
    if (request.method !== 'PATCH' && request.method !== 'POST') return
    const read = lastRead.get(agent) ?? -1
    if (writes.some((write) => write.agent !== agent && write.index > read)) stale++
    writes.push({ agent, index })
  })
  return stale
}

/** A leg's half trips: `base` ms times 0.5 to 1.5, at random (seeded). */
export function latency(random: () => number, base: number): () => number {
  return () => base * (0.5 + random())
}
