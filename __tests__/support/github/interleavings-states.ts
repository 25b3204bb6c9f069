/*
 * The states of the scheduler (interleavings.ts): GitHub's and each leg's, their keys, and which
 * states are explored already.
 */
import type { WriterState } from '../../../src/runner/comment-round.js'
import type { Saved } from './interleavings-calls.ts'

/** A writer that has ended, whatever its last state. */
export const ENDED: WriterState = {
  calls: [],
  answers: {},
  sha: '',
  round: 0,
  deletes: []
}

/**
 * A writer that stopped mid-protocol (its time limit, a cancelled job): what it wrote stays, it
 * writes nothing more. Apart from ENDED: the final check asks less of a leg that stopped.
 */
export const STOPPED: WriterState = { ...ENDED }

export interface Global {
  github: Saved
  pushed: boolean
  /** Each writer's state; undefined until it starts. */
  writers: (WriterState | undefined)[]
}

/** Each writer state's number, by its JSON: states are never changed, only replaced. */
const writerNumber = new WeakMap<WriterState, number>()
const writerStates = new Map<string, number>()
/** Each comment body's number, so that a key names a body in a few characters. */
const bodies = new Map<string, number>()

export function keyOf(state: Global): string {
  const { github } = state
  const body = (text: string) => {
    if (!bodies.has(text)) bodies.set(text, bodies.size)
    return bodies.get(text)!
  }
  const writer = (w: WriterState | undefined) => {
    if (!w) return '-'
    if (w === STOPPED) return writer(ENDED)
    // The answers of a round in a fixed order: which came first changes nothing.
    const answers = Object.fromEntries(
      Object.entries(w.answers).sort(([a], [b]) => (a < b ? -1 : 1))
    )
    if (!writerNumber.has(w)) {
      // What a writer logs (its notes, the comment it wrote) changes none of its calls or its
      // end. Its round is compared apart (Seen).
      const acting: Partial<WriterState> = { ...w, answers }
      for (const logged of ['superseded', 'wrote', 'url', 'round'] as const) delete acting[logged]
      const json = JSON.stringify(acting)
      if (!writerStates.has(json)) writerStates.set(json, writerStates.size)
      writerNumber.set(w, writerStates.get(json)!)
    }
    return writerNumber.get(w)!
  }
  return [
    github.comments.map((c) => `${c.id}:${body(c.body)}`).join(','),
    github.statuses.map((s) => `${s.id}${s.sha[0]}${s.context}${s.state}`).join(','),
    github.head,
    state.pushed,
    ...state.writers.map(writer)
  ].join('|')
}

/** Per writer, its round, and 1 when it stopped (both compared apart from the key). */
type Marks = { rounds: number[]; stopped: number[] }

/** Whether the marks `a` are at least those of `b`: `a` covers `b`. */
const atLeast = (a: Marks, b: Marks) =>
  a.rounds.every((round, i) => round >= b.rounds[i]) &&
  a.stopped.every((stopped, i) => stopped <= b.stopped[i])

/**
 * The states explored: by key, the writers' rounds of each, and which stopped. A state is covered
 * by one of the same key whose writers are each as many rounds in or more (a round's number changes
 * nothing but the cap of rounds), and that stopped no writer this one ended normally. A stopped
 * writer and an ended one act alike (no calls); the final check asks less of the stopped one.
 */
export class Seen {
  private readonly marks = new Map<string, Marks[]>()

  /** Whether `state` is covered; if not, it is recorded as explored. */
  covers(state: Global): boolean {
    const key = keyOf(state)
    const marks: Marks = {
      rounds: state.writers.map((w) => w?.round ?? 0),
      stopped: state.writers.map((w) => (w === STOPPED ? 1 : 0))
    }
    const explored = this.marks.get(key) ?? []
    if (explored.some((other) => atLeast(other, marks))) return true
    const kept = explored.filter((other) => !atLeast(marks, other))
    this.marks.set(key, [...kept, marks])
    return false
  }
}
