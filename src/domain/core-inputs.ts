/*
 * The core's inputs in the input catalog (src/gate/input-catalog.ts puts them with the steps'): the
 * key, what to gate and how to wait, each with its typed name, its schema, its flag and its help.
 */
import { type InputEntry, NOT_GIVEN } from './input-catalog.js'
import {
  apiHostInput,
  apiKeyInput,
  booleanInput,
  BRANCH_PATTERN,
  DEFAULT_API_HOST,
  durationInput,
  ID_PATTERN,
  idInput,
  MAX_INTERVAL_MS,
  operationIdsInput,
  quotedAsGiven,
  refusingEmpty,
  timeoutInput
} from './input-fields.js'

/** What to gate: the key, the project, its operations or one branch. */
export const CORE_INPUTS = {
  api_key: {
    typed: 'apiKey',
    schema: () => apiKeyInput,
    secret: 'text',
    command: { env: 'NEON_API_KEY', file: 'api-key-file' },
    help: {
      part: 'intro',
      text: [
        'The API key comes from NEON_API_KEY, or from --api-key-file PATH (- reads standard input);',
        'never from a flag, which ps and shell history would show.'
      ]
    },
    docs: {
      summary: 'API key; masked before anything else runs',
      description:
        "API key (a secret), sent as 'Authorization: Bearer'; masked before anything runs."
    }
  },
  project_id: {
    typed: 'projectId',
    schema: (naming) =>
      refusingEmpty(
        idInput(ID_PATTERN, 'a project id matching ^[a-z0-9-]{1,60}$'),
        `leave ${naming.mention('project_id')} out with ${naming.enabled('list_projects')} to only list the projects`
      ),
    refusesEmpty: true,
    command: { flag: { name: 'project-id', gate: true }, env: 'NEON_PROJECT_ID' },
    help: { part: 'what', flags: [['--project-id ID', 'the project (default: NEON_PROJECT_ID)']] },
    docs: {
      default: NOT_GIVEN,
      summary: 'The project; required except for listing projects',
      description:
        'The project to work on; required for everything except list_projects. Its default, (not given), means left out.'
    }
  },
  operation_id: {
    typed: 'operationIds',
    schema: (naming) =>
      refusingEmpty(
        operationIdsInput(
          naming.mention('operation_id'),
          `${naming.mention('project_id')}, ${naming.mention('branch_id')}`
        ),
        `leave ${naming.mention('operation_id')} out to gate the project or a branch`
      ).transform((ids) => ids ?? []),
    refusesEmpty: true,
    command: { flag: { name: 'operation-id', multiple: true, gate: true } },
    help: {
      part: 'what',
      flags: [
        ['--operation-id UUID', 'only these operations (repeat it, or separate ids by commas)']
      ]
    },
    docs: {
      default: NOT_GIVEN,
      summary: 'At most 40 operation ids (UUIDs), by commas, spaces or lines',
      description:
        'One or more operation ids (UUIDs, at most 40) separated by commas, spaces or new lines; without it the whole project is gated. Its default, (not given), means left out.'
    }
  },
  branch_id: {
    typed: 'branchId',
    schema: (naming) =>
      refusingEmpty(
        idInput(
          BRANCH_PATTERN,
          'a branch id (br-…) or a branch name of at most 256 visible characters'
        ),
        `leave ${naming.mention('branch_id')} out to gate the whole project`
      ),
    refusesEmpty: true,
    command: { flag: { name: 'branch-id', gate: true } },
    help: {
      part: 'what',
      flags: [
        [
          '--branch-id BRANCH',
          "only this branch's operations (an id, br-..., or a name); then",
          'also wait until the branch is ready'
        ]
      ]
    },
    docs: {
      default: NOT_GIVEN,
      summary: 'The branch gate: a branch id or name; waits until `ready`',
      description:
        'With project_id and no operation_id, only operations on this branch count: a branch id (br-...) or a branch name (main, preview/pr-12), resolved and checked before the first poll across every page of the search; a name that fits no branch or several fails the step. Once its operations are final, the gate also waits until the branch is ready (current_state ready, no pending_state; archived passes with a warning). Its default, (not given), means left out.'
    }
  },
  wait: {
    typed: 'wait',
    schema: () => booleanInput(true),
    command: { flag: { name: 'wait', boolean: true } },
    help: {
      part: 'how',
      flags: [
        [
          '--no-wait',
          'read once and report, do not wait: exit 75 while work is in',
          'flight; an API that does not answer ends it within 3',
          'intervals, exit 3'
        ]
      ]
    },
    docs: {
      default: 'true',
      summary: '`false`: read once and report, do not wait',
      description:
        "true: poll until every operation is final; false: read once and report (a 429's waits do not count: a rate limit is ridden out until timeout)."
    }
  },
  interval: {
    typed: 'intervalMs',
    schema: () => durationInput('5s', MAX_INTERVAL_MS, '1h'),
    command: { flag: { name: 'interval' } },
    help: {
      part: 'how',
      flags: [['--interval DURATION', 'time between polls: 5, 5s, 90s, 1m (default 5s)']]
    },
    docs: {
      default: '5',
      summary: 'Time between polls: `5`, `5s`, `90s`, `1m`; 1 s to 1 h',
      description:
        'Time between polls, in seconds or with a unit (5, 5s, 90s, 1m); 1 second to 1 hour. Slower for a while after HTTP 429s.'
    }
  },
  timeout: {
    typed: 'timeoutMs',
    schema: () => timeoutInput(quotedAsGiven),
    command: { flag: { name: 'timeout' } },
    help: {
      part: 'how',
      flags: [['--timeout DURATION', 'longest wait: 90s, 15m, 2h, 5d at most (default 10m)']]
    },
    docs: {
      default: '10m',
      summary: 'Longest total wait, same syntax or `5d`; 1 s to 5 days',
      description:
        'Longest total wait, same syntax as interval, or days (5d); 1 second to 5 days. The wait ends within about a second past it; a pull-request comment, written after, has at most 10 s more.'
    }
  },
  fail_fast: {
    typed: 'failFast',
    schema: () => booleanInput(false),
    command: { flag: { name: 'fail-fast', boolean: true } },
    help: { part: 'how', flags: [['--fail-fast', 'treat the first "failed" status as final']] },
    docs: {
      default: 'false',
      summary: 'Fail on the first `failed` instead of awaiting its retry',
      description:
        'Treat the first "failed" status as final instead of awaiting the control plane\'s retry.'
    }
  },
  api_host: {
    typed: 'apiHost',
    schema: () => apiHostInput,
    command: { flag: { name: 'api-host' } },
    help: { part: 'how', flags: [['--api-host URL', `the API (default ${DEFAULT_API_HOST})`]] },
    docs: {
      default: DEFAULT_API_HOST,
      summary: 'Base address (`http://` only to loopback)',
      description: 'Base address of the API; https:// only, plain http:// for loopback hosts.'
    }
  }
} as const satisfies Record<string, InputEntry>
