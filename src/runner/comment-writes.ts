/*
 * The sticky comment's writes on GitHub: comment-protocol.ts's calls, made one at a time through
 * the CommentApi, with what each answer says fed back. A record GitHub refuses (no `statuses:
 * write`) is one warning, and the result goes into the view alone. What got written is kept in
 * CommentProgress, so that a failure after it still reports the comment. A 5xx or a network error
 * is tried again here: @actions/github's Octokit has no retry (its plugin-retry is not part of it),
 * and only here is it known which calls are safe to repeat (never the record).
 */
import { type Clock, withinTime } from '../domain/clock.js'
import type { Logger } from '../domain/logger.js'
import { type Answer, advance, start } from './comment-protocol.js'
import type { Call, WriterConfig, WriterState } from './comment-round.js'
import { type CommentApi, gitHubErrorText, type IssueComment } from './github-comments.js'

export type CommentMode = 'off' | 'always' | 'failure'

/** What became of the comment. */
export type Upserted = 'written' | 'not needed' | 'later run' | 'superseded' | 'rounds'

/** How far the comment got: the comment that holds this run's result once one was written. */
export interface CommentProgress {
  written?: { action: 'created' | 'updated'; url: string }
  /** The placeholder this leg made, before any view of its own was written. */
  placeholder?: string
  /** The call under way once something was written, for the warning if it fails. */
  doing?: string
  /** A write sent and not answered yet: one cut short may have landed all the same. */
  sending?: { doing: string; url?: string }
  /** Why this leg's record was refused: a warning once the comment is written. */
  unrecorded?: string
  /** Comments whose update GitHub answered 404 (taken as deleted by another leg, once each). */
  gone?: Set<number>
}

export interface CommentWrite {
  config: WriterConfig
  logger: Logger
  /** Describes a GitHub error for a warning. */
  describe: (error: unknown) => string
  signal?: AbortSignal
}

/** Runs the protocol on GitHub until it ends: each round's calls at once. */
export async function upsertComment(
  api: CommentApi,
  progress: CommentProgress,
  write: CommentWrite
): Promise<Upserted> {
  const { config } = write
  let state = start(config)
  while (state.calls.length > 0) {
    const { calls } = state
    progress.doing = calls.map(describeCall).join(', ')
    const answers = await Promise.all(
      calls.map((call) =>
        call.call === 'record'
          ? recorded(api, call, write, progress)
          : answerOf(api, call, write, progress)
      )
    )
    calls.forEach((call, index) => (state = advance(config, state, call, answers[index])))
    // A placeholder holds no result: the comment is written once a view of this leg's is.
    if (state.wrote && state.mine) progress.written = state.wrote
    else if (state.wrote) progress.placeholder = state.wrote.url
    const created = answers.find((answer) => typeof answer === 'object' && 'written' in answer)
    if (created && writtenAsAnother(created.written as IssueComment, write)) {
      // Its later rounds would not find it (another author): it is the comment, placeholder or not.
      progress.written = state.wrote
      return 'written'
    }
  }
  return ending(write, progress, state)
}

/** The record written: its id; `refused`, with one warning, when GitHub would not take it. */
async function recorded(
  api: CommentApi,
  call: Extract<Call, { call: 'record' }>,
  { signal }: CommentWrite,
  progress: CommentProgress
): Promise<Answer> {
  try {
    return { id: (await api.createStatus(call.sha, call.status)).id }
  } catch (error) {
    if (signal?.aborted) throw error
    const why = gitHubErrorText(error)
    progress.unrecorded = `pr_comment: could not record this leg's result as a commit status: ${why}. Grant the job "permissions: statuses: write": without it, the comment shows this result, but another leg writing at the same moment may drop it`
    return 'refused'
  }
}

/**
 * The call's answer, tried again twice after GitHub's 5xx or a network error: once would cost a
 * red leg its comment. A create tried again may leave two comments; the older goes as any does.
 */
async function answerOf(
  api: CommentApi,
  call: Exclude<Call, { call: 'record' }>,
  write: CommentWrite,
  progress: CommentProgress
): Promise<Answer> {
  for (let tries = 1; ; tries++) {
    try {
      return await answerOnce(api, call, write, progress)
    } catch (error) {
      const { status } = (error ?? {}) as { status?: unknown }
      const transient = typeof status !== 'number' || status >= 500
      if (tries >= 3 || !transient || write.signal?.aborted) throw error
    }
  }
}

async function answerOnce(
  api: CommentApi,
  call: Exclude<Call, { call: 'record' }>,
  write: CommentWrite,
  progress: CommentProgress
): Promise<Answer> {
  switch (call.call) {
    case 'comments':
      return { comments: await ownComments(api, write.config) }
    case 'head':
      return { head: await api.pullHead() }
    case 'records':
      return { statuses: await collect(api.listStatuses(call.sha)) }
    case 'delete':
      await api.deleteComment(call.id)
      return 'deleted'
    default:
      progress.sending = { doing: describeCall(call), url: 'url' in call ? call.url : undefined }
      return writeComment(api, call, progress)
  }
}

/**
 * The comment written; `gone` when another leg deleted it first (it had a newer one to keep). A
 * second 404 for the same comment, listed again in between, is GitHub refusing the write: it throws.
 */
async function writeComment(
  api: CommentApi,
  call: Extract<Call, { call: 'update' | 'create' }>,
  progress: CommentProgress
): Promise<Answer> {
  if (call.call === 'create') return { written: await api.createComment(call.body) }
  try {
    return { written: await api.updateComment(call.id, call.body) }
  } catch (error) {
    const gone = (progress.gone ??= new Set())
    if ((error as { status?: unknown }).status !== 404 || gone.has(call.id)) throw error
    gone.add(call.id)
    return 'gone'
  }
}

function ending(write: CommentWrite, progress: CommentProgress, state: WriterState): Upserted {
  const { logger, config } = write
  if (progress.unrecorded) logger.warning(progress.unrecorded)
  progress.sending = undefined
  const { url } = state
  if (state.superseded) {
    logger.info(
      `pr_comment: superseded: run ${config.own.run} is for commit ${state.sha.slice(0, 7)}, but the pull request's head is ${state.head?.slice(0, 7)} now; its result stays in its commit status, and the comment${url ? ` ${url}` : ''} is left to the head's runs`
    )
  }
  if (state.headless) {
    logger.info(
      `pr_comment: the pull request's head is ${state.head?.slice(0, 7)} now, with no result of this gate yet; the comment shows run ${config.own.run} of commit ${state.sha.slice(0, 7)}, its failure at its head`
    )
  }
  if (state.ending === 'later run') {
    logger.info(`pr_comment: ${url} shows a later run of this gate; left as it is`)
  }
  if (state.ending === 'rounds') {
    logger.warning(
      `pr_comment: other legs kept writing ${url ?? 'the comment'} at the same time; after ${state.round} rounds it may lack a result (each leg's commit status keeps its own)`
    )
  }
  if (state.ending !== 'written' && state.ending !== 'rounds') return state.ending!
  // The comment that holds the result: the one this leg wrote, or another leg's.
  const action = state.wrote && state.wrote.url === url ? state.wrote.action : 'updated'
  if (url) progress.written = { action, url }
  return progress.written ? 'written' : 'rounds'
}

function describeCall(call: Call): string {
  switch (call.call) {
    case 'record':
      return "recording this leg's result as a commit status"
    case 'comments':
      return 'listing the comments'
    case 'head':
      return "reading the pull request's head commit"
    case 'records':
      return "reading the legs' commit statuses"
    case 'update':
      return `updating ${call.url}`
    case 'create':
      return 'creating the comment'
    default:
      return `deleting the duplicate comment ${call.id}`
  }
}

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = []
  for await (const page of pages) all.push(...page)
  return all
}

/** A comment the action wrote: it starts with the marker, and its author is the token's identity. */
function isOwnComment(comment: IssueComment, marker: string, author: string): boolean {
  return (comment.body ?? '').startsWith(marker) && comment.user?.login === author
}

/** Every comment of the action's with this marker, oldest first. */
async function ownComments(api: CommentApi, { marker, author }: WriterConfig) {
  const own = (await collect(api.listComments())).filter((c) => isOwnComment(c, marker, author))
  return own.sort((a, b) => a.id - b.id)
}

/** `work`, aborted with an error when the time limit (`timeLimitMs` on `clock`) comes first. */
export function withinTimeLimit(
  timeLimitMs: number,
  clock: Clock,
  work: (signal: AbortSignal) => Promise<Upserted>
): Promise<Upserted> {
  const late = () => new Error(`the GitHub API did not answer within ${timeLimitMs / 1000} s`)
  return withinTime(clock, timeLimitMs, late, work)
}

/** A comment that came back written as someone other than expected: later runs would not find it. */
function writtenAsAnother(written: IssueComment, { config, logger }: CommentWrite): boolean {
  const writer = written.user?.login
  if (!writer || writer === config.author) return false
  logger.warning(
    `pr_comment: the comment was written as ${writer}, not ${config.author}; set pr_comment_author: ${writer} so that later runs update it instead of adding one`
  )
  return true
}
