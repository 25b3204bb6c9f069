/*
 * Which leg of the workflow run this is, so that a re-run's result takes the place of the same
 * leg's older one. No variable names a matrix leg; two sources can: the `pr_comment_leg` input (such as
 * `pr_comment_leg: ${{ toJSON(matrix) }}`), or the jobs API, whose list of the run attempt's jobs gives each
 * job's name (`gate (a)`) with the runner it runs on (RUNNER_NAME). The jobs API needs
 * `actions: read`; without it the leg cannot be told apart, which is one warning, never a failure.
 */
import { createHash } from 'node:crypto'
import type { Logger } from '../domain/logger.js'
import type { GitHubContext } from './github-context.js'
import { type CommentApi, gitHubErrorText, type WorkflowJob } from './github-comments.js'

/** Jobs read from the jobs API at most (a matrix has at most 256 legs). */
const MAX_JOBS = 1000

/** A leg's key (the same in every attempt) and name, when it can be told apart. */
interface LegIdentity {
  key?: string
  name?: string
}

/** A leg's key: the same name (and step) in every attempt gives the same key. */
function keyOf(kind: string, name: string, step: string): string {
  return `n-${createHash('sha256').update(`${kind}\n${name}\n${step}`).digest('hex').slice(0, 24)}`
}

/**
 * The `pr_comment_leg` input as the comment shows it: a matrix's values (`a, 1`), as GitHub names its legs'
 * jobs, or the text itself; the job's id for `null` (a job without a matrix).
 */
export function legInputName(input: string, job: string): string {
  let json: unknown
  try {
    json = JSON.parse(input)
  } catch {
    return input.replace(/\s+/g, ' ').trim()
  }
  if (json === null) return job || 'null'
  if (typeof json !== 'object') return String(json)
  return Object.values(json)
    .map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value)))
    .join(', ')
}

/**
 * The one job of the attempt in progress on this runner (undefined when none or several), and
 * whether another job of the attempt has its name (a `name:` that uses only some matrix values).
 */
async function jobOnThisRunner(
  api: CommentApi,
  context: GitHubContext
): Promise<{ job?: WorkflowJob; shared: boolean }> {
  const all: WorkflowJob[] = []
  for await (const page of api.listJobs(Number(context.runId), Number(context.runAttempt))) {
    all.push(...page)
    if (all.length >= MAX_JOBS) break
  }
  const mine = all.filter(
    (job) => job.runner_name === context.runnerName && job.status === 'in_progress'
  )
  const job = mine.length === 1 ? mine[0] : undefined
  return { job, shared: all.filter((other) => other.name === job?.name).length > 1 }
}

/**
 * This leg's key and name: from the `pr_comment_leg` input, else from the jobs API by this runner's name;
 * none when neither tells it apart (a job whose name another job of the attempt has: its name alone).
 */
export async function identifyLeg(options: {
  api: CommentApi
  context: GitHubContext
  input: string
  logger: Logger
  signal?: AbortSignal
}): Promise<LegIdentity> {
  const { api, context, input, logger } = options
  if (input) {
    const name = legInputName(input, context.job)
    return { key: keyOf('leg', input.replace(/\s+/g, ''), context.step), name }
  }
  const onRunner = context.runnerName && /^\d+$/.test(context.runId)
  if (!onRunner || !/^\d+$/.test(context.runAttempt)) return {}
  try {
    const { job, shared } = await jobOnThisRunner(api, context)
    if (job && !shared) return { key: keyOf('job', job.name, context.step), name: job.name }
    if (job) {
      logger.info(
        `pr_comment: another job of this run attempt is also named "${job.name}", so this leg cannot be told apart by its name; its result is added beside the other's and earlier attempts' (name each leg with every matrix value, or set the pr_comment_leg input)`
      )
      return { name: job.name }
    }
    logger.info(
      `pr_comment: no job of this run attempt is in progress on runner ${context.runnerName} alone, so this leg cannot be told apart; its result is added beside earlier attempts' (set the pr_comment_leg input to name it)`
    )
  } catch (error) {
    if (options.signal?.aborted) throw error
    const why = gitHubErrorText(error)
    logger.warning(
      `pr_comment: could not tell this leg apart, because the jobs API failed: ${why}. Grant the job "permissions: actions: read", or set the pr_comment_leg input (pr_comment_leg: \${{ toJSON(matrix) }}), so that a re-run's result replaces the one it re-ran; until then earlier attempts' results stay beside it`
    )
  }
  return {}
}
