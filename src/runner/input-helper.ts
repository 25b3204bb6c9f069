import { CONTRACT_NAMING, type InputName, type InputNaming } from '../domain/input-naming.js'
import { type Inputs, parseInputs } from '../gate/inputs.js'

/** The action names its inputs as action.yml does. */
export const ACTION_INPUT_NAMING: InputNaming = CONTRACT_NAMING

/** Reads and validates every input of the action before any request (one InputError for all). */
export function getInputs(readInput: (name: InputName) => string): Inputs {
  return parseInputs(readInput, ACTION_INPUT_NAMING)
}
