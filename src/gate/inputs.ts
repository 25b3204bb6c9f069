/*
 * The gate's inputs, one schema for both front ends: what each accepts, its default and its
 * problems, worded with the names the front end gives them (InputNaming). A front end's own inputs
 * (the action's for the pull request) are its own schema, checked beside these (OwnInputs).
 */
import { z } from 'zod'
import { InputError } from '../domain/errors.js'
import { quotedAsGiven, refusingEmpty, timeoutInput } from '../domain/input-fields.js'
import type { InputNaming } from '../domain/input-naming.js'
import { checkSweep, checkWithoutSweep, ignoredBySweep } from '../steps/sweep/sweep-input.js'
import { checkBefore, ignoredBeforeTeardown } from '../steps/teardown/teardown-input.js'
import {
  defaultValue,
  INPUT_CATALOG,
  INPUT_NAMES,
  type InputName,
  refusesEmpty
} from './input-catalog.js'

type Catalog = typeof INPUT_CATALOG

/** Each input of the catalog on its own: its schema, worded as the front end names inputs. */
function inputFields(naming: InputNaming) {
  return Object.fromEntries(INPUT_NAMES.map((name) => [name, inputField(name, naming)])) as {
    [N in InputName]: ReturnType<Catalog[N]['schema']>
  }
}

/**
 * An input's schema; with a default that is a value, given empty or as white space alone it is an
 * input error, and not given (undefined) it is that default.
 */
function inputField(name: InputName, naming: InputNaming): z.ZodType<unknown, string | undefined> {
  const schema = INPUT_CATALOG[name].schema(naming) as z.ZodType<unknown, string>
  const value = defaultValue(name)
  if (value === undefined) return schema
  return refusingEmpty(schema, `leave ${naming.mention(name)} out for ${value}`).transform(
    (typed) => typed ?? schema.parse(value)
  )
}

type Fields = z.output<z.ZodObject<ReturnType<typeof inputFields>>>

/** What the inputs must be together. */
function checkTogether(inputs: Fields, ctx: z.RefinementCtx, naming: InputNaming): void {
  if (inputs.sweep) return checkSweep(inputs, ctx, naming)
  checkWithoutSweep(inputs, ctx, naming)
  if (inputs.before) return checkBefore(inputs, ctx, naming)
  if (inputs.operation_id.length > 0 && !inputs.project_id) {
    ctx.addIssue({
      code: 'custom',
      path: ['project_id'],
      message: `required with ${naming.mention('operation_id')}; give the project the operations belong to`
    })
  }
  checkIgnoredToTheGatesLoss(inputs, ctx, naming)
  if (!inputs.project_id && !inputs.list_projects && inputs.operation_id.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['project_id'],
      message: `required; give ${naming.mention('project_id')} to wait for operations, or set ${naming.enabled('list_projects')}`
    })
  }
}

/**
 * An input that another would make the gate ignore, to its loss, is refused rather than warned
 * about: `branch_id` beside `operation_id` (the branch's readiness would go unchecked), and a gate's
 * input beside `list_projects` with no project (only the projects would be listed, and exit 0).
 */
function checkIgnoredToTheGatesLoss(
  inputs: Fields,
  ctx: z.RefinementCtx,
  { mention, enabled }: InputNaming
): void {
  if (inputs.branch_id && inputs.operation_id.length > 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['branch_id'],
      message: `cannot be combined with ${mention('operation_id')}: only the listed operations would be waited for, and the branch's readiness never checked; give ${mention('branch_id')} alone to gate the branch, or ${mention('operation_id')} alone`
    })
  }
  if (inputs.project_id || !inputs.list_projects) return
  const unchecked = {
    branch_id: inputs.branch_id && 'the branch would never be checked',
    database_url: inputs.database_url && 'the database would never be queried'
  }
  for (const [name, loss] of Object.entries(unchecked)) {
    if (!loss) continue
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: `needs ${mention('project_id')}: with ${enabled('list_projects')} and no project, only the projects are listed and ${loss}; give the project, or leave ${mention(name as 'branch_id' | 'database_url')} out`
    })
  }
}

function inputsSchema(naming: InputNaming) {
  return z
    .object(inputFields(naming))
    .superRefine((inputs, ctx) => checkTogether(inputs, ctx, naming))
    .transform(
      (inputs) =>
        Object.fromEntries(
          INPUT_NAMES.map((name) => [INPUT_CATALOG[name].typed, inputs[name]])
        ) as Inputs
    )
}

/** The inputs by their typed names (the catalog's `typed`), as their schemas give them. */
export type Inputs = {
  [N in InputName as Catalog[N]['typed']]: z.output<ReturnType<Catalog[N]['schema']>>
}

/**
 * Inputs that are accepted but ignored in this combination, worth a warning: only those whose
 * absence takes no check away (parseInputs refuses the others).
 */
export function ignoredInputWarnings(inputs: Inputs, naming: InputNaming): string[] {
  const { mention } = naming
  const warnings = [...ignoredBeforeTeardown(inputs, naming), ...ignoredBySweep(inputs, naming)]
  if (inputs.orgId && !inputs.listProjects) {
    warnings.push(`${mention('org_id')} is ignored without ${naming.enabled('list_projects')}`)
  }
  return warnings
}

/** A front end's own inputs, by name, and their schema: read and checked with the shared ones. */
export interface OwnInputs<Name extends string, Own> {
  names: readonly Name[]
  schema: z.ZodType<Own, Partial<Record<Name, string>>>
}

/**
 * Reads and validates every input (with `own`, the front end's own too) before any request; an
 * input `readInput` gives no value for (undefined) is not given. Throws one InputError that names
 * each bad input as its front end calls it, and what it accepts.
 */
export function parseInputs<Name extends string = never, Own extends object = object>(
  readInput: (name: InputName | Name) => string | undefined,
  naming: InputNaming<InputName | Name>,
  own?: OwnInputs<Name, Own>
): Inputs & Own {
  const read = <N extends string>(names: readonly N[]) =>
    Object.fromEntries(
      names.map((name) => {
        const value = readInput(name as InputName | Name)
        // Not given: undefined where an empty value is refused, else '' as before.
        return [name, value ?? (refusesEmpty(name) ? undefined : '')]
      })
    )
  const shared = inputsSchema(naming).safeParse(read(INPUT_NAMES))
  const frontEnds = own?.schema.safeParse(read(own.names))
  const problems = [shared, frontEnds].flatMap((parsed) =>
    parsed ? problemsOf(parsed, naming) : []
  )
  if (problems.length > 0 || !shared.success) throw invalidInput(problems)
  return { ...shared.data, ...(frontEnds?.data as Own) }
}

/**
 * The timeout alone, checked as parseInputs checks it: the command reads its secrets within it,
 * before the rest can be checked with them. `quote: false`: its problems do not repeat the value
 * (a secret not known to the redactor yet could stand there by mistake).
 */
export function parseTimeout(raw: string, naming: InputNaming, quote = true): number {
  const schema = z.object({ timeout: timeoutInput(quote ? quotedAsGiven : () => 'the value') })
  return parsedOrThrown(schema, { timeout: raw }, naming).timeout
}

function parsedOrThrown<T>(schema: z.ZodType<T>, raw: unknown, naming: InputNaming): T {
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  throw invalidInput(problemsOf(parsed, naming))
}

/** Each problem of a parse, at the start the input it is about as the front end names it. */
function problemsOf<Name extends string>(
  parsed: z.ZodSafeParseResult<unknown>,
  naming: InputNaming<Name>
): string[] {
  if (parsed.success) return []
  return parsed.error.issues.map(
    (issue) => `${naming.label(issue.path[0] as Name)}: ${issue.message}`
  )
}

function invalidInput(problems: string[]): InputError {
  return new InputError(`Invalid input: ${problems.join('; ')}`)
}
