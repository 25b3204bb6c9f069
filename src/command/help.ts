import { DEFAULT_API_HOST } from '../gate/input-fields.js'
import { ACTION_VERSION } from '../domain/version.js'

export const VERSION_TEXT = `neon-gate ${ACTION_VERSION}\n`

export const HELP_TEXT = `neon-gate ${ACTION_VERSION}: wait until a Neon project's operations are done, then exit 0.

Usage:
  neon-gate --project-id ID [--branch-id BRANCH] [options]
  neon-gate --project-id ID --operation-id UUID [--operation-id UUID ...] [options]
  neon-gate --project-id ID --branch-id BRANCH --before delete|reset [options]
  neon-gate --list-projects [--org-id ORG] [options]

The API key comes from NEON_API_KEY, or from --api-key-file PATH (- reads standard input);
never from a flag, which ps and shell history would show.

What to wait for:
  --project-id ID           the project (default: NEON_PROJECT_ID)
  --branch-id BRANCH        only this branch's operations (an id, br-..., or a name); then
                            also wait until the branch is ready
  --operation-id UUID       only these operations (repeat it, or separate ids by commas)
  --database-url URL        then connect and run SELECT 1 (a secret: prefer the file)
  --database-url-file PATH  the database URL from a file (- reads standard input)
  --list-projects           also list the projects the key can see
  --org-id ORG              the organization whose projects to list
  --before delete|reset     before a teardown of --branch-id: wait until the whole project
                            is idle, then check that the branch can be deleted (or reset to
                            its parent) now: exit 1 when something blocks it, 0 when it is
                            clear or, for delete, already gone

How:
  --no-wait                 read once and report (exit 75 while work is in flight; an API
                            that does not answer ends it within 3 intervals, exit 3)
  --interval DURATION       time between polls: 5, 5s, 90s, 1m (default 5s)
  --timeout DURATION        longest wait: 90s, 15m, 2h, 5d at most (default 10m)
  --fail-fast               treat the first "failed" status as final
  --api-host URL            the API (default ${DEFAULT_API_HOST})

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
  1    an operation failed, the database check failed, or --before found a blocker
  2    bad flags or input; standard output or a result file could not be written
  3    the API refused (401, 403, 404, other 4xx), or an error no retry can fix
  75   --no-wait, and work is still in flight: try again later
  124  the timeout ran out
  130  interrupted (SIGINT); 143: terminated (SIGTERM)

Environment: NEON_API_KEY, NEON_PROJECT_ID, NO_COLOR, HTTPS_PROXY, NO_PROXY.
Reference: docs/cli.md in the neon-operations-gate package.
`
