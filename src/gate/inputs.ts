/*
 * The gate's inputs, one schema for both front ends: what each accepts, its default and its
 * problems, worded with the names the front end gives them (InputNaming). A front end's own inputs
 * (the action's for the pull request) are its own schema, checked beside these (OwnInputs).
 */
import { z } from 'zod'
import { InputError } from '../domain/errors.js'
import { refusesEmpty } from '../domain/input-catalog.js'
import { INPUT_NAMES, type InputName, type InputNaming } from '../domain/input-naming.js'
import { DATABASE_INPUTS } from '../steps/database/database-step.js'
import { PROJECTS_INPUTS } from '../steps/projects/projects-step.js'
import {
  checkBefore,
  ignoredBeforeTeardown,
  TEARDOWN_INPUTS
} from '../steps/teardown/teardown-input.js'
import {
  API_KEY_PATTERN,
  apiHostInput,
  booleanInput,
  BRANCH_PATTERN,
  DEFAULT_TIMEOUT,
  durationInput,
  ID_PATTERN,
  idInput,
  MAX_API_KEY_CHARS,
  MAX_INTERVAL_MS,
  MAX_TIMEOUT_MS,
  operationIdsInput,
  quotedAsGiven,
  QUOTED_KEY,
  refusingEmpty,
  type ShowValue
} from '../domain/input-fields.js'

const timeoutInput = (show: ShowValue) =>
  durationInput(DEFAULT_TIMEOUT, MAX_TIMEOUT_MS, '5 days (120h)', show)

/** Each input of the catalog on its own: what it accepts, its default, and what is wrong with it. */
function inputFields(naming: InputNaming) {
  return {
    api_key: z
      .string()
      .transform((raw) => raw.trim())
      .refine((key) => key !== '', 'required; pass the API key secret')
      .refine(
        (key) => !QUOTED_KEY.test(key),
        'is wrapped in quotes, which are not part of an API key (a secret stored as "napi_…" or \'napi_…\'); store the key without them'
      )
      .refine(
        (key) => key === '' || API_KEY_PATTERN.test(key),
        'contains spaces, line breaks or characters an HTTP header cannot carry; pass the API key exactly as the console showed it'
      )
      .refine(
        (key) => key.length <= MAX_API_KEY_CHARS,
        `is longer than ${MAX_API_KEY_CHARS} characters, which no API key is: a wrong file or variable?`
      ),
    project_id: idInput(ID_PATTERN, 'a project id matching ^[a-z0-9-]{1,60}$'),
    operation_id: refusingEmpty(
      operationIdsInput(
        naming.mention('operation_id'),
        `${naming.mention('project_id')}, ${naming.mention('branch_id')}`
      ),
      `leave ${naming.mention('operation_id')} out to gate the project or a branch`
    ).transform((ids) => ids ?? []),
    branch_id: refusingEmpty(
      idInput(
        BRANCH_PATTERN,
        'a branch id (br-…) or a branch name of at most 256 visible characters'
      ),
      `leave ${naming.mention('branch_id')} out to gate the whole project`
    ),
    ...PROJECTS_INPUTS,
    wait: booleanInput(true),
    interval: durationInput('5s', MAX_INTERVAL_MS, '1h'),
    timeout: timeoutInput(quotedAsGiven),
    fail_fast: booleanInput(false),
    api_host: apiHostInput,
    database_url: refusingEmpty(
      DATABASE_INPUTS.database_url,
      `leave ${naming.mention('database_url')} out for no database check`
    ),
    before: refusingEmpty(
      TEARDOWN_INPUTS.before,
      `leave ${naming.mention('before')} out for the gate the other inputs ask for`
    )
  } satisfies Record<InputName, z.ZodType<unknown, string | undefined>>
}

type Fields = z.output<z.ZodObject<ReturnType<typeof inputFields>>>

/** What the inputs must be together. */
function checkTogether(inputs: Fields, ctx: z.RefinementCtx, naming: InputNaming): void {
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
    .transform((inputs) => ({
      apiKey: inputs.api_key,
      projectId: inputs.project_id,
      operationIds: inputs.operation_id,
      branchId: inputs.branch_id,
      listProjects: inputs.list_projects,
      orgId: inputs.org_id,
      wait: inputs.wait,
      intervalMs: inputs.interval,
      timeoutMs: inputs.timeout,
      failFast: inputs.fail_fast,
      apiHost: inputs.api_host,
      database: inputs.database_url,
      before: inputs.before
    }))
}

export type Inputs = z.output<ReturnType<typeof inputsSchema>>

/**
 * Inputs that are accepted but ignored in this combination, worth a warning: only those whose
 * absence takes no check away (parseInputs refuses the others).
 */
export function ignoredInputWarnings(inputs: Inputs, naming: InputNaming): string[] {
  const { mention } = naming
  const warnings = ignoredBeforeTeardown(inputs, naming)
  if (inputs.orgId && !inputs.listProjects) {
    warnings.push(`${mention('org_id')} is ignored without ${naming.enabled('list_projects')}`)
  }
  return warnings
}

/** A front end's own inputs, by name, and their schema: read and checked with the shared ones. */
export interface OwnInputs<Name extends string, Own> {
  names: readonly Name[]
  schema: z.ZodType<Own, Record<Name, string>>
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
