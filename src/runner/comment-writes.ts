/*
 * The writes of the sticky comment: find the action's own comments of this gate, merge this run's
 * result into them (comment-results.ts), write it to the oldest and delete the others, and read
 * back until the comment says what this run wrote.
 *
 * Two legs that write at once: GitHub's REST API has no conditional update (no ETag or version on
 * an issue comment), so a leg reads, merges its result in and writes, then reads again, and merges
 * and writes again (at most MAX_WRITES writes) while the comment lacks what it wrote or another
 * leg's own comment stands beside it. What is left: a leg whose write lands after another leg's
 * read-back, having read before that leg's write, drops that leg's result, and nobody reads again
 * to restore it. The window is one round trip to GitHub (from the first leg's read-back to the
 * second's write). Each leg's own check, summary and outputs keep its result whatever the comment
 * says.
 */
import type { Logger } from '../domain/logger.js'
import {
  type CommentContent,
  mergeResults,
  type OwnResult,
  readComment,
  renderComment
} from './comment-results.js'
import type { CommentApi, IssueComment } from './github-comments.js'

export type CommentMode = 'off' | 'always' | 'failure'

/** Writes of one run's comment: the first, and again while other legs' writes leave it short. */
const MAX_WRITES = 3

/** What a failure after the first write may leave: the step's risk. */
const DUPLICATE_RISK = 'so a duplicate comment may be left behind'
const MISSING_RISK = "so another leg's result may be missing from it"

/**
 * How far the comment got: the comment that holds this run's result once one was written, and the
 * step under way after that, so that a later failure still reports the comment and says what failed
 * and what that may leave.
 */
export interface CommentProgress {
  written?: { action: 'created' | 'updated'; url: string }
  step?: { doing: string; risk: string }
}

/** What became of the comment: written, not needed (`failure` and a pass), or left to a later run. */
export type Upserted = 'written' | 'not needed' | 'later run'

export interface CommentWrite {
  /** The hidden first line that identifies the gate. */
  marker: string
  /** The login the action's comments are by. */
  author: string
  own: OwnResult
  /** The link to the workflow run, under the results. */
  footer: string
  mode: CommentMode
  failed: boolean
  logger: Logger
}

/** A comment the action wrote: it starts with the marker, and its author is the token's identity. */
function isOwnComment(comment: IssueComment, marker: string, author: string): boolean {
  return (comment.body ?? '').startsWith(marker) && comment.user?.login === author
}

/**
 * Every comment of the action's with this marker, oldest first, with `created` among them: a list
 * may not show a comment created a moment before yet, and it is there all the same.
 */
async function ownComments(
  api: CommentApi,
  { marker, author }: CommentWrite,
  created: IssueComment | undefined
) {
  const own: IssueComment[] = []
  for await (const page of api.listComments()) {
    own.push(...page.filter((comment) => isOwnComment(comment, marker, author)))
  }
  if (created && !own.some((comment) => comment.id === created.id)) own.push(created)
  return own.sort((a, b) => a.id - b.id)
}

/** A comment of this run's result alone. */
function alone(own: OwnResult): CommentContent {
  const results = { run: own.run, attempt: own.attempt, shown: own.result.leg }
  return { results: { ...results, results: [own.result] }, details: own.details }
}

/**
 * Adds this run's result to this gate's comment, or creates the comment: `always`, or `failure`
 * when the run failed. With `failure` an existing comment is updated whatever the outcome, so a red
 * comment turns green (or, with legs of the same run, lists a green result under a red headline).
 *
 * Each round reads every comment of the gate's (oldest first), merges this result into what those
 * of the same run and attempt hold, and writes it to the oldest, deleting the others (duplicates
 * that legs created at once). It ends when a read finds the oldest already saying so, alone.
 */
export async function upsertComment(
  api: CommentApi,
  progress: CommentProgress,
  write: CommentWrite
): Promise<Upserted> {
  const { marker, own, footer, logger } = write
  let created: IssueComment | undefined
  for (let writes = 0; ; writes++) {
    const comments = await ownComments(api, write, created)
    // Only the list right after creating may lag behind; later, a comment gone is gone.
    created = undefined
    if (comments.length === 0) {
      if (write.mode === 'failure' && !write.failed) return 'not needed'
      created = await api.createComment(renderComment(marker, alone(own), footer))
      progress.written = { action: 'created', url: created.html_url }
      if (writtenAsAnother(created, write)) return 'written'
      progress.step = {
        doing: 'listing the comments again to find duplicates from other runs of this gate',
        risk: DUPLICATE_RISK
      }
      continue
    }
    const merged = mergeResults(
      comments.map((comment) => readComment(comment.body ?? '', marker)),
      own
    )
    const [kept, ...duplicates] = comments
    if (merged === 'later') {
      logger.info(
        `pr_comment: ${kept.html_url} holds the results of a later run of this gate; left as it is`
      )
      return 'later run'
    }
    const body = renderComment(marker, merged, footer)
    if (kept.body === body && duplicates.length === 0) {
      // The comment that holds this result: not the one this run created, when another leg merged
      // that one into its own and deleted it.
      if (progress.written?.url !== kept.html_url) {
        progress.written = { action: 'updated', url: kept.html_url }
      }
      return 'written'
    }
    if (writes === MAX_WRITES) {
      logger.warning(
        `pr_comment: other runs of this gate kept writing ${kept.html_url} at the same time; after ${MAX_WRITES} writes it may lack a result (each run's own check and summary keep theirs)`
      )
      return 'written'
    }
    await writeMerged(api, progress, { kept, duplicates, body })
  }
}

/** The merged body to the oldest comment, when it does not say it yet; the others deleted. */
async function writeMerged(
  api: CommentApi,
  progress: CommentProgress,
  { kept, duplicates, body }: { kept: IssueComment; duplicates: IssueComment[]; body: string }
): Promise<void> {
  if (kept.body !== body) {
    progress.step = { doing: `updating the comment ${kept.html_url}`, risk: MISSING_RISK }
    const updated = await api.updateComment(kept.id, body)
    progress.written = { action: 'updated', url: updated.html_url }
  }
  for (const duplicate of duplicates) {
    progress.step = {
      doing: `deleting the duplicate comment ${duplicate.html_url}`,
      risk: DUPLICATE_RISK
    }
    await api.deleteComment(duplicate.id)
  }
  progress.step = {
    doing: "listing the comments again to check that no other leg's write replaced this result",
    risk: MISSING_RISK
  }
}

/** A comment that came back written as someone other than expected: later runs would not find it. */
function writtenAsAnother(created: IssueComment, { author, logger }: CommentWrite): boolean {
  const writer = created.user?.login
  if (!writer || writer === author) return false
  logger.warning(
    `pr_comment: the comment was written as ${writer}, not ${author}; set pr_comment_author: ${writer} so that later runs update it instead of adding one`
  )
  return true
}
