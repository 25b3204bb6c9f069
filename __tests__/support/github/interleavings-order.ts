/*
 * The steps of the scheduler (interleavings.ts) and which of them commute, for its sleep sets:
 * two steps are independent when they touch different resources of GitHub, or both only read.
 */
import type { Call } from '../../../src/runner/comment-round.js'

/** What a step touches, and whether it changes it. */
function touches(call: Call | 'push'): { resource: string; writes: boolean } {
  if (call === 'push') return { resource: 'head', writes: true }
  switch (call.call) {
    case 'head':
      return { resource: 'head', writes: false }
    case 'comments':
      return { resource: 'comments', writes: false }
    case 'records':
      return { resource: `statuses ${call.sha}`, writes: false }
    case 'record':
      // Every status takes the next id: two records of any commits do not commute.
      return { resource: 'statuses', writes: true }
    default:
      return { resource: 'comments', writes: true }
  }
}

export function independent(a: Move, b: Move): boolean {
  const [x, y] = [touches(a.call), touches(b.call)]
  if (!x.writes && !y.writes) return true
  const statuses = (r: string) => r.startsWith('statuses')
  const same =
    x.resource === y.resource ||
    (statuses(x.resource) &&
      statuses(y.resource) &&
      (x.resource === 'statuses' || y.resource === 'statuses'))
  return !same
}

/** A step: writer `index`'s call (or the push), named so that it is the same step in every state. */
export interface Move {
  index: number
  call: Call | 'push'
  name: string
}

export function moveOf(index: number, call: Call | 'push'): Move {
  if (call === 'push') return { index, call, name: 'push' }
  const on = 'sha' in call ? call.sha : 'id' in call ? String(call.id) : ''
  return { index, call, name: `${index} ${call.call} ${on}` }
}
