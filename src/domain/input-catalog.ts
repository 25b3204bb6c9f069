/*
 * The gate's inputs, one entry each: the one place an input is named. Its key is the action's
 * input (as action.yml spells it, the contract's name); the entry says how the command takes it
 * (its flag, the variable behind it, the flag of a file that holds it), whether it is a secret, and
 * its lines in the command's --help. What the front ends list (the action's inputs, the command's
 * flags, the flags that ask for a gate, the secrets to redact, the help) is derived from here, and
 * a tooling test holds action.yml, docs/usage.md and docs/cli.md to it. The order is the help's.
 * The action's own inputs for the pull request are the runner's (src/runner/input-helper.ts).
 */

/** The API's address when none is given. */
export const DEFAULT_API_HOST = 'https://console.neon.tech/api/v2'

/**
 * action.yml's default for an input that refuses an empty value: the runner sets a default only
 * when the workflow does not give the input, so this value, and only it, says "not given".
 */
export const NOT_GIVEN = '(not given)'

/** A flag of the command as typed (`--project-id ID`), then what it does, a line each. */
export type FlagHelp = readonly [usage: string, ...lines: string[]]

/** Where an input stands in --help: a paragraph before the flags, or a flag's lines in a part. */
export type InputHelp =
  { part: 'intro'; text: readonly string[] } | { part: 'what' | 'how'; flags: readonly FlagHelp[] }

export interface InputEntry {
  /**
   * Given as '' or white space alone (an expression that came out empty), an input error: not
   * given, another gate would run. Its default in action.yml is NOT_GIVEN.
   */
  readonly refusesEmpty?: true
  /** A secret: redacted in every form from the start; a database URL with its password's forms. */
  readonly secret?: 'text' | 'database_url'
  readonly command: {
    /** The command's flag, in kebab-case; a secret's value has none (ps and history show it). */
    readonly flag?: {
      readonly name: string
      readonly boolean?: true
      /** Repeated, its values are joined by commas. */
      readonly multiple?: true
      /** It asks for a gate: with it, the project variable is the project even beside listing. */
      readonly gate?: true
    }
    /** The environment variable it is read from when its flag is not given. */
    readonly env?: string
    /** The flag naming a file that holds it (`-`: standard input): how a secret is given. */
    readonly file?: string
  }
  readonly help: InputHelp
}

export const INPUT_CATALOG = {
  api_key: {
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
    command: { flag: { name: 'project-id', gate: true }, env: 'NEON_PROJECT_ID' },
    help: { part: 'what', flags: [['--project-id ID', 'the project (default: NEON_PROJECT_ID)']] }
  },
  branch_id: {
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
  operation_id: {
    refusesEmpty: true,
    command: { flag: { name: 'operation-id', multiple: true, gate: true } },
    help: {
      part: 'what',
      flags: [
        ['--operation-id UUID', 'only these operations (repeat it, or separate ids by commas)']
      ]
    }
  },
  database_url: {
    refusesEmpty: true,
    secret: 'database_url',
    command: { flag: { name: 'database-url', gate: true }, file: 'database-url-file' },
    help: {
      part: 'what',
      flags: [
        ['--database-url URL', 'then connect and run SELECT 1 (a secret: prefer the file)'],
        ['--database-url-file PATH', 'the database URL from a file (- reads standard input)']
      ]
    }
  },
  list_projects: {
    command: { flag: { name: 'list-projects', boolean: true } },
    help: { part: 'what', flags: [['--list-projects', 'also list the projects the key can see']] }
  },
  org_id: {
    command: { flag: { name: 'org-id' } },
    help: { part: 'what', flags: [['--org-id ORG', 'the organization whose projects to list']] }
  },
  before: {
    refusesEmpty: true,
    command: { flag: { name: 'before', gate: true } },
    help: {
      part: 'what',
      flags: [
        [
          '--before delete|reset',
          'before a teardown of --branch-id: wait until the whole project',
          'is idle, then check that the branch can be deleted (or reset to',
          'its parent) now: exit 1 when something blocks it, 0 when it is',
          'clear or, for delete, already gone'
        ]
      ]
    }
  },
  wait: {
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
    command: { flag: { name: 'interval' } },
    help: {
      part: 'how',
      flags: [['--interval DURATION', 'time between polls: 5, 5s, 90s, 1m (default 5s)']]
    }
  },
  timeout: {
    command: { flag: { name: 'timeout' } },
    help: {
      part: 'how',
      flags: [['--timeout DURATION', 'longest wait: 90s, 15m, 2h, 5d at most (default 10m)']]
    }
  },
  fail_fast: {
    command: { flag: { name: 'fail-fast', boolean: true } },
    help: { part: 'how', flags: [['--fail-fast', 'treat the first "failed" status as final']] }
  },
  api_host: {
    command: { flag: { name: 'api-host' } },
    help: { part: 'how', flags: [['--api-host URL', `the API (default ${DEFAULT_API_HOST})`]] }
  }
} as const satisfies Record<string, InputEntry>

export type InputName = keyof typeof INPUT_CATALOG

/** Every input by name, in the catalog's order. */
export const INPUT_NAMES = Object.keys(INPUT_CATALOG) as InputName[]

/** Each entry, typed as an entry (the catalog's literal types are for its names). */
export const inputEntries = (): [InputName, InputEntry][] =>
  Object.entries(INPUT_CATALOG) as [InputName, InputEntry][]

export const inputEntry = (name: InputName): InputEntry => INPUT_CATALOG[name]

/** Given empty, an input error (`refusesEmpty`): its "not given" is undefined, never ''. */
export const refusesEmpty = (name: string): boolean =>
  Object.hasOwn(INPUT_CATALOG, name) && inputEntry(name as InputName).refusesEmpty === true
