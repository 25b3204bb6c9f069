import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { parseDuration } from '../src/domain/duration.js'
import { InputError } from '../src/domain/errors.js'
import { DEFAULT_API_HOST, MAX_OPERATION_IDS } from '../src/domain/input-fields.js'
import { inputEntry, INPUT_NAMES } from '../src/gate/input-catalog.js'
import { ignoredInputWarnings } from '../src/gate/inputs.js'
import { ACTION_INPUT_NAMING, getInputs } from '../src/runner/input-helper.js'
import { OP_A, OP_B } from './support/neon/ids.js'

/** The inputs as the runner hands them over: one it does not set is not given (undefined). */
function parse(values: Record<string, string>) {
  return getInputs((name) => values[name])
}

function errorOf(values: Record<string, string>): string {
  try {
    parse(values)
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return (error as Error).message
  }
  throw new Error('expected an InputError')
}

const base = { api_key: 'key-123', project_id: 'demo-project-000001' }

/**
 * That `name` given as each of `blanks` ('' is empty, the others only white space) beside `base`
 * and `others` is an input error that names it, says where such a value comes from, and what to
 * do: a value, or `instead`.
 */
function expectEmptyRefused(
  others: Record<string, string>,
  name: string,
  blanks: string[],
  instead: string
): void {
  for (const blank of blanks) {
    const emptiness = blank === '' ? 'is empty' : 'holds only white space'
    expect(errorOf({ ...base, ...others, [name]: blank })).toBe(
      `Invalid input: input "${name}": ${emptiness}, what an expression gives for an unset variable or a step output that does not exist; give a value, or ${instead}`
    )
  }
}

describe('getInputs', () => {
  it('applies the contract defaults', () => {
    expect(parse(base)).toEqual({
      apiKey: 'key-123',
      projectId: 'demo-project-000001',
      operationIds: [],
      branchId: undefined,
      listProjects: false,
      orgId: undefined,
      wait: true,
      intervalMs: 5000,
      timeoutMs: 600_000,
      failFast: false,
      apiHost: DEFAULT_API_HOST,
      // Not given: none (a sweep reads it as 7d; given without a sweep, it is refused).
      olderThanMs: undefined,
      failOnStale: false,
      prComment: 'off',
      prCommentLeg: '',
      githubToken: ''
    })
  })

  it('splits operation ids on commas, spaces and new lines, lower-cases and de-duplicates them', () => {
    const inputs = parse({ ...base, operation_id: `${OP_A}, ${OP_B.toUpperCase()}\n${OP_A}` })
    expect(inputs.operationIds).toEqual([OP_A, OP_B])
  })

  it('reads every option', () => {
    const inputs = parse({
      ...base,
      branch_id: 'br-main-1',
      list_projects: 'TRUE',
      org_id: 'org-example-1234',
      wait: 'false',
      interval: '1500ms',
      timeout: '2m',
      fail_fast: 'True',
      api_host: 'http://127.0.0.1:8080/api/v2/'
    })
    expect(inputs).toMatchObject({
      branchId: 'br-main-1',
      listProjects: true,
      orgId: 'org-example-1234',
      wait: false,
      intervalMs: 1500,
      timeoutMs: 120_000,
      failFast: true,
      apiHost: 'http://127.0.0.1:8080/api/v2'
    })
  })

  it('accepts list_projects alone, without a project', () => {
    expect(parse({ api_key: 'k', list_projects: 'true' }).projectId).toBeUndefined()
  })

  it.each([
    [{ api_key: '  ' }, 'input "api_key": required'],
    [
      { ...base, project_id: 'Shiny_Wind' },
      'input "project_id": "Shiny_Wind" is not valid; expected a project id matching ^[a-z0-9-]{1,60}$'
    ],
    [{ ...base, project_id: 'a'.repeat(61) }, 'input "project_id"'],
    [
      { ...base, operation_id: `${OP_A} not-a-uuid` },
      'input "operation_id": "not-a-uuid" is not a UUID'
    ],
    [
      { ...base, branch_id: 'main\u200b' },
      'input "branch_id": "main\u200b" is not valid; expected a branch id (br-…) or a branch name'
    ],
    [
      { ...base, interval: 'soon' },
      'input "interval": "soon" is not a duration; use seconds (5) or a number with a unit (5s, 90s, 1m)'
    ],
    [{ ...base, interval: '500ms' }, 'input "interval": "500ms" is below the minimum of 1 second'],
    [{ ...base, timeout: '0' }, 'input "timeout": "0" is below the minimum of 1 second'],
    [
      { ...base, api_host: 'http://api.example.com/api/v2' },
      'input "api_host": "http://api.example.com/api/v2" is not allowed; expected an absolute https:// address'
    ],
    [
      { ...base, api_host: 'console.neon.tech/api/v2' },
      'input "api_host": "console.neon.tech/api/v2" is not an address'
    ],
    [
      { ...base, api_host: 'ftp://127.0.0.1/x' },
      'input "api_host": "ftp://127.0.0.1/x" is not allowed'
    ],
    [
      { api_key: 'k' },
      'input "project_id": required; give project_id to wait for operations, or set list_projects: true'
    ],
    [{ api_key: 'k', operation_id: OP_A }, 'input "project_id": required with operation_id'],
    [{ ...base, interval: '700h' }, 'input "interval": "700h" is above the maximum of 1h'],
    [
      { ...base, pr_comment: 'sometimes' },
      'input "pr_comment": "sometimes" is not one of off, always, failure'
    ],
    [{ ...base, interval: '1e400' }, 'input "interval": "1e400" is not a duration'],
    [{ ...base, interval: '99999999999999999999' }, 'is above the maximum of 1h'],
    [{ ...base, timeout: '121h' }, 'input "timeout": "121h" is above the maximum of 5 days'],
    [{ ...base, api_key: 'napi key' }, 'input "api_key": contains spaces, line breaks'],
    [{ ...base, api_key: 'napi\nkey' }, 'input "api_key": contains spaces, line breaks'],
    [{ ...base, api_key: 'napi_kéy' }, 'characters an HTTP header cannot carry'],
    [
      { ...base, api_key: `napi_${'k'.repeat(1020)}` },
      'input "api_key": is longer than 1024 characters, which no API key is: a wrong file or variable?'
    ],
    [
      { ...base, api_host: 'http://user:pw-in-url@example.com' },
      'input "api_host": must not carry credentials'
    ]
  ])('rejects %j', (values, message) => {
    expect(errorOf(values)).toContain(message)
  })

  it.each(INPUT_NAMES.filter((name) => inputEntry(name).command.flag?.boolean))(
    'rejects a word that is no boolean for %s, a switch of the catalog',
    (name) => {
      for (const word of ['yes', '1', 'on']) {
        expect(errorOf({ ...base, [name]: word })).toContain(
          `input "${name}": "${word}" is not a boolean; use true or false`
        )
      }
    }
  )

  it('an empty github_token with pr_comment on is no input error: the comment, a side effect, is skipped then', () => {
    for (const mode of ['always', 'failure'] as const) {
      expect(parse({ ...base, pr_comment: mode, github_token: ' ' })).toMatchObject({
        prComment: mode,
        githubToken: ''
      })
    }
  })

  it('accepts plain http only for loopback hosts', () => {
    for (const host of [
      'http://localhost:1',
      'http://127.0.0.1:1',
      'http://127.1.2.3',
      'http://[::1]:8'
    ]) {
      expect(parse({ ...base, api_host: host }).apiHost).toBe(host)
    }
  })

  it('accepts the largest interval and timeout', () => {
    expect(parse({ ...base, interval: '1h', timeout: '120h' })).toMatchObject({
      intervalMs: 3_600_000,
      timeoutMs: 432_000_000
    })
  })

  it(`accepts ${MAX_OPERATION_IDS} operation ids and refuses more, pointing to the project gate`, () => {
    const ids = (count: number) =>
      Array.from({ length: count }, (_, i) => `${OP_A.slice(0, 24)}${String(i).padStart(12, '0')}`)
    expect(
      parse({ ...base, operation_id: ids(MAX_OPERATION_IDS).join(',') }).operationIds
    ).toHaveLength(MAX_OPERATION_IDS)
    expect(errorOf({ ...base, operation_id: ids(MAX_OPERATION_IDS + 1).join('\n') })).toContain(
      `input "operation_id": 41 operation ids given, at most 40 are accepted`
    )
  })

  it('names every bad input at once', () => {
    const message = errorOf({ ...base, interval: 'x', timeout: 'y', wait: 'z' })
    expect(message).toContain('"interval"')
    expect(message).toContain('"timeout"')
    expect(message).toContain('"wait"')
  })

  it('names the action’s own bad inputs in the same error as the shared ones', () => {
    expect(
      errorOf({ ...base, interval: 'x', pr_comment: 'sometimes', pr_comment_author: 'a b' })
    ).toBe(
      'Invalid input: input "interval": "x" is not a duration; use seconds (5) or a number with a unit (5s, 90s, 1m); input "pr_comment": "sometimes" is not one of off, always, failure; input "pr_comment_author": "a b" is not valid; expected the GitHub login the token writes as, such as my-app[bot]'
    )
  })

  it('never echoes credentials given in api_host', () => {
    for (const host of [
      'https://user:hunter2@example.com/api/v2',
      'http://user:hunter2@example.com/api/v2',
      'ftp://user:hunter2@example.com',
      'not a url user:hunter2@x'
    ]) {
      const message = errorOf({ ...base, api_host: host })
      expect(message).toContain('input "api_host"')
      expect(message).not.toContain('hunter2')
    }
  })

  it.each([
    ['a trailing ?', 'https://console.neon.tech/api/v2?'],
    ['a trailing #', 'https://console.neon.tech/api/v2#'],
    ['a query', 'http://127.0.0.1:8080/api/v2?x=1'],
    ['a fragment', 'http://127.0.0.1:8080/api/v2#part'],
    ['a ? in the path', 'http://127.0.0.1:8080/api/v2?/projects']
  ])('refuses api_host with %s: every request would go to the wrong path', (_, host) => {
    expect(errorOf({ ...base, api_host: host })).toContain(
      'input "api_host": must not carry a query or a fragment (?, #): every request would go to the wrong path'
    )
  })

  it('refuses api_host with empty credentials too (`https://@host`, `https://:@host`)', () => {
    for (const host of ['https://@console.neon.tech/api/v2', 'http://:@127.0.0.1:1/api/v2']) {
      expect(errorOf({ ...base, api_host: host })).toContain(
        'input "api_host": must not carry credentials'
      )
    }
  })

  it('quotes operation_id and pr_comment as given, never folded in case past the redactor', () => {
    const key = 'napi_Mixed_CASE_Key_4b7Q9zX2'
    expect(errorOf({ ...base, operation_id: `${OP_A},${key}` })).toContain(
      `input "operation_id": "${key}" is not a UUID`
    )
    expect(errorOf({ ...base, pr_comment: key })).toContain(
      `input "pr_comment": "${key}" is not one of`
    )
    // Checked without regard to case all the same.
    expect(
      parse({ ...base, operation_id: OP_B.toUpperCase(), pr_comment: 'ALWAYS', github_token: 't' })
    ).toMatchObject({
      operationIds: [OP_B],
      prComment: 'always'
    })
  })

  it('a negative interval or timeout is said to be negative', () => {
    expect(errorOf({ ...base, timeout: '-5' })).toContain(
      'input "timeout": "-5" is negative; a duration is at least 1 second'
    )
    expect(errorOf({ ...base, interval: '-1m' })).toContain('input "interval": "-1m" is negative')
  })

  it('warns about inputs that the combination ignores, when no check is lost by it', () => {
    expect(
      ignoredInputWarnings(
        parse({ ...base, operation_id: OP_A, org_id: 'org-1' }),
        ACTION_INPUT_NAMING
      )
    ).toEqual(['org_id is ignored without list_projects: true'])
  })

  it('before: delete or reset, in any case; with project_id and branch_id; never with operation_id', () => {
    const gate = { ...base, branch_id: 'preview/pr-7' }
    expect(parse({ ...gate, before: 'delete' }).before).toBe('delete')
    expect(parse({ ...gate, before: ' Reset ' }).before).toBe('reset')
    expect(parse(gate).before).toBeUndefined()
    expect(errorOf({ ...gate, before: 'drop' })).toBe(
      'Invalid input: input "before": "drop" is not one of delete, reset'
    )
    expect(errorOf({ ...base, before: 'delete' })).toBe(
      'Invalid input: input "branch_id": required with before delete; give the branch to check (an id, br-…, or its name)'
    )
    expect(
      errorOf({ api_key: 'k', branch_id: 'main', before: 'reset', list_projects: 'true' })
    ).toBe(
      'Invalid input: input "project_id": required with before reset; give the project of the branch'
    )
    expect(errorOf({ ...gate, before: 'delete', operation_id: OP_A })).toBe(
      'Invalid input: input "operation_id": cannot be combined with before delete, which waits until the whole project is idle; leave it out'
    )
  })

  it('before: database_url and fail_fast are ignored, with a warning each', () => {
    const inputs = parse({
      ...base,
      branch_id: 'preview/pr-7',
      before: 'delete',
      fail_fast: 'true',
      database_url: 'postgresql://app:pw@127.0.0.1/app?sslmode=disable'
    })
    expect(ignoredInputWarnings(inputs, ACTION_INPUT_NAMING)).toEqual([
      'database_url is ignored with before: a branch about to be deleted or reset is not queried',
      'fail_fast is ignored with before: the gate waits until the project is idle, and a failure is no reason to stop a teardown'
    ])
  })
})

/** Issue 58: an input that another would make the gate ignore, to its loss, is an input error. */
describe('inputs that would weaken the gate', () => {
  const url = 'postgresql://app:pw@127.0.0.1/app?sslmode=disable'

  it('branch_id with operation_id: an input error, not a warning (the branch would go unchecked)', () => {
    expect(errorOf({ ...base, operation_id: OP_A, branch_id: 'br-1' })).toBe(
      'Invalid input: input "branch_id": cannot be combined with operation_id: only the listed operations would be waited for, and the branch\'s readiness never checked; give branch_id alone to gate the branch, or operation_id alone'
    )
  })

  it('branch_id or database_url with list_projects and no project_id: an input error each', () => {
    const listing = { api_key: 'k', list_projects: 'true' }
    expect(errorOf({ ...listing, branch_id: 'preview/pr-12' })).toBe(
      'Invalid input: input "branch_id": needs project_id: with list_projects: true and no project, only the projects are listed and the branch would never be checked; give the project, or leave branch_id out'
    )
    expect(errorOf({ ...listing, database_url: url, branch_id: 'main' })).toBe(
      'Invalid input: input "branch_id": needs project_id: with list_projects: true and no project, only the projects are listed and the branch would never be checked; give the project, or leave branch_id out; input "database_url": needs project_id: with list_projects: true and no project, only the projects are listed and the database would never be queried; give the project, or leave database_url out'
    )
    // With the project, each is checked: no error, no warning.
    const inputs = parse({ ...base, ...listing, branch_id: 'main', database_url: url })
    expect(ignoredInputWarnings(inputs, ACTION_INPUT_NAMING)).toEqual([])
  })

  it.each(['org_id'])(
    '%s of white space alone is an input error, never "not given" (which would gate something else)',
    (name) => {
      expect(errorOf({ ...base, list_projects: 'true', [name]: ' \n ' })).toContain(
        `input "${name}": holds only white space: an unset value? Give one, or leave it empty`
      )
    }
  )
})

describe('given empty is not "not given" (issue 65)', () => {
  /** Each input whose empty value is refused, what leaving it out does, and the rest it needs. */
  const refused: [string, string, Record<string, string>][] = [
    ['branch_id', 'leave branch_id out to gate the whole project', {}],
    ['database_url', 'leave database_url out for no database check', {}],
    ['before', 'leave before out for the gate the other inputs ask for', { branch_id: 'main' }],
    ['operation_id', 'leave operation_id out to gate the project or a branch', {}]
  ]

  it.each(refused)(
    '%s given as "" or white space alone: an input error that names it and says where such a value comes from',
    (name, leftOut, others) =>
      expectEmptyRefused(others, name, ['', ' ', '\n\t\r\n', '\u00a0\u3000'], leftOut)
  )

  it.each(refused)(
    '%s not given (not set at all, or action.yml\'s default, "(not given)"): the gate the other inputs ask for',
    (name, _leftOut, others) => {
      const notSet = parse({ ...base, ...others })
      expect(parse({ ...base, ...others, [name]: '(not given)' })).toEqual(notSet)
      const field = { branch_id: 'branchId', database_url: 'database', before: 'before' }[name]
      if (field) expect(notSet).toHaveProperty(field, undefined)
      else expect(notSet.operationIds).toEqual([])
    }
  )

  it('an input with an empty default keeps it: "" is not given (org_id, pr_comment_leg)', () => {
    const inputs = parse({ ...base, org_id: '', pr_comment_leg: '', list_projects: 'true' })
    expect(inputs).toMatchObject({ orgId: undefined, prCommentLeg: '' })
  })

  it('project_id given as "" or white space alone: an input error, beside list_projects too (which would list the projects and gate none)', () => {
    const leftOut = 'leave project_id out with list_projects: true to only list the projects'
    const blanks = ['', ' ', '\n\t\r\n', '\u00a0\u3000']
    const alongside: Record<string, string>[] = [
      {},
      { list_projects: 'true' },
      { list_projects: 'true', wait: 'false' }
    ]
    for (const others of alongside) expectEmptyRefused(others, 'project_id', blanks, leftOut)
  })

  it('project_id not given (not set at all, or action.yml\'s default, "(not given)"): required, unless only listing the projects', () => {
    const notGivens: Record<string, string>[] = [{}, { project_id: '(not given)' }]
    for (const notGiven of notGivens) {
      expect(errorOf({ api_key: 'k', ...notGiven })).toContain('input "project_id": required')
      expect(parse({ api_key: 'k', ...notGiven, list_projects: 'true' })).toMatchObject({
        projectId: undefined,
        listProjects: true
      })
    }
  })
})

describe('an input with a value for its default in action.yml, given empty (issue 69)', () => {
  /**
   * Each one, action.yml's default as the runner sets it when the workflow does not give the input,
   * the others it needs, and what not giving it means, written out here.
   */
  const defaulted: [string, string, Record<string, string>, Record<string, unknown>][] = [
    ['list_projects', 'false', {}, { listProjects: false }],
    ['wait', 'true', {}, { wait: true }],
    ['interval', '5', {}, { intervalMs: 5000 }],
    ['timeout', '10m', {}, { timeoutMs: 600_000 }],
    ['fail_fast', 'false', {}, { failFast: false }],
    ['api_host', DEFAULT_API_HOST, {}, { apiHost: DEFAULT_API_HOST }],
    ['fail_on_stale', 'false', { sweep: 'preview/*' }, { failOnStale: false }],
    ['pr_comment', 'off', {}, { prComment: 'off' }]
  ]

  it("holds every input of action.yml whose default is a value (not '', not (not given), not an expression)", () => {
    const action = parseYaml(
      readFileSync(join(import.meta.dirname, '..', 'action.yml'), 'utf8')
    ) as {
      inputs: Record<string, { default?: string }>
    }
    const withValue = Object.entries(action.inputs)
      .filter(
        ([, { default: value }]) => value && value !== '(not given)' && !value.includes('${{')
      )
      .map(([name, { default: value }]) => [name, value])
    expect(withValue.sort()).toEqual(defaulted.map(([name, value]) => [name, value]).sort())
  })

  it.each(defaulted)(
    '%s given as "" or white space alone: an input error that names it, never its default (%s)',
    (name, value, others) =>
      expectEmptyRefused(
        others,
        name,
        ['', ' ', '\n\t', '\u00a0'],
        `leave ${name} out for ${value}`
      )
  )

  it.each(defaulted)(
    "%s not given (not set at all, or action.yml's default %s): the default",
    (name, value, others, meaning) => {
      expect(parse({ ...base, ...others })).toMatchObject(meaning)
      expect(parse({ ...base, ...others, [name]: value })).toMatchObject(meaning)
    }
  )
})

describe('database_url of an unexpanded variable (issue 65)', () => {
  it.each([
    '$DATABASE_URL',
    '${DATABASE_URL}',
    ' ${DATABASE_URL:-} ',
    '$(DATABASE_URL)',
    '%DATABASE_URL%',
    '$env:DATABASE_URL',
    '${{ secrets.DATABASE_URL }}',
    '$[[ inputs.database_url ]]',
    'postgresql://app:${PGPASSWORD}@ep-1.neon.tech/app',
    'postgresql://${PGUSER}:pw@ep-1.neon.tech/app'
  ])('%j: an input error that says so, never "not given" nor merely "not a URL"', (value) => {
    expect(errorOf({ ...base, database_url: value })).toBe(
      'Invalid input: input "database_url": is a variable that was not expanded ($NAME, ${NAME}, $(NAME), %NAME% or an expression left as text), not a connection string; give the URL itself, or a variable the shell or the CI system expands (a $ in a password is written %24)'
    )
  })

  it.each([
    'postgresql://app:pa$word@127.0.0.1/app?sslmode=disable',
    'postgresql://app:%24%7BX%7D@127.0.0.1/app?sslmode=disable',
    'postgresql://app:pw$@127.0.0.1/db$1?sslmode=disable'
  ])('%j, a $ that is part of the URL: a connection string', (value) => {
    expect(parse({ ...base, database_url: value }).database).toMatchObject({ host: '127.0.0.1' })
  })
})

describe('operation_id that holds no id (issue 58)', () => {
  // White space alone is refused as empty (above).
  it.each([',', ' , , ', ',,\n,', ', \n'])(
    '%j: an input error, never "no ids given" (which would be the project gate)',
    (value) => {
      expect(errorOf({ ...base, operation_id: value })).toBe(
        'Invalid input: input "operation_id": holds no operation id, only separators (commas, spaces or new lines): an unset step output? Give operation ids (UUIDs), or leave operation_id out to gate the project or a branch (project_id, branch_id)'
      )
    }
  )

  it('not given: no ids', () => {
    expect(parse(base).operationIds).toEqual([])
  })

  const ID = '5a1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
  it.each([`${ID},`, `,${ID}`, `${ID}, ,${ID.replace('5a', '6a')}`, `${ID},\n`])(
    '%j: an empty part between commas is an input error, never dropped (its operation may be the one that failed)',
    (value) => {
      expect(errorOf({ ...base, operation_id: value })).toBe(
        'Invalid input: input "operation_id": has an empty part between commas ("a,", ",a" or "a,,b"): an unset step output? Its operation may be the one that failed; give every id, or drop the comma'
      )
    }
  )

  it.each([`${ID}\n${ID.replace('5a', '6a')}\n`, `${ID}, ${ID.replace('5a', '6a')}`, ` ${ID} `])(
    '%j: spaces and new lines alone, or beside a comma, are separators',
    (value) => {
      expect(parse({ ...base, operation_id: value }).operationIds).toContain(ID)
    }
  )
})

describe('parseDuration', () => {
  it.each([
    ['5', 5000],
    ['5s', 5000],
    ['500ms', 500],
    ['1m', 60_000],
    ['1.5m', 90_000],
    ['2h', 7_200_000],
    [' 10 s ', 10_000],
    ['5d', 432_000_000],
    ['0.5d', 43_200_000]
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it.each(['', 'abc', '-5', '5 minutes', '1w', '1dd'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })
})
