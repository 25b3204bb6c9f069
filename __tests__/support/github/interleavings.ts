/*
 * A deterministic scheduler over the local GitHub API (server.ts's handler, its state saved and
 * restored): it runs every order of the calls of several legs' comment protocols
 * (src/runner/comment-protocol.ts) and of a push that moves the pull request's head, and calls
 * `check` on every final state. Each call's effect on GitHub is one step; the calls a leg makes at
 * once are steps in any order. States already explored are not explored again (the same GitHub
 * state and the same state of every leg). A read whose answer no later step can change (the head
 * once no push is to come; a commit's statuses once every leg of that commit has recorded) is
 * taken at once: it commutes with every step that can follow (a persistent set of one step).
 * Attempt 2 of a run starts once every leg of attempt 1 has ended, as GitHub re-runs only a
 * finished run; a run of the pushed commit starts after the push.
 */
import { advance, start } from '../../../src/runner/comment-protocol.js'
import { callGitHub, REPOSITORY } from './interleavings-calls.ts'
import type { Call, WriterConfig, WriterState } from '../../../src/runner/comment-round.js'
import type { GitHubApi, StoredComment, StoredStatus } from './server.ts'

export { REPOSITORY } from './interleavings-calls.ts'
/** A scenario that reaches more states than this is one to cut down, not to wait for. */
const MAX_STATES = 20_000
const PULL = `${REPOSITORY}#42`

export interface Writer {
  config: WriterConfig
  /** Writers that must have ended before this one starts (an earlier attempt of its run). */
  after: number[]
  /** Starts only once the head was pushed (a run of the newer commit). */
  afterPush: boolean
}

interface Saved {
  comments: StoredComment[]
  statuses: StoredStatus[]
  head: string
  nextCommentId: number
}

/** A writer that has ended, whatever its last state. */
const ENDED: WriterState = { calls: [], answers: {}, sha: '', round: 0, deletes: [], notes: [] }

interface Global {
  github: Saved
  pushed: boolean
  /** Each writer's state; undefined until it starts. */
  writers: (WriterState | undefined)[]
}

export interface Exploration {
  states: number
  finals: number
  /** Steps taken (transitions explored). */
  steps: number
}

function save(github: GitHubApi): Saved {
  return {
    comments: github.comments.map((comment) => ({ ...comment })),
    statuses: [...github.statuses],
    head: github.pulls.get(PULL)!,
    nextCommentId: github.nextCommentId
  }
}

function restore(github: GitHubApi, saved: Saved): void {
  github.comments = saved.comments.map((comment) => ({ ...comment }))
  github.statuses = [...saved.statuses]
  github.pulls.set(PULL, saved.head)
  github.nextCommentId = saved.nextCommentId
  github.requests.length = 0
}

/** Each writer state's JSON, once: states are never changed, only replaced. */
const writerJson = new WeakMap<WriterState, string>()
/** Each comment body's number, so that a key names a body in a few characters. */
const bodies = new Map<string, number>()

function keyOf(state: Global): string {
  const { github } = state
  const body = (text: string) => {
    if (!bodies.has(text)) bodies.set(text, bodies.size)
    return bodies.get(text)!
  }
  const writer = (w: WriterState | undefined) => {
    if (!w) return '-'
    if (!writerJson.has(w)) writerJson.set(w, JSON.stringify(w))
    return writerJson.get(w)!
  }
  return [
    github.comments.map((c) => `${c.id}:${body(c.body)}`).join(','),
    github.statuses.map((s) => `${s.id}${s.sha[0]}${s.context}${s.state}`).join(','),
    github.head,
    state.pushed,
    ...state.writers.map(writer)
  ].join('|')
}

/** The writers that may start now: their earlier attempt ended, and the push came if they wait for it. */
function started(writers: Writer[], state: Global): Global {
  let next = state
  writers.forEach((writer, index) => {
    if (next.writers[index]) return
    const ready =
      (!writer.afterPush || next.pushed) &&
      writer.after.every((other) => next.writers[other] && next.writers[other]!.calls.length === 0)
    if (!ready) return
    const all = [...next.writers]
    all[index] = start(writer.config)
    next = { ...next, writers: all }
  })
  return next
}

/** A call that commutes with every step that may follow: its answer cannot change any more. */
function settled(writers: Writer[], state: Global, call: Call): boolean {
  if (call.call === 'head') return state.pushed
  if (call.call !== 'records') return false
  return writers.every((writer, index) => {
    const own = state.writers[index]
    if (writer.config.sha !== call.sha && writer.config.sha !== '') return true
    return own !== undefined && (own.recorded !== undefined || own.calls.length === 0)
  })
}

interface Options {
  push?: string
  /** Called with each writer's state as it ends. */
  ended: (state: WriterState) => void
  /** Called on each final state. */
  check: (github: GitHubApi) => void
}

/** Explores every interleaving of `writers` (and of `push`, the head moving to `push`'s SHA). */
export async function explore(
  github: GitHubApi,
  writers: Writer[],
  options: Options
): Promise<Exploration> {
  const explorer = new Explorer(github, writers, options)
  const initial: Global = {
    github: save(github),
    pushed: !options.push,
    writers: writers.map(() => undefined)
  }
  await explorer.visit(started(writers, initial))
  return explorer.counts
}

class Explorer {
  private readonly seen = new Set<string>()
  readonly counts: Exploration = { states: 0, finals: 0, steps: 0 }

  private readonly github: GitHubApi
  private readonly writers: Writer[]
  private readonly options: Options

  constructor(github: GitHubApi, writers: Writer[], options: Options) {
    this.github = github
    this.writers = writers
    this.options = options
  }

  private async step(state: Global, index: number, call: Call): Promise<Global> {
    const { github, writers } = this
    restore(github, state.github)
    this.counts.steps++
    const writer = writers[index]
    const answer = await callGitHub(github, writer.config, call)
    const all = [...state.writers]
    const next = advance(writer.config, state.writers[index]!, call, answer)
    if (next.calls.length > 0) all[index] = next
    else {
      // Ended: checked now; only that it ended matters to what follows.
      this.options.ended(next)
      all[index] = ENDED
    }
    return started(writers, { github: save(github), pushed: state.pushed, writers: all })
  }

  /** Steps that commute with everything, taken at once in a fixed order. */
  private async settle(entered: Global): Promise<Global> {
    let state = entered
    for (;;) {
      const eager = state.writers.flatMap((w, index) =>
        (w?.calls ?? [])
          .filter((call) => settled(this.writers, state, call))
          .map((call) => ({ index, call }))
      )[0]
      if (!eager) return state
      state = await this.step(state, eager.index, eager.call)
    }
  }

  async visit(entered: Global): Promise<void> {
    const state = await this.settle(entered)
    const key = keyOf(state)
    if (this.seen.has(key)) return
    this.seen.add(key)
    if (++this.counts.states > MAX_STATES) throw new Error(`more than ${MAX_STATES} states`)
    const moves = state.writers.flatMap((w, index) =>
      (w?.calls ?? []).map((call) => ({ index, call }))
    )
    if (!state.pushed) {
      const head = this.options.push!
      await this.visit(
        started(this.writers, { ...state, pushed: true, github: { ...state.github, head } })
      )
    }
    if (moves.length === 0 && state.pushed) {
      if (state.writers.some((w) => w === undefined)) throw new Error('a writer never started')
      this.counts.finals++
      restore(this.github, state.github)
      this.options.check(this.github)
      return
    }
    for (const { index, call } of moves) await this.visit(await this.step(state, index, call))
  }
}
