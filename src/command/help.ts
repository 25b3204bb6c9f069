/*
 * The command's --help: its usage, a line for each gate (the core's, then each step's that is a
 * gate of its own), then the inputs' lines from the input catalog (each flag where its part of the
 * catalog puts it), then the command's own flags, its exit codes with the reasons the core and each
 * step give for them, and its variables.
 */
import type { FlagHelp, InputHelp } from '../domain/input-catalog.js'
import { inputEntries } from '../gate/input-catalog.js'
import { STEPS } from '../gate/steps.js'
import { ACTION_VERSION } from '../domain/version.js'
import { EXIT } from './exit-codes.js'

/** The inputs' help in one part: a paragraph as it is, a flag's lines beside it (column 29). */
function inputHelp(part: InputHelp['part']): string {
  const helps = inputEntries()
    .map(([, entry]) => entry.help)
    .filter((help) => help.part === part)
  const flagLines = ([usage, first, ...more]: FlagHelp): string[] => [
    `  ${usage.padEnd(26)}${first ?? ''}`,
    ...more.map((line) => `${' '.repeat(28)}${line}`)
  ]
  return helps
    .flatMap((help) => ('text' in help ? help.text : help.flags.flatMap(flagLines)))
    .join('\n')
}

/**
 * `{name}` in `words` as the input's first flag in the catalog's help: with its value
 * (`--before delete|reset`) in a usage line, alone (`--before`) in a reason.
 */
function withFlags(words: string, form: 'usage' | 'flag'): string {
  return words.replace(/\{(\w+)\}/g, (named, name: string) => {
    const help = inputEntries().find(([input]) => input === name)?.[1].help
    // What names no input with a flag stays as written, braces and all (command-help.test.ts).
    if (!help || !('flags' in help)) return named
    const [usage] = help.flags[0]
    return form === 'usage' ? usage : usage.split(' ')[0]
  })
}

/** The core's gates: the whole project or one branch, and the operations `operation_id` names. */
const CORE_USAGE = [
  '{project_id} [{branch_id}]',
  '{project_id} {operation_id} [{operation_id} ...]'
]

const usageLines = [...CORE_USAGE, ...STEPS.flatMap(({ help }) => help.usage ?? [])]
  .map((usage) => `  neon-gate ${withFlags(usage, 'usage')} [options]`)
  .join('\n')

/** Each step's reasons for a run to end in `outcome`, in the steps' order. */
const stepReasons = (outcome: 'failure' | 'error'): string[] =>
  STEPS.flatMap(({ help }) => help.ends.filter(([ends]) => ends === outcome).map(([, why]) => why))

/** Why the command ends with each of its codes: its own reasons, then the steps'. */
const EXIT_REASONS: Record<keyof typeof EXIT, readonly string[]> = {
  success: ['success'],
  failure: ['an operation failed', ...stepReasons('failure')],
  usage: ['bad flags or input', 'a result file (or standard output) could not be written'],
  refused: [
    'the API refused (401, 403, 404, other 4xx)',
    'an error no retry can fix',
    ...stepReasons('error')
  ],
  pending: ['{wait}, and work is still in flight: try again later'],
  timeout: ['the timeout ran out'],
  SIGINT: ['interrupted (SIGINT)'],
  SIGTERM: ['terminated (SIGTERM)']
}

/** Each exit code and why the command ends with it, each input named by its flag (docs/cli.md too). */
export const EXIT_CODE_REASONS: [code: number, reasons: string[]][] = Object.entries(
  EXIT_REASONS
).map(([kind, reasons]) => [
  EXIT[kind as keyof typeof EXIT],
  reasons.map((reason) => withFlags(reason, 'flag'))
])

/** A code a line, each further reason below its first, after `or`. */
const exitLines = EXIT_CODE_REASONS.flatMap(([code, [first, ...more]]) => [
  `  ${String(code).padEnd(5)}${first}`,
  ...more.map((reason) => `       or ${reason}`)
]).join('\n')

export const VERSION_TEXT = `neon-gate ${ACTION_VERSION}\n`

export const HELP_TEXT = `neon-gate ${ACTION_VERSION}: wait until a Neon project's operations are done, then exit 0.

Usage:
${usageLines}

${inputHelp('intro')}

What to wait for:
${inputHelp('what')}

How:
${inputHelp('how')}

Output:
  --output text|json        standard output: a plain report (default), or one JSON object
                            holding the outputs by name
  --summary FILE            also write the Markdown job summary (inside GitHub Actions:
                            the step summary by default)
  --dotenv FILE             also write the outputs as GATE_<NAME>=value lines, for
                            GitLab's artifacts:reports:dotenv
  -q, --quiet               no progress on standard error (warnings, notices and errors
                            still show)
  -h, --help                this text
  --version                 the version

Exit codes:
${exitLines}

Environment: NEON_API_KEY, NEON_PROJECT_ID, NO_COLOR, HTTPS_PROXY, NO_PROXY.
Reference: docs/cli.md in the neon-operations-gate package.
`
