/*
 * The core's inputs in the input catalog (src/gate/input-catalog.ts puts them with the steps'): the
 * key, what to gate and how to wait, each with its typed name, its schema, its flag and its help.
 */
import { z } from 'zod'
import type { InputEntry } from './input-catalog.js'
import {
  API_KEY_PATTERN,
  apiHostInput,
  booleanInput,
  BRANCH_PATTERN,
  DEFAULT_API_HOST,
  durationInput,
  ID_PATTERN,
  idInput,
  MAX_API_KEY_CHARS,
  MAX_INTERVAL_MS,
  operationIdsInput,
  quotedAsGiven,
  QUOTED_KEY,
  refusingEmpty,
  timeoutInput
} from './input-fields.js'

/** What to gate: the key, the project, its operations or one branch. */
export const CORE_INPUTS = {
  api_key: {
    typed: 'apiKey',
    schema: () =>
      z
        .string()
        .transform((raw) => raw.trim())
        .refine((key) => key !== '', 'required; pass the API key secret')
        .refine(
          (key) => !QUOTED_KEY.test(key),
          'is wrapped in quotes, which are not part of an API key (a secret stored as "napi_…" or \'napi_…\'); store the key without them'
        )
        .refine(
          (key) => key === '' || API_KEY_PATTERN.test(key),
          'contains spaces, line breaks or characters an HTTP header cannot carry; pass the API key exactly as the console showed it'
        )
        .refine(
          (key) => key.length <= MAX_API_KEY_CHARS,
          `is longer than ${MAX_API_KEY_CHARS} characters, which no API key is: a wrong file or variable?`
        ),
    secret: 'text',
    command: { env: 'NEON_API_KEY', file: 'api-key-file' },
    help: {
      part: 'intro',
      text: [
        'The API key comes from NEON_API_KEY, or from --api-key-file PATH (- reads standard input);',
        'never from a flag, which ps and shell history would show.'
      ]
    }
  },
  project_id: {
    typed: 'projectId',
    schema: () => idInput(ID_PATTERN, 'a project id matching ^[a-z0-9-]{1,60}$'),
    command: { flag: { name: 'project-id', gate: true }, env: 'NEON_PROJECT_ID' },
    help: { part: 'what', flags: [['--project-id ID', 'the project (default: NEON_PROJECT_ID)']] }
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
          'read once and report (exit 75 while work is in flight; an API',
          'that does not answer ends it within 3 intervals, exit 3)'
        ]
      ]
    }
  },
  interval: {
    typed: 'intervalMs',
    schema: () => durationInput('5s', MAX_INTERVAL_MS, '1h'),
    command: { flag: { name: 'interval' } },
    help: {
      part: 'how',
      flags: [['--interval DURATION', 'time between polls: 5, 5s, 90s, 1m (default 5s)']]
    }
  },
  timeout: {
    typed: 'timeoutMs',
    schema: () => timeoutInput(quotedAsGiven),
    command: { flag: { name: 'timeout' } },
    help: {
      part: 'how',
      flags: [['--timeout DURATION', 'longest wait: 90s, 15m, 2h, 5d at most (default 10m)']]
    }
  },
  fail_fast: {
    typed: 'failFast',
    schema: () => booleanInput(false),
    command: { flag: { name: 'fail-fast', boolean: true } },
    help: { part: 'how', flags: [['--fail-fast', 'treat the first "failed" status as final']] }
  },
  api_host: {
    typed: 'apiHost',
    schema: () => apiHostInput,
    command: { flag: { name: 'api-host' } },
    help: { part: 'how', flags: [['--api-host URL', `the API (default ${DEFAULT_API_HOST})`]] }
  }
} as const satisfies Record<string, InputEntry>
