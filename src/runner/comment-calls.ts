/*
 * The GitHub calls of one round of the sticky comment's writes (comment-writes.ts): the action's
 * own comments of the gate listed, the merged result written to the oldest and the others deleted,
 * and what a failure after the first write may leave, for its warning.
 */
import type { Logger } from '../domain/logger.js'
import type { CommentApi, IssueComment } from './github-comments.js'

/** What a failure after the first write may leave: the step's risk. */
const DUPLICATE_RISK = 'so a duplicate comment may be left behind'
export const MISSING_RISK = "so another leg's result may be missing from it"

/**
 * How far the comment got: the comment that holds this run's result once one was written, and the
 * step under way after that, so that a later failure still reports the comment and says what failed
 * and what that may leave.
 */
export interface CommentProgress {
  written?: { action: 'created' | 'updated'; url: string }
  step?: { doing: string; risk: string }
  /**
   * A write sent and not answered yet: one cut short by the time limit may have landed all the
   * same, so the warning says where to look instead of "not written".
   */
  sending?: { doing: string; look: string; url?: string }
}

/** `write`, with `sending` set while it is under way. */
export async function sending<T>(
  progress: CommentProgress,
  what: NonNullable<CommentProgress['sending']>,
  write: () => Promise<T>
): Promise<T> {
  progress.sending = what
  const answer = await write()
  progress.sending = undefined
  return answer
}

export const CREATING = {
  doing: "creating this leg's comment",
  look: 'look for a second comment of this gate on the pull request: a later leg of this run that writes merges it into the shared comment and deletes it'
}

export const CHECK_STEP = {
  doing: "listing the comments again to check that no other leg's write replaced this result",
  risk: MISSING_RISK
}
/**
 * The check of a leg that saw no other (a gate of one leg, or a leg that read before any other
 * wrote): no other leg's result to miss, but one it did not see may have written over its own.
 */
export const LONE_CHECK_STEP = {
  doing: 'reading it back',
  risk: 'so a leg of this run not seen yet, if any, may have written over this result'
}
export const FIND_DUPLICATES_STEP = {
  doing: 'listing the comments again to find duplicates from other runs of this gate',
  risk: DUPLICATE_RISK
}

/** A comment the action wrote: it starts with the marker, and its author is the token's identity. */
function isOwnComment(comment: IssueComment, marker: string, author: string): boolean {
  return (comment.body ?? '').startsWith(marker) && comment.user?.login === author
}

/** Every comment of the action's with this marker, oldest first. */
export async function ownComments(
  api: CommentApi,
  { marker, author }: { marker: string; author: string }
) {
  const own: IssueComment[] = []
  for await (const page of api.listComments()) {
    own.push(...page.filter((comment) => isOwnComment(comment, marker, author)))
  }
  return own.sort((a, b) => a.id - b.id)
}

/**
 * The merged body to the oldest comment, unless it holds it already; the others deleted, after it
 * or, `together` (a slow leg, short of time), at the same time.
 */
export async function writeMerged(
  api: CommentApi,
  progress: CommentProgress,
  { kept, duplicates, body, held, together }: MergedWrite
): Promise<void> {
  // At once: every leg that found them deletes them, and one already gone is no error.
  const deleteAll = () =>
    Promise.all(duplicates.map((duplicate) => api.deleteComment(duplicate.id)))
  const deleting = together && duplicates.length > 0 ? deleteAll() : undefined
  deleting?.catch(() => undefined)
  if (held) {
    // Another leg wrote this result there already.
    progress.written = { action: 'updated', url: kept.html_url }
  } else if (deleting) {
    // The duplicates are on their way out and this result on its way here: the comment it is in.
    progress.written = { action: 'updated', url: kept.html_url }
    progress.step = {
      doing: `updating it, with ${duplicates.map((d) => d.html_url).join(', ')} merged in and deleted at the same time`,
      risk: MISSING_RISK
    }
    await api.updateComment(kept.id, body)
  } else {
    progress.step = { doing: `updating the comment ${kept.html_url}`, risk: MISSING_RISK }
    const look = `look at ${kept.html_url}`
    const updating = { doing: `updating ${kept.html_url}`, look, url: kept.html_url }
    const updated = await sending(progress, updating, () => api.updateComment(kept.id, body))
    progress.written = { action: 'updated', url: updated.html_url }
  }
  if (duplicates.length === 0) return
  progress.step = {
    doing: `deleting the duplicate comment${duplicates.length > 1 ? 's' : ''} ${duplicates.map((duplicate) => duplicate.html_url).join(', ')}`,
    risk: DUPLICATE_RISK
  }
  await (deleting ?? deleteAll())
}

export interface MergedWrite {
  kept: IssueComment
  duplicates: IssueComment[]
  body: string
  held: boolean
  together: boolean
}

/** A comment that came back written as someone other than expected: later runs would not find it. */
export function writtenAsAnother(
  created: IssueComment,
  { author, logger }: { author: string; logger: Logger }
): boolean {
  const writer = created.user?.login
  if (!writer || writer === author) return false
  logger.warning(
    `pr_comment: the comment was written as ${writer}, not ${author}; set pr_comment_author: ${writer} so that later runs update it instead of adding one`
  )
  return true
}
