/*
 * A deterministic scheduler over the local GitHub API (server.ts's handler, its state saved and
 * restored): it runs every order of the calls of several legs' comment protocols
 * (src/runner/comment-protocol.ts) and of a push that moves the pull request's head, and calls
 * `check` on every final state. Each call's effect on GitHub is one step; the calls a leg makes at
 * once are steps in any order. A writer that `stops` may also stop wherever it has calls under way:
 * it makes no more, and what it wrote stays (a write it sent lands, or not: its step was taken, or
 * not). Attempt 2 of a run starts once every leg of attempt 1 has ended,
 * as GitHub re-runs only a finished run; a run of the pushed commit starts after the push.
 *
 * It skips orders that reach no final state the others do not (the argument is in
 * simulated/comment-interleavings.test.ts's first comment):
 * - A read is taken on its own only while a write of its resource (the comments, a commit's
 *   statuses, the head) can be taken; otherwise a leg's reads under way are one step.
 * - States already explored are not explored again: the same GitHub state and the same state of
 *   every leg, but for what a leg only logs; a state whose legs are each at most as many rounds
 *   in as those of a state explored is covered by it.
 */
import { type Answer, advance, start } from '../../../src/runner/comment-protocol.js'
import { callGitHub, restore, save } from './interleavings-calls.ts'
import { isRead, type Move, moveOf, resourceOf } from './interleavings-order.ts'
import { ENDED, type Global, Seen, STOPPED } from './interleavings-states.ts'
import type { Call, WriterConfig, WriterState } from '../../../src/runner/comment-round.js'
import type { GitHubApi } from './server.ts'

export { REPOSITORY } from './interleavings-calls.ts'
/**
 * A scenario that reaches more states than this is one to cut down, not to wait for (the largest
 * of the suite's reaches 859; a mutant that makes one explode fails fast).
 */
const MAX_STATES = 5000
/**
 * Once an exploration passed its cap, every later one in the test file fails at once: a protocol
 * that explodes (a mutant's) would take each of the file's scenarios to its cap, for minutes.
 */
let overflowed: string | undefined
const MAX_READS_AT_ONCE = 1000

export interface Writer {
  config: WriterConfig
  /** Writers that must have ended before this one starts (an earlier attempt of its run). */
  after: number[]
  /** Starts only once the head was pushed (a run of the newer commit). */
  afterPush: boolean
  /** May stop with calls under way (its time limit, a cancelled job); it then makes no more. */
  stops?: boolean
}

export interface Exploration {
  states: number
  finals: number
  /** Steps taken (transitions explored). */
  steps: number
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

/** A read whose answer no step to come can change: the head once pushed; a commit's statuses once each leg of it has recorded or ended. */
function settled(writers: Writer[], state: Global, call: Call): boolean {
  if (call.call === 'head') return state.pushed
  if (call.call !== 'records') return false
  return writers.every((writer, index) => {
    const own = state.writers[index]
    if (writer.config.sha !== call.sha && writer.config.sha !== '') return true
    if (own === undefined) return false
    return own.recorded !== undefined || own.answers.record !== undefined || own.calls.length === 0
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
  /** Called with each writer's state (and its index) as it ends; not when it stops. */
  ended: (state: WriterState, index: number) => void
  /** Called on each final state, with the writers that stopped (by index). */
  check: (github: GitHubApi, stopped: Set<number>) => void
  /** States at most, MAX_STATES unless given. */
  maxStates?: number
}

/** Explores every interleaving of `writers` (and of `push`, the head moving to `push`'s SHA). */
export async function explore(
  github: GitHubApi,
  writers: Writer[],
  options: Options
): Promise<Exploration> {
  if (overflowed)
    throw new Error(`an earlier exploration of this file passed its cap (${overflowed})`)
  const explorer = new Explorer(github, writers, options)
  const initial: Global = {
    github: save(github),
    pushed: !options.push,
    writers: writers.map(() => undefined)
  }
  await explorer.visit(started(writers, initial, options.protocol))
  return explorer.counts
}

class Explorer {
  private readonly seen = new Seen()
  readonly counts: Exploration = { states: 0, finals: 0, steps: 0 }
  /** The steps from the first state to the one explored now: a failure names its order. */
  private readonly path: string[] = []

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
    if (call === 'reads') {
      // The leg's reads one after another: none changes GitHub, and the leg decides on their
      // answers once all are in, whatever their order.
      let next = state
      for (const read of state.writers[index]!.calls.filter(isRead)) {
        next = await this.step(next, { index, call: read, name: '' })
      }
      return next
    }
    const { github, writers, protocol } = this
    this.counts.steps++
    if (call === 'stop') {
      // Not an end of the protocol's: the `ended` check does not apply.
      const all = state.writers.map((w, i) => (i === index ? STOPPED : w))
      return started(writers, { ...state, writers: all }, protocol)
    }
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
      this.failing(() => this.options.ended(next, index), `${index} ${call.call}`)
      all[index] = ENDED
    }
    return started(writers, { github: save(github), pushed: state.pushed, writers: all }, protocol)
  }

  /**
   * The steps taken from `state`: every write (and the push); each leg's reads under way, all at
   * once; a read on its own only while a write of its resource can be taken; and the stop of each
   * leg that may stop.
   */
  private movesOf(state: Global): Move[] {
    const moves: Move[] = state.pushed ? [] : [moveOf(-1, 'push')]
    const writing = new Set(state.pushed ? [] : ['head'])
    state.writers.forEach((w, index) => {
      for (const call of w?.calls ?? []) {
        if (isRead(call)) continue
        moves.push(moveOf(index, call))
        writing.add(resourceOf(call))
      }
    })
    state.writers.forEach((w, index) => {
      const reads = (w?.calls ?? []).filter(isRead)
      if (reads.length > 0) moves.push(moveOf(index, 'reads'))
      if (reads.length < 2) return
      for (const read of reads) {
        if (writing.has(resourceOf(read))) moves.push(moveOf(index, read))
      }
    })
    state.writers.forEach((w, index) => {
      if (this.writers[index].stops && w && w.calls.length > 0) moves.push(moveOf(index, 'stop'))
    })
    return moves
  }

  /**
   * The reads no step to come can change, taken at once (they commute with every step). A leg
   * reads a few times a round, between writes: one that keeps reading (a mutant's) fails here,
   * since a loop of reads answered in process would never let Jest's time limit run.
   */
  private async settle(entered: Global): Promise<Global> {
    let state = entered
    for (let taken = 0; ; taken++) {
      if (taken > MAX_READS_AT_ONCE) throw new Error(`more than ${MAX_READS_AT_ONCE} reads at once`)
      const eager = state.writers.flatMap((w, index) =>
        (w?.calls ?? [])
          .filter((call) => settled(this.writers, state, call))
          .map((call) => moveOf(index, call))
      )[0]
      if (!eager) return state
      this.path.push(`${eager.name} (at once)`)
      state = await this.step(state, eager)
    }
  }

  async visit(entered: Global): Promise<void> {
    const mark = this.path.length
    try {
      await this.explore(await this.settle(entered))
    } finally {
      this.path.length = mark
    }
  }

  private async explore(state: Global): Promise<void> {
    if (this.seen.covers(state)) return
    const max = this.options.maxStates ?? MAX_STATES
    if (++this.counts.states > max) throw new Error((overflowed = `more than ${max} states`))
    if (process.env.DEBUG_INTERLEAVINGS && this.counts.states % 50_000 === 0)
      process.stdout.write(`${this.counts.states} states ${Math.round(performance.now())} ms\n`)
    const moves = this.movesOf(state)
    if (moves.length === 0) {
      if (state.writers.some((w) => w === undefined)) throw new Error('a writer never started')
      this.counts.finals++
      restore(this.github, state.github)
      const stopped = new Set(state.writers.flatMap((w, index) => (w === STOPPED ? [index] : [])))
      this.failing(() => this.options.check(this.github, stopped))
      return
    }
    for (const move of moves) {
      this.path.push(move.name)
      await this.visit(await this.step(state, move))
      this.path.pop()
    }
  }

  /** Runs a check; a failure names the order of the steps that led to it. */
  private failing(check: () => void, last?: string): void {
    try {
      check()
    } catch (error) {
      const order = [...this.path, ...(last ? [last] : [])].join(' · ')
      ;(error as Error).message += `\nafter the steps: ${order}`
      throw error
    }
  }
}
