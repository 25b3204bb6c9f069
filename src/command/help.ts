/*
 * The command's --help: its usage, then the inputs' lines from the input catalog (each flag where
 * its part of the catalog puts it), then the command's own flags, its exit codes and variables.
 */
import type { FlagHelp, InputHelp } from '../domain/input-catalog.js'
import { inputEntries } from '../gate/input-catalog.js'
import { ACTION_VERSION } from '../domain/version.js'

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

export const VERSION_TEXT = `neon-gate ${ACTION_VERSION}\n`

export const HELP_TEXT = `neon-gate ${ACTION_VERSION}: wait until a Neon project's operations are done, then exit 0.

Usage:
  neon-gate --project-id ID [--branch-id BRANCH] [options]
  neon-gate --project-id ID --operation-id UUID [--operation-id UUID ...] [options]
  neon-gate --project-id ID --branch-id BRANCH --before delete|reset [options]
  neon-gate --list-projects [--org-id ORG] [options]
  neon-gate sweep --match PATTERN [--older-than AGE] [--fail-on-stale] [options]

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
  0    success
  1    an operation failed, the database check failed, --before found a blocker, or
       sweep --fail-on-stale found a stale branch
  2    bad flags or input; standard output or a result file could not be written
  3    the API refused (401, 403, 404, other 4xx), or an error no retry can fix; or
       sweep --fail-on-stale found none stale but could not judge every branch
  75   --no-wait, and work is still in flight: try again later
  124  the timeout ran out
  130  interrupted (SIGINT); 143: terminated (SIGTERM)

Environment: NEON_API_KEY, NEON_PROJECT_ID, NO_COLOR, HTTPS_PROXY, NO_PROXY.
Reference: docs/cli.md in the neon-operations-gate package.
`
