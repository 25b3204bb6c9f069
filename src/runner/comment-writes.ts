/*
 * The writes of the sticky comment: find the action's own comments of this gate, merge this run's
 * result into what they hold (comment-results.ts), write it to the oldest and delete the others,
 * then check, after a pause, that the comment still says it.
 *
 * Legs that write at once: GitHub's REST API has no conditional update (no ETag or version on an
 * issue comment), so a leg's write, made from its read, can land after another leg's write and
 * drop that leg's result. Two rules close that:
 * - A leg writes everything it has read of its run (RunRecord), never only its own result on top of
 *   the last read: a result one write dropped comes back with the next write of any leg that read it.
 * - A leg ends only on a read, made at least a pause after its last write landed, that holds
 *   everything it knows. The pause is longer than the leg's slowest round trip to GitHub (1 to 2
 *   times it, at random, so that legs drift apart). A write from an older read lands within about
 *   one round trip of that read; so a result dropped by a write that lands before a leg's check is
 *   seen missing there and written again, and a write that lands after every check of the legs that
 *   knew the result would have needed a read older than those legs' last writes by more than a
 *   pause. What is left is a leg whose read-to-write takes longer than a pause of the others (a
 *   round trip several times slower than theirs); docs/pull-requests.md gives the measured rate.
 * Everything stays within the comment's time limit; a check that no longer fits is one warning.
 */
import type { Clock } from '../domain/clock.js'
import type { Logger } from '../domain/logger.js'
import {
  type CommentContent,
  type LegResult,
  type OwnResult,
  holdsLaterRun,
  readComment,
  RunRecord
} from './comment-results.js'
import { renderComment } from './comment-render.js'
import type { CommentApi, IssueComment } from './github-comments.js'

export type CommentMode = 'off' | 'always' | 'failure'

/** Writes of one run's comment: the first, and again while other legs' writes leave it short. */
const MAX_WRITES = 5
/** The shortest pause before a check, whatever the round trips measured. */
const MIN_PAUSE_MS = 250

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
  /** Tells this leg apart (its key and name), asked once, when the result is to be written. */
  identify: () => Promise<Pick<LegResult, 'leg' | 'name'>>
  /** The pauses' clock and jitter, and when (on that clock) everything must be done. */
  clock: Clock
  random: () => number
  deadline: number
  signal?: AbortSignal
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

/** Round trips to GitHub, timed, and the pauses they call for. */
class Pacing {
  /** The slowest round trip of this leg's, and the slowest that other legs wrote in the comment. */
  slowest = 0
  others = 0
  constructor(private readonly write: CommentWrite) {}

  async trip<T>(call: () => Promise<T>): Promise<T> {
    const start = this.write.clock.now()
    try {
      return await call()
    } finally {
      this.slowest = Math.max(this.slowest, this.write.clock.now() - start)
    }
  }

  /**
   * Pauses before the next check, longer than the slowest round trip so far; false, without a
   * pause, when the pause and the check would not end before the deadline.
   */
  async pause(): Promise<boolean> {
    const { clock, random, deadline, signal } = this.write
    const pauseMs = Math.max(MIN_PAUSE_MS, this.slowest, this.others) * (1 + random())
    if (clock.now() + pauseMs + 2 * this.slowest > deadline) return false
    await clock.sleep(pauseMs, signal)
    return true
  }
}

/**
 * Adds this run's result to this gate's comment, or creates the comment: `always`, or `failure`
 * when the run failed. With `failure` an existing comment is updated whatever the outcome, so a red
 * comment turns green (or, with legs of the same run, lists a green result under a red headline).
 *
 * Each round reads every comment of the gate's (oldest first), adds what those of the same run hold
 * to what this leg knows, and writes all of it to the oldest, deleting the others (duplicates that
 * legs created at once), then pauses. It ends on a read that finds the oldest holding all of it,
 * alone.
 */
export async function upsertComment(
  api: CommentApi,
  progress: CommentProgress,
  write: CommentWrite
): Promise<Upserted> {
  const { marker, footer, logger } = write
  const pacing = new Pacing(write)
  let record: RunRecord | undefined
  let created: IssueComment | undefined
  for (let writes = 0; ; writes++) {
    const comments = await pacing.trip(() => ownComments(api, write, created))
    // Only the list right after creating may lag behind; later, a comment gone is gone.
    created = undefined
    const contents = comments.map((comment) => readComment(comment.body ?? '', marker))
    const [kept, ...duplicates] = comments
    if (!record) {
      const first = await firstRead(write, kept, contents)
      if (typeof first === 'string') return first
      record = first
    }
    if (record.absorb(contents) === 'later') {
      logger.info(`pr_comment: a later run of this gate wrote ${kept.html_url}; left as it is`)
      return 'later run'
    }
    if (kept && duplicates.length === 0 && record.heldBy(contents[0])) {
      // The comment that holds this result: not the one this run created, when another leg merged
      // that one into its own and deleted it.
      if (progress.written?.url !== kept.html_url) {
        progress.written = { action: 'updated', url: kept.html_url }
      }
      return 'written'
    }
    if (writes === MAX_WRITES) {
      logger.warning(
        `pr_comment: other runs of this gate kept writing ${kept?.html_url ?? 'the comment'} at the same time; after ${MAX_WRITES} writes it may lack a result (each run's own check and summary keep theirs)`
      )
      return 'written'
    }
    // This leg's slowest round trip goes with its result, so that other legs pause longer than it.
    write.own.result.trip = Math.round(pacing.slowest)
    pacing.others = record.slowestTrip()
    const body = renderComment(marker, record.content(), footer)
    if (kept) {
      const held = record.heldBy(contents[0])
      await pacing.trip(() => writeMerged(api, progress, { kept, duplicates, body, held }))
    } else {
      created = await pacing.trip(() => api.createComment(body))
      progress.written = { action: 'created', url: created.html_url }
      if (writtenAsAnother(created, write)) return 'written'
    }
    progress.step = kept ? CHECK_STEP : FIND_DUPLICATES_STEP
    if (!(await pacing.pause())) {
      logger.warning(
        `pr_comment: ${progress.written!.action} ${progress.written!.url}, but no time was left to check that no other leg's write replaced this result, ${MISSING_RISK} (each run's own check and summary keep theirs)`
      )
      return 'written'
    }
  }
}

const CHECK_STEP = {
  doing: "listing the comments again to check that no other leg's write replaced this result",
  risk: MISSING_RISK
}
const FIND_DUPLICATES_STEP = {
  doing: 'listing the comments again to find duplicates from other runs of this gate',
  risk: DUPLICATE_RISK
}

/**
 * After the first read: nothing to write (`failure` and a pass, or a later run's comment), or what
 * this leg knows, once it is told apart.
 */
async function firstRead(
  write: CommentWrite,
  kept: IssueComment | undefined,
  contents: (CommentContent | undefined)[]
): Promise<RunRecord | Upserted> {
  if (!kept && write.mode === 'failure' && !write.failed) return 'not needed'
  if (kept && holdsLaterRun(contents, write.own)) {
    write.logger.info(
      `pr_comment: ${kept.html_url} holds the results of a later run of this gate; left as it is`
    )
    return 'later run'
  }
  Object.assign(write.own.result, await write.identify())
  return new RunRecord(write.own)
}

/** The merged body to the oldest comment, unless it holds it already; the others deleted. */
async function writeMerged(
  api: CommentApi,
  progress: CommentProgress,
  options: { kept: IssueComment; duplicates: IssueComment[]; body: string; held: boolean }
): Promise<void> {
  const { kept, duplicates } = options
  if (!options.held) {
    progress.step = { doing: `updating the comment ${kept.html_url}`, risk: MISSING_RISK }
    const updated = await api.updateComment(kept.id, options.body)
    progress.written = { action: 'updated', url: updated.html_url }
  }
  if (duplicates.length === 0) return
  progress.step = {
    doing: `deleting the duplicate comment${duplicates.length > 1 ? 's' : ''} ${duplicates.map((duplicate) => duplicate.html_url).join(', ')}`,
    risk: DUPLICATE_RISK
  }
  // At once: every leg that found them deletes them, and one already gone is no error.
  await Promise.all(duplicates.map((duplicate) => api.deleteComment(duplicate.id)))
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
