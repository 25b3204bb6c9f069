/*
 * The input catalog: every input of the gate, one entry each (domain/input-catalog.ts says what an
 * entry holds), the core's and each step's, in the contract's order (action.yml's). The typed
 * inputs (inputs.ts), the command's flags and help, the secrets to redact and the docs' input
 * tables (npm run docs) are derived from it.
 */
import { CORE_INPUTS } from '../domain/core-inputs.js'
import { type InputEntry, NOT_GIVEN } from '../domain/input-catalog.js'
import { DATABASE_INPUTS } from '../steps/database/database-step.js'
import { PROJECTS_INPUTS } from '../steps/projects/projects-step.js'
import { SWEEP_INPUTS } from '../steps/sweep/sweep-input.js'
import { TEARDOWN_INPUTS } from '../steps/teardown/teardown-input.js'

const { api_key, project_id, operation_id, branch_id, ...how } = CORE_INPUTS

export const INPUT_CATALOG = {
  api_key,
  project_id,
  operation_id,
  branch_id,
  ...PROJECTS_INPUTS,
  ...how,
  ...DATABASE_INPUTS,
  ...TEARDOWN_INPUTS,
  ...SWEEP_INPUTS
}

export type InputName = keyof typeof INPUT_CATALOG

/** Every input by name, in the catalog's order. */
export const INPUT_NAMES = Object.keys(INPUT_CATALOG) as InputName[]

/** Each entry, typed as an entry (the catalog's literal types are for its names). */
export const inputEntries = (): [InputName, InputEntry][] =>
  Object.entries(INPUT_CATALOG) as [InputName, InputEntry][]

export const inputEntry = (name: InputName): InputEntry => INPUT_CATALOG[name]

/**
 * action.yml's default when it is a value (`false`, `10m`, the API's address). The runner sets it
 * only when the workflow does not give the input, so given as '' or white space alone (an
 * expression that came out empty), the input is an error, never this default.
 */
export function defaultValue(name: string): string | undefined {
  const value = Object.hasOwn(INPUT_CATALOG, name) && inputEntry(name as InputName).docs.default
  return value && value !== NOT_GIVEN ? value : undefined
}

/**
 * Given empty, an input error (`refusesEmpty`, or a default that is a value): its "not given" is
 * undefined, never ''.
 */
export const refusesEmpty = (name: string): boolean =>
  Object.hasOwn(INPUT_CATALOG, name) &&
  (inputEntry(name as InputName).refusesEmpty === true || defaultValue(name) !== undefined)
