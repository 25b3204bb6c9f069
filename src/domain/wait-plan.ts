/*
 * The wait as the gate's plan decides it once from the inputs (src/gate/plan.ts): what it covers,
 * whether `failed` is final, and what a step after it makes it say. wait/ and report/ read it, and
 * never the inputs that shaped it: a step shapes it through its hook (src/steps/step.ts).
 */

export interface WaitPlan {
  /**
   * `operations`: those `operation_id` names; `branch`: one branch's operations, then its
   * readiness; `project`: every operation of the project; `idle project`: the whole project until
   * it is idle, for the sake of a step after it, so that a failure ends no wait.
   */
  covers: 'operations' | 'branch' | 'project' | 'idle project'
  /** `fail_fast`: the first `failed` is a final failure. */
  failFast: boolean
  /** What comes after a success, when a step does: the wait ends saying so, not `outcome: success`. */
  next?: string
  /** With `idle project`: the step's words for it. */
  idle?: IdleWords
}

/** What the step an idle project is waited for says of it. */
interface IdleWords {
  /** For whose sake, at the start of the gate's line and the log's: `before a delete`. */
  for: string
  /** What the idle project leads to, in the gate's line: `whether the branch can go`. */
  then: string
  /** Why a failure stops nothing, beside each one warned about. */
  failuresWhy: string
  /** Cut short with nothing in flight: what was left unchecked. */
  unchecked: string
}
