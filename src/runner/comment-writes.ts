/*
 * The writes of the sticky comment: find the action's own comments of this gate, merge this run's
 * result into what they hold (comment-results.ts), write it to the oldest and delete the others,
 * then check, after a pause, that the comment still says it.
 *
 * Legs that write at once: GitHub's REST API has no conditional update (no ETag or version on an
 * issue comment), so a leg's write, made from its read, can land after another leg's write and
 * drop that leg's result. Three rules close that:
 * - A leg writes everything it has read of its run (RunRecord), never only its own result on top of
 *   the last read: a result one write dropped comes back with the next write of any leg that read it.
 * - A leg ends only on a read, made at least a pause after its last write landed, that holds
 *   everything it knows. The pause is at least MIN_PAUSE_MS and longer than every round trip it
 *   knows: its own, and those the other legs wrote beside their results (comment-pacing.ts).
 * - A write from a read lands about one round trip of the writer's after that read. A leg updates
 *   the shared comment only when that is within MIN_PAUSE_MS (a fresh read), or once its result is
 *   on the pull request, where the others read its round trip and watch that long. Otherwise, once
 *   it has seen another leg of its run, it creates a comment of its own, which no leg overwrites,
 *   and merges it from its next read. So a write that drops a result lands while the leg that
 *   wrote that result still watches. With no other leg in sight (a gate of one leg, or the first
 *   leg to write) it updates the comment, as a gate of one leg always did.
 * What is left are legs that wait for a slow one and run out of time before their last check, each
 * with a warning; docs/pull-requests.md gives the measured rates. Everything stays within the
 * comment's time limit; a check that no longer fits is one warning.
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
import {
  CHECK_STEP,
  CREATING,
  sending,
  type CommentProgress,
  FIND_DUPLICATES_STEP,
  LONE_CHECK_STEP,
  MISSING_RISK,
  ownComments,
  writeMerged,
  writtenAsAnother
} from './comment-calls.js'

export type CommentMode = 'off' | 'always' | 'failure'

/** Writes of one run's comment: the first, and again while other legs' writes leave it short. */
const MAX_WRITES = 5

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
  identify: () => Promise<Pick<LegResult, 'key' | 'name'>>
  /** The pauses' clock and jitter, and when (on that clock) everything must be done. */
  clock: Clock
  random: () => number
  deadline: number
  signal?: AbortSignal
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
  private namesakeWarned = false

  constructor(
    private readonly api: CommentApi,
    private readonly progress: CommentProgress,
    private readonly write: CommentWrite
  ) {
    this.pacing = new Pacing(write)
  }

  async run(): Promise<Upserted> {
    // Told apart while the first read is under way when a result is to be written, so that no
    // call comes between a read and the write made from it.
    const early = this.write.mode !== 'failure' || this.write.failed
    const identified = early ? this.identify() : undefined
    identified?.catch(() => undefined)
    for (;;) {
      const read = await this.read()
      if (!this.record) {
        const first = firstRead(this.write, read)
        if (first) return first
        this.record = new RunRecord(this.write.own)
        await (identified ?? this.identify())
        if (!early) continue
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
    this.warnNamesake(record)
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

  /** Once: another leg of this attempt has this leg's name, so a re-run cannot replace either. */
  private warnNamesake(record: RunRecord): void {
    const other = record.namesake()
    if (!other || this.namesakeWarned) return
    this.namesakeWarned = true
    this.write.logger.warning(
      `pr_comment: another leg of this run attempt has the same name (${other.name ?? ''}); both results are kept, but a re-run's result cannot replace either. Give each leg a pr_comment_leg value of its own (pr_comment_leg: \${{ toJSON(matrix) }})`
    )
  }

  /** Writes what this leg knows; `check` when a check is to follow (after a pause, or at once). */
  private async writeFrom(read: Read, record: RunRecord): Promise<Upserted | 'check'> {
    const { kept, duplicates, contents } = read
    const fresh = this.pacing.fresh()
    this.writes++
    // This leg's slowest round trip goes with its result, so that other legs pause longer than it.
    this.write.own.result.trip = Math.round(this.pacing.slowest)
    this.pacing.others = record.slowestTrip()
    const body = renderComment(this.write.marker, record.content(), this.write.footer)
    // With no other leg of the run in sight (a gate of one leg), as fresh: a comment is updated.
    if (kept && (fresh || !record.hasSiblings() || record.shownIn(contents))) {
      const held = record.heldBy(contents[0])
      // A slow leg of a matrix, short of time, deletes the duplicates while it updates.
      const together = !fresh && record.hasSiblings()
      await this.pacing.trip(() =>
        writeMerged(this.api, this.progress, { kept, duplicates, body, held, together })
      )
      return this.pause(record.hasSiblings() ? CHECK_STEP : LONE_CHECK_STEP, record)
    }
    // No comment yet, or a read too old to update the shared one from: a comment of its own.
    const create = () => this.api.createComment(body)
    const created = await this.pacing.trip(() => sending(this.progress, CREATING, create))
    this.created = created
    this.progress.written = { action: 'created', url: created.html_url }
    if (writtenAsAnother(created, this.write)) return 'written'
    if (!kept) return this.pause(FIND_DUPLICATES_STEP, record)
    // Merged at once from the next read: no other leg overwrites a comment of this leg's own.
    this.progress.step = FIND_DUPLICATES_STEP
    return 'check'
  }

  /**
   * The pause before a check; `written` with a warning when no time is left for it, which speaks
   * of other legs' results only when this leg saw another.
   */
  private async pause(
    step: CommentProgress['step'],
    record: RunRecord
  ): Promise<Upserted | 'check'> {
    this.progress.step = step
    if (await this.pacing.pause()) return 'check'
    const { action, url } = this.progress.written!
    if (!record.hasSiblings()) {
      this.write.logger.warning(
        `pr_comment: ${action} ${url}, but no time was left to read it back, ${LONE_CHECK_STEP.risk} (each run's own check and summary keep theirs)`
      )
      return 'written'
    }
    this.write.logger.warning(
      `pr_comment: ${action} ${url}, but no time was left to check that no other leg's write replaced this result, ${MISSING_RISK} (each run's own check and summary keep theirs)`
    )
    return 'written'
  }
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
