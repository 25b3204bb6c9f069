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
  deletes: [],
  notes: []
}

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
    // The answers of a round in a fixed order: which came first changes nothing.
    const answers = Object.fromEntries(
      Object.entries(w.answers).sort(([a], [b]) => (a < b ? -1 : 1))
    )
    if (!writerNumber.has(w)) {
      // What a writer logs (its notes, the comment it wrote) changes none of its calls or its
      // end. Its round is compared apart (Seen).
      const acting: Partial<WriterState> = { ...w, answers }
      for (const logged of ['notes', 'wrote', 'url', 'round'] as const) delete acting[logged]
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

/**
 * The states explored: by key, the writers' rounds of each. A state is covered by one of the same
 * key whose writers are each as many rounds in or more (a round's number changes nothing but the
 * cap of rounds).
 */
export class Seen {
  private readonly rounds = new Map<string, number[][]>()

  /** Whether `state` is covered; if not, it is recorded as explored. */
  covers(state: Global): boolean {
    const key = keyOf(state)
    const rounds = state.writers.map((w) => w?.round ?? 0)
    const explored = this.rounds.get(key) ?? []
    if (explored.some((other) => other.every((round, i) => round >= rounds[i]))) return true
    const kept = explored.filter((other) => !other.every((round, i) => round <= rounds[i]))
    this.rounds.set(key, [...kept, rounds])
    return false
  }
}
