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
import { Pacing } from './comment-pacing.js'
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

/** Every comment of the action's with this marker, oldest first. */
async function ownComments(api: CommentApi, { marker, author }: CommentWrite) {
  const own: IssueComment[] = []
  for await (const page of api.listComments()) {
    own.push(...page.filter((comment) => isOwnComment(comment, marker, author)))
  }
  return own.sort((a, b) => a.id - b.id)
}

/** One read: every comment of the gate's, oldest first, and what each holds. */
interface Read {
  kept: IssueComment | undefined
  duplicates: IssueComment[]
  contents: (CommentContent | undefined)[]
}

/**
 * Adds this run's result to this gate's comment, or creates the comment: `always`, or `failure`
 * when the run failed. With `failure` an existing comment is updated whatever the outcome, so a red
 * comment turns green (or, with legs of the same run, lists a green result under a red headline).
 *
 * Each round reads every comment of the gate's (oldest first), adds what those of the same run hold
 * to what this leg knows, and writes all of it to the oldest, deleting the others (duplicates that
 * legs created at once), then pauses. From a read that is not fresh (comment-pacing.ts), before
 * its result is on the pull request, a leg creates a comment of its own instead, which no leg
 * overwrites, and merges it from the next read. It ends on a read that finds the oldest holding
 * all of it, alone.
 */
export function upsertComment(
  api: CommentApi,
  progress: CommentProgress,
  write: CommentWrite
): Promise<Upserted> {
  return new CommentRounds(api, progress, write).run()
}

class CommentRounds {
  private readonly pacing: Pacing
  private record: RunRecord | undefined
  /** The comment this leg created last, until the next read: a list may not show it yet. */
  private created: IssueComment | undefined
  private writes = 0

  constructor(
    private readonly api: CommentApi,
    private readonly progress: CommentProgress,
    private readonly write: CommentWrite
  ) {
    this.pacing = new Pacing(write)
  }

  async run(): Promise<Upserted> {
    // Told apart before the first read when a result is to be written, so that no call comes
    // between a read and the write made from it.
    const early = this.write.mode !== 'failure' || this.write.failed
    if (early) await this.identify()
    for (;;) {
      const read = await this.read()
      if (!this.record) {
        const first = firstRead(this.write, read)
        if (first) return first
        this.record = new RunRecord(this.write.own)
        if (!early) {
          await this.identify()
          continue
        }
      }
      const ended = this.settled(read, this.record)
      if (ended) return ended
      const next = await this.writeFrom(read, this.record)
      if (next !== 'check') return next
    }
  }

  private async identify(): Promise<void> {
    Object.assign(this.write.own.result, await this.write.identify())
  }

  private async read(): Promise<Read> {
    const { marker } = this.write
    const comments = await this.pacing.trip(() => ownComments(this.api, this.write), 'read')
    const read = (all: IssueComment[]) => all.map((c) => readComment(c.body ?? '', marker))
    // A list may not show a comment created a moment before yet, and it is there all the same;
    // unless another leg merged it already (the list shows this result elsewhere) and deleted it.
    const created = this.created
    this.created = undefined
    const missing = created && !comments.some((comment) => comment.id === created.id)
    if (missing && !this.record?.shownIn(read(comments))) {
      comments.push(created)
      comments.sort((a, b) => a.id - b.id)
    }
    const [kept, ...duplicates] = comments
    return { kept, duplicates, contents: read(comments) }
  }

  /** How the comment ends after `read`: left to a later run, written, or not yet (undefined). */
  private settled({ kept, duplicates, contents }: Read, record: RunRecord): Upserted | undefined {
    const { logger } = this.write
    if (record.absorb(contents) === 'later') {
      logger.info(`pr_comment: a later run of this gate wrote ${kept!.html_url}; left as it is`)
      return 'later run'
    }
    if (kept && duplicates.length === 0 && record.heldBy(contents[0])) {
      // The comment that holds this result: not the one this run created, when another leg merged
      // that one into its own and deleted it.
      if (this.progress.written?.url !== kept.html_url) {
        this.progress.written = { action: 'updated', url: kept.html_url }
      }
      return 'written'
    }
    if (this.writes === MAX_WRITES) {
      logger.warning(
        `pr_comment: other runs of this gate kept writing ${kept?.html_url ?? 'the comment'} at the same time; after ${MAX_WRITES} writes it may lack a result (each run's own check and summary keep theirs)`
      )
      return 'written'
    }
    return undefined
  }

  /** Writes what this leg knows; `check` when a check is to follow (after a pause, or at once). */
  private async writeFrom(read: Read, record: RunRecord): Promise<Upserted | 'check'> {
    const { kept, duplicates, contents } = read
    this.writes++
    // This leg's slowest round trip goes with its result, so that other legs pause longer than it.
    this.write.own.result.trip = Math.round(this.pacing.slowest)
    this.pacing.others = record.slowestTrip()
    const body = renderComment(this.write.marker, record.content(), this.write.footer)
    const fresh = this.pacing.fresh()
    if (kept && (fresh || record.shownIn(contents))) {
      const held = record.heldBy(contents[0])
      await this.pacing.trip(() =>
        writeMerged(this.api, this.progress, { kept, duplicates, body, held, together: !fresh })
      )
      return this.pause(CHECK_STEP)
    }
    // No comment yet, or a read too old to update the shared one from: a comment of its own.
    const created = await this.pacing.trip(() => this.api.createComment(body))
    this.created = created
    this.progress.written = { action: 'created', url: created.html_url }
    if (writtenAsAnother(created, this.write)) return 'written'
    if (!kept) return this.pause(FIND_DUPLICATES_STEP)
    // Merged at once from the next read: no other leg overwrites a comment of this leg's own.
    this.progress.step = FIND_DUPLICATES_STEP
    return 'check'
  }

  /** The pause before a check; `written` with a warning when no time is left for it. */
  private async pause(step: CommentProgress['step']): Promise<Upserted | 'check'> {
    this.progress.step = step
    if (await this.pacing.pause()) return 'check'
    const { action, url } = this.progress.written!
    this.write.logger.warning(
      `pr_comment: ${action} ${url}, but no time was left to check that no other leg's write replaced this result, ${MISSING_RISK} (each run's own check and summary keep theirs)`
    )
    return 'written'
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
 * After the first read: nothing to write (`failure` and a pass, or a later run's comment), or
 * undefined: this leg's result is to be written.
 */
function firstRead(write: CommentWrite, { kept, contents }: Read): Upserted | undefined {
  if (!kept && write.mode === 'failure' && !write.failed) return 'not needed'
  if (kept && holdsLaterRun(contents, write.own)) {
    write.logger.info(
      `pr_comment: ${kept.html_url} holds the results of a later run of this gate; left as it is`
    )
    return 'later run'
  }
  return undefined
}

/**
 * The merged body to the oldest comment, unless it holds it already; the others deleted, after it
 * or, `together` (a slow leg, short of time), at the same time.
 */
async function writeMerged(
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
    const updated = await api.updateComment(kept.id, body)
    progress.written = { action: 'updated', url: updated.html_url }
  }
  if (duplicates.length === 0) return
  progress.step = {
    doing: `deleting the duplicate comment${duplicates.length > 1 ? 's' : ''} ${duplicates.map((duplicate) => duplicate.html_url).join(', ')}`,
    risk: DUPLICATE_RISK
  }
  await (deleting ?? deleteAll())
}

interface MergedWrite {
  kept: IssueComment
  duplicates: IssueComment[]
  body: string
  held: boolean
  together: boolean
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
