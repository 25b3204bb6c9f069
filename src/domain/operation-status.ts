/**
 * What a status means for the wait: the contract's table, in one place. Tables keyed by API text
 * are Maps: a status such as `constructor` must not find a property of a plain object.
 */
export type StatusClass = 'success' | 'failure' | 'retrying' | 'in_flight' | 'unknown'

const CLASSES = new Map<string, StatusClass>([
  ['finished', 'success'],
  ['skipped', 'success'],
  ['cancelled', 'failure'],
  // Not in the spec, but the live API sends it.
  ['error', 'failure'],
  // The control plane retries a failed operation, so it is not final.
  ['failed', 'retrying'],
  ['scheduling', 'in_flight'],
  ['running', 'in_flight'],
  ['cancelling', 'in_flight']
])

export function classifyStatus(status: string): StatusClass {
  return CLASSES.get(status) ?? 'unknown'
}

/** Whether the wait is over for an operation in this status. */
export function isFinal(status: string, failFast: boolean): boolean {
  const statusClass = classifyStatus(status)
  return (
    statusClass === 'success' ||
    statusClass === 'failure' ||
    (failFast && statusClass === 'retrying')
  )
}

/** Finished or skipped: nothing more to wait for, and nothing went wrong. */
export function succeeded(status: string): boolean {
  return classifyStatus(status) === 'success'
}

/** Neither succeeded nor failed for good: in flight, retrying (`failed`) or of unknown status. */
export function isUnfinished(status: string): boolean {
  const statusClass = classifyStatus(status)
  return statusClass !== 'success' && statusClass !== 'failure'
}

export function isFinalFailure(status: string, failFast: boolean): boolean {
  const statusClass = classifyStatus(status)
  return statusClass === 'failure' || (failFast && statusClass === 'retrying')
}

const LABELS = new Map([
  ['finished', '✅ Finished'],
  ['skipped', '⏭️ Skipped'],
  ['cancelled', '🚫 Cancelled'],
  ['error', '❌ Error'],
  ['failed', '🔁 Failed (retrying)'],
  ['scheduling', '🕒 Scheduling'],
  ['running', '⏳ Running'],
  ['cancelling', '⏹️ Cancelling']
])

/** Under `fail_fast`, when an operation is over, and when it has failed for good: decided here only. */
export interface Finality {
  isDone(operation: { status: string }): boolean
  hasFailed(operation: { status: string }): boolean
}

export function finalityOf(failFast: boolean): Finality {
  return {
    isDone: (operation) => isFinal(operation.status, failFast),
    hasFailed: (operation) => isFinalFailure(operation.status, failFast)
  }
}

export function statusLabel(status: string): string {
  return LABELS.get(status) ?? `❔ ${status}`
}
