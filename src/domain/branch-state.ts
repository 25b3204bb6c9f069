/**
 * What a branch's state means for a gate: whether queries can run on it yet. The live API's
 * `current_state`: `init` (being created) and `resetting` are not available for querying, `ready`
 * is, `archived` is but slowly; a `pending_state` means a change is on its way.
 */
import type { Branch, Compute } from './schemas.js'

export type BranchReadiness = 'ready' | 'archived' | 'not ready' | 'unknown'

const STATES = new Map<string, BranchReadiness>([
  ['ready', 'ready'],
  ['archived', 'archived'],
  ['init', 'not ready'],
  ['resetting', 'not ready']
])

export function branchReadiness(
  branch: Pick<Branch, 'current_state' | 'pending_state'>
): BranchReadiness {
  if (branch.pending_state) return 'not ready'
  // The live API always states one: a branch without it is in a state the gate cannot judge.
  if (branch.current_state == null) return 'unknown'
  return STATES.get(branch.current_state) ?? 'unknown'
}

/** Whether a compute needs nothing more: it runs, or it was suspended, with no change pending. */
export function computeSettled(compute: Pick<Compute, 'current_state' | 'pending_state'>): boolean {
  return ['idle', 'active'].includes(compute.current_state ?? '') && !compute.pending_state
}

/** Whether the gate may pass on this branch: ready, or archived (slow, but it answers). */
export function canBeQueried(branch: Pick<Branch, 'current_state' | 'pending_state'>): boolean {
  const readiness = branchReadiness(branch)
  return readiness === 'ready' || readiness === 'archived'
}
