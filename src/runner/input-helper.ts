import { type InputName, type InputNaming, type Inputs, parseInputs } from '../gate/inputs.js'

/** The action names its inputs as action.yml does. */
export const ACTION_INPUT_NAMING: InputNaming = {
  label: (name) => `input "${name}"`,
  mention: (name) => name,
  enabled: (name) => `${name}: true`
}

/** Reads and validates every input of the action before any request (one InputError for all). */
export function getInputs(readInput: (name: InputName) => string): Inputs {
  return parseInputs(readInput, ACTION_INPUT_NAMING)
}
