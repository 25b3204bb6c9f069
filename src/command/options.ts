/*
 * The command's flags for node:util's parseArgs: each input's flag and each secret's file flag, from
 * the input catalog, then what only a command has (the output, the files for CI, help).
 */
import type { ParseArgsOptionsConfig } from 'node:util'
import { INPUT_CATALOG, inputEntries, inputEntry, type InputName } from '../gate/input-catalog.js'

const COMMAND_OPTIONS = {
  output: { type: 'string' },
  summary: { type: 'string' },
  dotenv: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' }
} satisfies ParseArgsOptionsConfig

type Command<N extends InputName> = (typeof INPUT_CATALOG)[N]['command']

/** The option of each input's flag and of each secret's file, typed from the catalog. */
type InputOptions = {
  [
    N in InputName as Command<N> extends { flag: { name: infer F extends string } } ? F : never
  ]: Command<N> extends { flag: { boolean: true } }
    ? { type: 'boolean' }
    : Command<N> extends { flag: { multiple: true } }
      ? { type: 'string'; multiple: true }
      : { type: 'string' }
} & {
  [N in InputName as Command<N> extends { file: infer F extends string } ? F : never]: {
    type: 'string'
  }
}

function inputOptions(): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = {}
  for (const [, { command }] of inputEntries()) {
    const { flag, file } = command
    if (flag?.boolean) options[flag.name] = { type: 'boolean' }
    else if (flag) options[flag.name] = { type: 'string', ...(flag.multiple && { multiple: true }) }
    if (file) options[file] = { type: 'string' }
  }
  return options
}

/** Every flag of the command, by name without its dashes. */
export const OPTIONS = { ...inputOptions(), ...COMMAND_OPTIONS } as InputOptions &
  typeof COMMAND_OPTIONS

/**
 * The flags that ask for a gate (an input's that does, and the file that holds it): with any of
 * them, NEON_PROJECT_ID is the project; only `--list-projects` without them ignores it.
 */
export const GATE_FLAGS = inputEntries().flatMap(([, { command }]) =>
  command.flag?.gate ? [command.flag.name, ...(command.file ? [command.file] : [])] : []
)

/** An input's flag as typed: `--project-id` (a secret without a flag: its contract name). */
export const flagOf = (name: InputName): string =>
  `--${inputEntry(name).command.flag?.name ?? name}`

/** An input's value in its environment variable, when it has one (NEON_API_KEY, NEON_PROJECT_ID). */
export function variableValue(
  name: InputName,
  env: Record<string, string | undefined>
): string | undefined {
  const { env: variable } = inputEntry(name).command
  return variable === undefined ? undefined : env[variable]
}
