/*
 * The teardown's input, `before`: its entry in the input catalog (what it accepts), what it needs
 * beside it, and what it makes the gate ignore.
 */
import { z } from 'zod'
import { type InputEntry, NOT_GIVEN } from '../../domain/input-catalog.js'
import { refusingEmpty } from '../../domain/input-fields.js'
import type { InputNaming } from '../../domain/input-naming.js'
import { TEARDOWN_ACTIONS, type TeardownAction } from './teardown-action.js'

/** The teardown to check for. */
const teardownAction = z.string().transform((raw, ctx) => {
  const text = raw.trim()
  const action = TEARDOWN_ACTIONS.find((name) => name === text.toLowerCase())
  if (action) return action
  // Quoted as given: a value folded in case would slip past the redactor.
  ctx.addIssue({ code: 'custom', message: `"${text}" is not one of delete, reset` })
  return z.NEVER
})

/** Its input in the catalog: `before`. */
export const TEARDOWN_INPUTS = {
  before: {
    typed: 'before',
    schema: (naming) =>
      refusingEmpty(
        teardownAction,
        `leave ${naming.mention('before')} out for the gate the other inputs ask for`
      ),
    refusesEmpty: true,
    command: { flag: { name: 'before', gate: true } },
    help: {
      part: 'what',
      flags: [
        [
          '--before delete|reset',
          'before a teardown of --branch-id: wait until the whole project',
          'is idle, then check that the branch can be deleted (or reset to',
          'its parent) now: exit 1 when something blocks it, 0 when it is',
          'clear or, for delete, already gone'
        ]
      ]
    },
    docs: {
      default: NOT_GIVEN,
      summary: '`delete` or `reset`: can `branch_id` go now? (a teardown)',
      description:
        'delete or reset (to its parent): before a teardown of branch_id, wait until the whole project is idle (not for the branch to be ready), then check that the branch can be deleted or reset now. Blocked (root, default, protected, child branches, restricted_actions) fails the step; a branch already gone passes a delete, but a name only near one (preview/12 or preview/pr-012 for preview/pr-12) fails the step. Needs project_id and branch_id; database_url and fail_fast are ignored. Its default, (not given), means left out.'
    }
  }
} as const satisfies Record<string, InputEntry>

/** The inputs `before` is checked with, as the schema reads them. */
interface BeforeFields {
  before?: TeardownAction
  project_id?: string
  branch_id?: string
  operation_id: string[]
}

/**
 * `before` checks one branch of a project once the whole project is idle: it needs both, and no
 * operations of its own.
 */
export function checkBefore(
  inputs: BeforeFields,
  ctx: z.RefinementCtx,
  { mention }: InputNaming
): void {
  const before = `${mention('before')} ${inputs.before ?? ''}`
  if (!inputs.project_id) {
    ctx.addIssue({
      code: 'custom',
      path: ['project_id'],
      message: `required with ${before}; give the project of the branch`
    })
  }
  if (!inputs.branch_id) {
    ctx.addIssue({
      code: 'custom',
      path: ['branch_id'],
      message: `required with ${before}; give the branch to check (an id, br-…, or its name)`
    })
  }
  if (inputs.operation_id.length > 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['operation_id'],
      message: `cannot be combined with ${before}, which waits until the whole project is idle; leave it out`
    })
  }
}

/** What `before` makes the gate ignore, worth a warning. */
export function ignoredBeforeTeardown(
  inputs: { before?: TeardownAction; database?: unknown; failFast: boolean },
  { mention }: InputNaming
): string[] {
  if (!inputs.before) return []
  const warnings: string[] = []
  if (inputs.database) {
    warnings.push(
      `${mention('database_url')} is ignored with ${mention('before')}: a branch about to be deleted or reset is not queried`
    )
  }
  if (inputs.failFast) {
    warnings.push(
      `${mention('fail_fast')} is ignored with ${mention('before')}: the gate waits until the project is idle, and a failure is no reason to stop a teardown`
    )
  }
  return warnings
}
