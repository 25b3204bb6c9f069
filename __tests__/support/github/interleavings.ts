/*
 * A deterministic scheduler over the local GitHub API (server.ts's handler, its state saved and
 * restored): it runs every order of the calls of several legs' comment protocols
 * (src/runner/comment-protocol.ts) and of a push that moves the pull request's head, and calls
 * `check` on every final state. Each call's effect on GitHub is one step; the calls a leg makes at
 * once are steps in any order. Attempt 2 of a run starts once every leg of attempt 1 has ended,
 * as GitHub re-runs only a finished run; a run of the pushed commit starts after the push.
 *
 * Partial-order reduction, so that three legs at once take seconds, not hours:
 * - States already explored are not explored again (the same GitHub state and the same state of
 *   every leg), unless with fewer steps asleep (below).
 * - A read whose answer no later step can change (the head once no push is to come; a commit's
 *   statuses once every leg of that commit has recorded) is taken at once: it commutes with every
 *   step that can follow (a persistent set of one step).
 * - Sleep sets (Godefroid): two steps are independent when they touch different resources or
 *   both only read (the comments; a commit's statuses; the head), so either order reaches the
 *   same state. Once a step was explored from a state, it sleeps in the states its independent
 *   siblings lead to, until a step dependent on it is taken. A state met again with a sleep set
 *   that is not a superset of the one it was explored with is explored again with the
 *   intersection, so that no order is left out.
 */
import { type Answer, advance, start } from '../../../src/runner/comment-protocol.js'
import { callGitHub, restore, save, type Saved } from './interleavings-calls.ts'
import { independent, type Move, moveOf } from './interleavings-order.ts'
import type { Call, WriterConfig, WriterState } from '../../../src/runner/comment-round.js'
import type { GitHubApi } from './server.ts'

export { REPOSITORY } from './interleavings-calls.ts'
/** A scenario that reaches more states than this is one to cut down, not to wait for. */
const MAX_STATES = 200_000

export interface Writer {
  config: WriterConfig
  /** Writers that must have ended before this one starts (an earlier attempt of its run). */
  after: number[]
  /** Starts only once the head was pushed (a run of the newer commit). */
  afterPush: boolean
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
    // The answers of a round in a fixed order: which came first changes nothing.
    const answers = Object.fromEntries(
      Object.entries(w.answers).sort(([a], [b]) => (a < b ? -1 : 1))
    )
    if (!writerJson.has(w)) writerJson.set(w, JSON.stringify({ ...w, answers }))
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
function started(writers: Writer[], state: Global, protocol: Protocol = PROTOCOL): Global {
  let next = state
  writers.forEach((writer, index) => {
    if (next.writers[index]) return
    const ready =
      (!writer.afterPush || next.pushed) &&
      writer.after.every((other) => next.writers[other] && next.writers[other]!.calls.length === 0)
    if (!ready) return
    const all = [...next.writers]
    all[index] = protocol.start(writer.config)
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

/** What a leg does: the real protocol, or a wrong variant of it (the test's mutants). */
export interface Protocol {
  start: (config: WriterConfig) => WriterState
  advance: (config: WriterConfig, state: WriterState, call: Call, answer: Answer) => WriterState
  /** One call's effect on GitHub and its answer. */
  call: (github: GitHubApi, config: WriterConfig, call: Call) => Promise<Answer>
}

export const PROTOCOL: Protocol = { start, advance, call: callGitHub }

interface Options {
  protocol?: Protocol
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
  await explorer.visit(started(writers, initial, options.protocol), new Set())
  return explorer.counts
}

class Explorer {
  /** Each state's key, and the steps asleep when it was last explored. */
  private readonly seen = new Map<string, Set<string>>()
  readonly counts: Exploration = { states: 0, finals: 0, steps: 0 }

  private readonly github: GitHubApi
  private readonly writers: Writer[]
  private readonly options: Options
  private readonly protocol: Protocol

  constructor(github: GitHubApi, writers: Writer[], options: Options) {
    this.github = github
    this.writers = writers
    this.options = options
    this.protocol = options.protocol ?? PROTOCOL
  }

  private async step(state: Global, { index, call }: Move): Promise<Global> {
    const { github, writers, protocol } = this
    this.counts.steps++
    if (call === 'push') {
      const head = this.options.push!
      return started(
        writers,
        { ...state, pushed: true, github: { ...state.github, head } },
        protocol
      )
    }
    restore(github, state.github)
    const writer = writers[index]
    const answer = await protocol.call(github, writer.config, call)
    const all = [...state.writers]
    const next = protocol.advance(writer.config, state.writers[index]!, call, answer)
    if (next.calls.length > 0) all[index] = next
    else {
      // Ended: checked now; only that it ended matters to what follows.
      this.options.ended(next)
      all[index] = ENDED
    }
    return started(writers, { github: save(github), pushed: state.pushed, writers: all }, protocol)
  }

  /** Steps that commute with everything, taken at once in a fixed order. */
  private async settle(entered: Global, asleep: Move[]): Promise<[Global, Move[]]> {
    let state = entered
    let sleep = asleep
    for (;;) {
      const eager = state.writers.flatMap((w, index) =>
        (w?.calls ?? [])
          .filter((call) => settled(this.writers, state, call))
          .map((call) => moveOf(index, call))
      )[0]
      if (!eager) return [state, sleep]
      sleep = sleep.filter((move) => independent(move, eager))
      state = await this.step(state, eager)
    }
  }

  private movesOf(state: Global): Move[] {
    const moves = state.writers.flatMap((w, index) =>
      (w?.calls ?? []).map((call) => moveOf(index, call))
    )
    if (!state.pushed) moves.unshift(moveOf(-1, 'push'))
    return moves
  }

  async visit(entered: Global, asleep: Set<string>): Promise<void> {
    const enabled = this.movesOf(entered)
    const [state, sleeping] = await this.settle(
      entered,
      enabled.filter((move) => asleep.has(move.name))
    )
    const key = keyOf(state)
    let sleep = new Set(sleeping.map((move) => move.name))
    const before = this.seen.get(key)
    if (before) {
      // Explored before with these asleep: nothing new unless fewer sleep now.
      if ([...before].every((name) => sleep.has(name))) return
      sleep = new Set([...before].filter((name) => sleep.has(name)))
    } else if (++this.counts.states > MAX_STATES) throw new Error(`more than ${MAX_STATES} states`)
    this.seen.set(key, sleep)
    const moves = this.movesOf(state)
    if (moves.length === 0) {
      if (state.writers.some((w) => w === undefined)) throw new Error('a writer never started')
      if (before) return
      this.counts.finals++
      restore(this.github, state.github)
      this.options.check(this.github)
      return
    }
    const done: Move[] = moves.filter((move) => sleep.has(move.name))
    for (const move of moves) {
      if (sleep.has(move.name)) continue
      const next = await this.step(state, move)
      await this.visit(next, new Set(done.filter((d) => independent(d, move)).map((d) => d.name)))
      done.push(move)
    }
  }
}
