/*
 * The command's flags, read with node:util's parseArgs: the gate's inputs in kebab-case, and what
 * only a command has (where the key comes from, the output, the files for CI). Secrets never come
 * from a flag's value: a flag shows in `ps` and in shell history.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util'
import type { InputName, InputNaming } from '../domain/input-naming.js'

/** Bad flags or input: the command's usage error (exit code 2), naming the flag as typed. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** The gate's inputs that the command takes as flags, and the environment variable behind each. */
const INPUT_FLAGS: Partial<Record<InputName, { flag: string; boolean?: true; env?: string }>> = {
  project_id: { flag: 'project-id', env: 'NEON_PROJECT_ID' },
  operation_id: { flag: 'operation-id' },
  branch_id: { flag: 'branch-id' },
  database_url: { flag: 'database-url' },
  list_projects: { flag: 'list-projects', boolean: true },
  org_id: { flag: 'org-id' },
  wait: { flag: 'wait', boolean: true },
  interval: { flag: 'interval' },
  timeout: { flag: 'timeout' },
  fail_fast: { flag: 'fail-fast', boolean: true },
  api_host: { flag: 'api-host' }
}

const OPTIONS = {
  'project-id': { type: 'string' },
  'operation-id': { type: 'string', multiple: true },
  'branch-id': { type: 'string' },
  'database-url': { type: 'string' },
  'database-url-file': { type: 'string' },
  'api-key-file': { type: 'string' },
  'list-projects': { type: 'boolean' },
  'org-id': { type: 'string' },
  wait: { type: 'boolean' },
  interval: { type: 'string' },
  timeout: { type: 'string' },
  'fail-fast': { type: 'boolean' },
  'api-host': { type: 'string' },
  output: { type: 'string' },
  summary: { type: 'string' },
  dotenv: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' }
} satisfies ParseArgsOptionsConfig

/** What the command was asked to do, before any secret is read. */
export interface CommandRequest {
  /** The gate's inputs as text, the way the action's inputs are; secrets not read yet. */
  values: Partial<Record<InputName, string>>
  /** How each input is named back to the user: the flag as typed, or the variable it came from. */
  naming: InputNaming
  /** Where the key comes from: a file (`-`: standard input), else NEON_API_KEY. */
  apiKeyFile?: string
  databaseUrlFile?: string
  output: 'text' | 'json'
  quiet: boolean
  /** The job summary's Markdown; `append` inside GitHub Actions, where the step's file is shared. */
  summary?: { path: string; append: boolean }
  dotenvFile?: string
}

export type ParsedCommand = { help: true } | { version: true } | { request: CommandRequest }

/** Node's words for a bad command line, as our own: the flag, and where to look. */
function usageError(error: unknown): UsageError {
  const { code, message } = error as { code?: string; message: string }
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? ''
  const flag = quoted.split(' ')[0]
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown flag ${flag}`)
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      // Not quoted: it may be a secret given by mistake (neon-gate "$NEON_API_KEY").
      return new UsageError(
        'an argument without its flag: every value follows its flag, as --project-id ID (the argument is not repeated here, in case it is a secret)'
      )
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(
        message.includes('does not take an argument')
          ? `${flag} takes no value (turn it off with --no-${flag.replace(/^--(no-)?/, '')})`
          : `${flag} needs a value`
      )
    default:
      return new UsageError(message)
  }
}

export function parseCommandLine(
  argv: string[],
  env: Record<string, string | undefined>
): ParsedCommand {
  let parsed: Parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, tokens: true, allowNegative: true })
  } catch (error) {
    throw usageError(error)
  }
  const { values: flags, tokens } = parsed
  if (flags.help) return { help: true }
  if (flags.version) return { version: true }
  const { values, labels } = inputValues(flags, tokens, env)
  if (flags['database-url'] !== undefined && flags['database-url-file'] !== undefined) {
    throw new UsageError('give --database-url or --database-url-file, not both')
  }
  if (flags['api-key-file'] === '-' && flags['database-url-file'] === '-') {
    throw new UsageError(
      'standard input can hold one secret: --api-key-file - and --database-url-file - cannot both read it'
    )
  }
  const output = flags.output ?? 'text'
  if (output !== 'text' && output !== 'json') {
    throw new UsageError(`--output: "${output}" is not one of text, json`)
  }
  const flagOf = (name: InputName): string => `--${INPUT_FLAGS[name]?.flag ?? name}`
  return {
    request: {
      values,
      naming: {
        label: (name) => labels.get(name) ?? flagOf(name),
        mention: flagOf,
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
  for (const [name, spec] of Object.entries(INPUT_FLAGS) as [
    InputName,
    NonNullable<(typeof INPUT_FLAGS)[InputName]>
  ][]) {
    const given = flags[spec.flag as keyof typeof flags]
    const label = typed.get(spec.flag) ?? `--${spec.flag}`
    if (given !== undefined) {
      // An empty value is an unset variable in a script, not a choice of the default.
      if ([given].flat().some((value) => String(value).trim() === '')) {
        throw new UsageError(
          `${label}: an empty value (an unset variable?); give one, or leave the flag out`
        )
      }
      values[name] = Array.isArray(given) ? given.join(',') : String(given)
      labels.set(name, label)
    } else if (spec.env && env[spec.env] && !(name === 'project_id' && flags['list-projects'])) {
      // NEON_PROJECT_ID is the project to gate, but --list-projects alone only lists.
      values[name] = env[spec.env]
      labels.set(name, spec.env)
    }
  }
  // The secrets are named by where they come from.
  labels.set('api_key', typed.get('api-key-file') ?? 'NEON_API_KEY')
  const urlFile = typed.get('database-url-file')
  if (urlFile) labels.set('database_url', urlFile)
  return { values, labels }
}

/** `--summary FILE`; inside GitHub Actions, the step's summary by default. */
function summaryTarget(
  flag: string | undefined,
  env: Record<string, string | undefined>
): CommandRequest['summary'] {
  if (flag !== undefined) return { path: flag, append: false }
  const stepSummary = env.GITHUB_ACTIONS === 'true' ? env.GITHUB_STEP_SUMMARY : undefined
  return stepSummary ? { path: stepSummary, append: true } : undefined
}
