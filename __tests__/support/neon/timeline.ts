/*
 * Where an operation is on its timeline of statuses: by the world's time, or by how many answers
 * have held it.
 */
import type { OperationRecord, Step } from './records.ts'

export const byReads = (operation: OperationRecord) =>
  operation.timeline.some((step) => step.reads !== undefined)

/** The step the last read saw, of a timeline of `reads`, and the `failed` steps up to it. */
export function stepByReads(operation: OperationRecord): { index: number; failures: number } {
  let seen = 0
  let failures = 0
  const last = operation.timeline.length - 1
  for (let index = 0; index <= last; index++) {
    const step = operation.timeline[index]
    if (step.status === 'failed') failures++
    seen += step.reads ?? Infinity
    if ((operation.reads ?? 0) <= seen || index === last) return { index, failures }
  }
  throw new Error('empty timeline')
}

/** Where an operation is on its timeline at `now` (or, by reads, at its last read). */
export function operationState(operation: OperationRecord, now: number) {
  if (byReads(operation)) {
    const { index, failures } = stepByReads(operation)
    const enteredAt = operation.enteredAt?.[index] ?? operation.createdAt
    return { status: operation.timeline[index].status, enteredAt, endsAt: NaN, failures }
  }
  const elapsed = now - operation.createdAt
  let start = 0
  let failures = 0
  for (let i = 0; i < operation.timeline.length; i++) {
    const step = operation.timeline[i]
    if (step.status === 'failed') failures++
    const end = step.ms === undefined ? Infinity : start + step.ms
    if (elapsed < end || i === operation.timeline.length - 1) {
      return {
        status: step.status,
        enteredAt: operation.createdAt + start,
        endsAt: operation.createdAt + end,
        failures
      }
    }
    start = end
  }
  throw new Error('empty timeline')
}

/**
 * The timelines of what a create-branch request starts. By time: create_branch running for
 * `createMs`; start_compute scheduling as long, then running for `startMs`. By reads:
 * create_branch running for 2 reads (final on its third), start_compute scheduling for 2 and
 * running for 1 (final on its fourth).
 */
export function branchCreationTimelines(
  reads: boolean,
  createMs: number,
  startMs: number
): { create: Step[]; start: Step[] } {
  if (reads) {
    return {
      create: [{ status: 'running', reads: 2 }, { status: 'finished' }],
      start: [
        { status: 'scheduling', reads: 2 },
        { status: 'running', reads: 1 },
        { status: 'finished' }
      ]
    }
  }
  return {
    create: [{ status: 'running', ms: createMs }, { status: 'finished' }],
    start: [
      { status: 'scheduling', ms: createMs },
      { status: 'running', ms: startMs },
      { status: 'finished' }
    ]
  }
}
