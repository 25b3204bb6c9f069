/*
 * The steps of the scheduler (interleavings.ts), and which of them race: a read and a write of the
 * same resource of GitHub (the comments, one commit's statuses, the pull request's head).
 */
import type { Call } from '../../../src/runner/comment-round.js'

/** A read of a leg's round: it changes nothing on GitHub. */
export type Read = Extract<Call, { call: 'comments' | 'head' | 'records' }>

export const isRead = (call: Call): call is Read =>
  call.call === 'comments' || call.call === 'head' || call.call === 'records'

/** The resource a call or the push reads or writes. */
export function resourceOf(call: Call | 'push'): string {
  if (call === 'push' || call.call === 'head') return 'head'
  if (call.call === 'record' || call.call === 'records') return `statuses ${call.sha}`
  return 'comments'
}

/**
 * A step: writer `index`'s call, all its reads still under way at once (`reads`), its stop (it
 * makes no more calls), or the push; named so that a failure can name the order of its steps.
 */
export interface Move {
  index: number
  call: Call | 'push' | 'reads' | 'stop'
  name: string
}

export function moveOf(index: number, call: Call | 'push' | 'reads' | 'stop'): Move {
  if (call === 'push') return { index, call, name: 'push' }
  if (call === 'reads' || call === 'stop') return { index, call, name: `${index} ${call}` }
  const on = 'sha' in call ? call.sha.slice(0, 7) : 'id' in call ? String(call.id) : ''
  return { index, call, name: `${index} ${call.call}${on ? ` ${on}` : ''}` }
}
