/*
 * The sweep's inputs (issue 69): `sweep`, `older_than` and `fail_on_stale`, their entries in the
 * input catalog, and what a sweep cannot be combined with: it is a gate of its own, which reads a
 * project's branches and waits for nothing.
 */
import type { z } from 'zod'
import { booleanInput, refusingEmpty } from '../../domain/input-fields.js'
import { type InputEntry, NOT_GIVEN } from '../../domain/input-catalog.js'
import type { InputNaming } from '../../domain/input-naming.js'
import { olderThanInput } from '../../domain/sweep-age.js'
import { type SweepPattern, sweepPatternInput } from '../../domain/sweep-pattern.js'

/** Its inputs in the catalog. */
export const SWEEP_INPUTS = {
  sweep: {
    typed: 'sweep',
    schema: (naming) =>
      refusingEmpty(sweepPatternInput, `leave ${naming.mention('sweep')} out for another gate`),
    refusesEmpty: true,
    command: { flag: { name: 'match', gate: true } },
    help: {
      part: 'what',
      flags: [
        [
          '--match PATTERN',
          'with neon-gate sweep: list the stale branches whose names match',
          'PATTERN: * within a name part (preview/*), {pr} for a',
          'pull-request number; reads every page of branches, waits for',
          'nothing, deletes nothing'
        ]
      ]
    },
    docs: {
      default: NOT_GIVEN,
      summary: 'A branch-name pattern: list its stale branches (a sweep)',
      description:
        'A branch-name pattern (preview/* or preview/pr-{pr}): list every matching branch that is stale, and wait for nothing. * matches within one name part; {pr} stands for a pull-request number, whose state is read from GitHub. Needs project_id; see docs/sweep.md.'
    }
  },
  older_than: {
    typed: 'olderThanMs',
    // Not given stays undefined (a sweep reads it as DEFAULT_OLDER_THAN_MS): given without a sweep
    // is refused (checkWithoutSweep).
    schema: (naming) =>
      refusingEmpty(olderThanInput, `leave ${naming.mention('older_than')} out for 7d`),
    refusesEmpty: true,
    command: { flag: { name: 'older-than' } },
    help: {
      part: 'what',
      flags: [['--older-than AGE', 'with sweep: stale after this long without activity (7d)']]
    },
    docs: {
      default: NOT_GIVEN,
      summary: 'With `sweep`: stale after this long inactive; not given: 7d',
      description:
        'With sweep: a matching branch with no activity for this long is stale. A number with a unit: m, h, d or w (7d, 36h, 2w). Its default, (not given), means 7d. It fails the step given without sweep.'
    }
  },
  fail_on_stale: {
    typed: 'failOnStale',
    schema: () => booleanInput(false),
    command: { flag: { name: 'fail-on-stale', boolean: true } },
    help: {
      part: 'what',
      flags: [
        [
          '--fail-on-stale',
          'with sweep: exit 1 when a stale branch is found, and 3 when some',
          'branch could not be judged or the list was cut'
        ]
      ]
    },
    docs: {
      default: 'false',
      summary: 'With `sweep`: fail while a stale branch is found',
      description:
        'With sweep: the outcome is failure while any stale branch is found. With none found, a branch that could not be judged or a list cut at its page cap is an error, never a pass. True without sweep fails the step.'
    }
  }
} as const satisfies Record<string, InputEntry>

/** The inputs a sweep is checked with, as the schema reads them. */
interface SweepFields {
  sweep?: SweepPattern
  project_id?: string
  branch_id?: string
  operation_id: string[]
  before?: unknown
  database_url?: unknown
  list_projects: boolean
}

/** What each input a sweep cannot take would ask for instead. */
const NOT_WITH_SWEEP = {
  branch_id: 'a sweep reads every branch that matches; it gates none',
  operation_id: 'a sweep waits for no operation',
  before: 'a sweep only lists; the teardown check is a gate of its own',
  database_url: 'a sweep queries no database',
  list_projects: 'a sweep reads the branches of one project'
} as const

/** A sweep needs its project, and none of the inputs of another gate. */
export function checkSweep(
  inputs: SweepFields,
  ctx: z.RefinementCtx,
  { mention }: InputNaming
): void {
  if (!inputs.project_id) {
    ctx.addIssue({
      code: 'custom',
      path: ['project_id'],
      message: `required with ${mention('sweep')}; give the project whose branches to sweep`
    })
  }
  for (const [name, why] of Object.entries(NOT_WITH_SWEEP)) {
    const value = inputs[name as keyof typeof NOT_WITH_SWEEP]
    if (!value || (Array.isArray(value) && value.length === 0)) continue
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: `cannot be combined with ${mention('sweep')}: ${why}; leave it out`
    })
  }
}

/**
 * The sweep's own inputs without a sweep (review L3): `older_than` given, or `fail_on_stale` true.
 * Refused, never ignored: a sweep forgotten (`--older-than 7d --fail-on-stale` without `sweep`) would
 * run another gate, which passes. `fail_on_stale: false` asks for nothing (it is the default, which
 * the action cannot tell from a value given).
 */
export function checkWithoutSweep(
  inputs: { older_than?: number; fail_on_stale: boolean },
  ctx: z.RefinementCtx,
  { mention }: InputNaming
): void {
  const given = { older_than: inputs.older_than !== undefined, fail_on_stale: inputs.fail_on_stale }
  for (const [name, isGiven] of Object.entries(given)) {
    if (!isGiven) continue
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: `only a sweep reads it, and without ${mention('sweep')} none runs: another gate would run and could pass; give ${mention('sweep')}, or leave it out`
    })
  }
}

/** What a sweep ignores, worth a warning. */
export function ignoredBySweep(
  inputs: { sweep?: SweepPattern; failFast: boolean },
  { mention }: InputNaming
): string[] {
  if (inputs.sweep && inputs.failFast) {
    return [
      `${mention('fail_fast')} is ignored with ${mention('sweep')}: a sweep waits for nothing`
    ]
  }
  return []
}
