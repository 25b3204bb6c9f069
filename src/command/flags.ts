/*
 * The command's flags, read with node:util's parseArgs: the gate's inputs in kebab-case, and what
 * only a command has (where the key comes from, the output, the files for CI). Secrets never come
 * from a flag's value: a flag shows in `ps` and in shell history.
 */
import { parseArgs } from 'node:util'
import type { InputNaming } from '../domain/input-naming.js'
import { inputEntries, inputEntry, type InputName } from '../gate/input-catalog.js'
import { flagOf, GATE_FLAGS, OPTIONS } from './options.js'
import { type ResultTargets, summaryTarget } from './result-targets.js'

/** Bad flags or input: the command's usage error (exit code 2), naming the flag as typed. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** What the command was asked to do, before any secret is read. */
export interface CommandRequest {
  /** The gate's inputs as text, the way the action's inputs are; secrets not read yet. */
  values: Partial<Record<InputName, string>>
  /** How each input is named back to the user: the flag as typed, or the variable it came from. */
  naming: InputNaming<InputName>
  /** Where the key comes from: a file (`-`: standard input), else NEON_API_KEY. */
  apiKeyFile?: string
  databaseUrlFile?: string
  output: 'text' | 'json'
  quiet: boolean
  /** The job summary's Markdown; `append` inside GitHub Actions, where the step's file is shared. */
  summary?: ResultTargets['summary']
  dotenvFile?: string
}

export type ParsedCommand = { help: true } | { version: true } | { request: CommandRequest }

/**
 * An unknown flag is named only when it looks like one: what is not (`--napi_…`, a long token) may
 * be a secret given by mistake, and this error comes before every secret is known to the redactor.
 */
const FLAG_SHAPE = /^--?[A-Za-z][A-Za-z0-9-]{0,39}$/

/** Node's words for a bad command line, as our own: the flag, and where to look; never a value. */
function usageError(error: unknown): UsageError {
  const { code, message } = error as { code?: string; message: string }
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? ''
  const flag = quoted.split(' ')[0]
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(
        FLAG_SHAPE.test(flag)
          ? `unknown flag ${flag}`
          : 'an unknown flag (not repeated here, in case it is a secret)'
      )
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      if (quoted === 'sweep') {
        return new UsageError(
          'sweep must come first: neon-gate sweep --match PATTERN, then the other flags'
        )
      }
      // Not quoted: it may be a secret given by mistake (neon-gate "$NEON_API_KEY").
      return new UsageError(
        'an argument without its flag: every value follows its flag, as --project-id ID (the argument is not repeated here, in case it is a secret)'
      )
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (message.includes('does not take an argument')) {
        return new UsageError(
          `${flag} takes no value (turn it off with --no-${flag.replace(/^--(no-)?/, '')})`
        )
      }
      // Followed by another flag, or by a value that starts with a dash.
      return new UsageError(
        message.includes('ambiguous')
          ? `${flag} needs a value; one that starts with a dash goes as ${flag}=-…`
          : `${flag} needs a value`
      )
    default:
      return new UsageError(message)
  }
}

/** Flags that take a value (the rest are switches). */
const VALUE_FLAGS = new Set(
  Object.entries(OPTIONS)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => `--${name}`)
)

/** Flags that take one value: all but --operation-id, which repeats. */
const SINGLE_VALUE_FLAGS = new Set(
  Object.entries(OPTIONS)
    .filter(([, option]) => option.type === 'string' && !('multiple' in option))
    .map(([name]) => name)
)

/**
 * `--timeout -5` as `--timeout=-5`: parseArgs takes a value that starts with a dash for a flag,
 * but a negative number is a value given, which the flag's own check then refuses as such.
 */
function negativeValuesJoined(argv: string[]): string[] {
  const joined: string[] = []
  for (const arg of argv) {
    const previous = joined.at(-1)
    if (previous !== undefined && VALUE_FLAGS.has(previous) && /^-\d/.test(arg)) {
      joined[joined.length - 1] = `${previous}=${arg}`
    } else {
      joined.push(arg)
    }
  }
  return joined
}

export function parseCommandLine(
  argv: string[],
  env: Record<string, string | undefined>
): ParsedCommand {
  // `neon-gate sweep --match PATTERN`: the sweep is a command of its own, its pattern its flag.
  const sweep = argv[0] === 'sweep'
  let parsed: Parsed
  try {
    parsed = parseArgs({
      args: negativeValuesJoined(sweep ? argv.slice(1) : argv),
      options: OPTIONS,
      tokens: true,
      allowNegative: true
    })
  } catch (error) {
    throw usageError(error)
  }
  const { values: flags, tokens } = parsed
  if (flags.help) return { help: true }
  if (flags.version) return { version: true }
  checkFlagValues(tokens)
  const { values, labels } = inputValues(flags, tokens, env)
  checkSweepCommand(sweep, values.sweep)
  checkSecretSources(flags)
  const output = flags.output ?? 'text'
  if (output !== 'text' && output !== 'json') {
    // Not quoted: a secret given by mistake is not known to the redactor yet.
    throw new UsageError('--output: not one of text, json (the value is not repeated here)')
  }
  return {
    request: {
      values,
      naming: {
        label: (name) => labels.get(name) ?? flagOf(name),
        // A secret by where it comes from (NEON_API_KEY, --api-key-file): it has no flag of its own.
        mention: (name) => (inputEntry(name).secret && labels.get(name)) || flagOf(name),
        enabled: flagOf
      },
      apiKeyFile: flags['api-key-file'],
      databaseUrlFile: flags['database-url-file'],
      output,
      quiet: flags.quiet ?? false,
      summary: summaryTarget(flags.summary, env),
      dotenvFile: flags.dotenv
    }
  }
}

/**
 * An empty value is an unset variable in a script, not a choice of the default. A flag of one
 * value given twice would be last-wins: a wrapper's `--branch-id "$A" "$@"` would check another
 * branch than the one its next step deletes, and a second `--dotenv` would leave the first file
 * claiming an earlier run's outcome. Only --operation-id repeats.
 */
function checkFlagValues(tokens: Parsed['tokens']): void {
  const seen = new Set<string>()
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    if (token.value !== undefined && token.value.trim() === '') {
      throw new UsageError(
        `${token.rawName}: an empty value (an unset variable?); give one, or leave the flag out`
      )
    }
    if (seen.has(token.name)) {
      throw new UsageError(
        `--${token.name} is given twice: it takes one value, and only one would be used; give it once`
      )
    }
    if (SINGLE_VALUE_FLAGS.has(token.name)) seen.add(token.name)
  }
}

/** `--match` is the sweep's, and the sweep needs it. */
function checkSweepCommand(sweep: boolean, match: string | undefined): void {
  if (sweep && match === undefined) {
    throw new UsageError('neon-gate sweep needs --match PATTERN (preview/*, preview/pr-{pr})')
  }
  if (!sweep && match !== undefined) {
    throw new UsageError('--match belongs to the sweep: run neon-gate sweep --match PATTERN')
  }
}

/** Each secret from one place: the database URL by its flag or its file, standard input for one. */
function checkSecretSources(flags: Parsed['values']): void {
  if (flags['database-url'] !== undefined && flags['database-url-file'] !== undefined) {
    throw new UsageError('give --database-url or --database-url-file, not both')
  }
  if (flags['api-key-file'] === '-' && flags['database-url-file'] === '-') {
    throw new UsageError(
      'standard input can hold one secret: --api-key-file - and --database-url-file - cannot both read it'
    )
  }
}

type Parsed = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; tokens: true }>>

/**
 * The gate's inputs as text, from their flags or else their variables, and the name each came by:
 * the flag as the user typed it (`--no-wait`; the last, where a flag is repeated), or the variable.
 */
function inputValues(
  flags: Parsed['values'],
  tokens: Parsed['tokens'],
  env: Record<string, string | undefined>
): { values: Partial<Record<InputName, string>>; labels: Map<InputName, string> } {
  const typed = new Map<string, string>()
  for (const token of tokens) {
    if (token.kind === 'option') typed.set(token.name, token.rawName.replace(/=.*$/, ''))
  }
  const values: Partial<Record<InputName, string>> = {}
  const labels = new Map<InputName, string>()
  // NEON_PROJECT_ID is the project to gate, but --list-projects alone only lists.
  const onlyLists = flags['list-projects'] && !GATE_FLAGS.some((flag) => typed.has(flag))
  for (const [name, { command }] of inputEntries()) {
    const { flag, env: variable, file } = command
    const given = flag && flags[flag.name as keyof typeof flags]
    if (flag && given !== undefined) {
      values[name] = Array.isArray(given) ? given.join(',') : String(given)
      labels.set(name, typed.get(flag.name) ?? `--${flag.name}`)
    } else if (flag && variable && env[variable] && !(name === 'project_id' && onlyLists)) {
      values[name] = env[variable]
      labels.set(name, variable)
    }
    // A secret is named by where it comes from: its file as typed, else its flag or variable.
    const from = (file && typed.get(file)) || labels.get(name) || variable
    if (file && from) labels.set(name, from)
  }
  return { values, labels }
}
