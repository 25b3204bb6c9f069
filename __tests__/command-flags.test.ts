/*
 * The command's flags in process (src/command/flags.ts): what each becomes, where a value came
 * from and how it is named back, and every usage error. The bundle's own runs are in
 * e2e/command*.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { parseCommandLine, UsageError } from '../src/command/flags.js'
import { resultTargetsOf } from '../src/command/result-targets.js'
import { OPTIONS } from '../src/command/options.js'
import { ignoredInputWarnings, parseInputs } from '../src/gate/inputs.js'

const request = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseCommandLine(argv, env)
  if (!('request' in parsed)) throw new Error('not a request')
  return parsed.request
}

const usage = (argv: string[], env: Record<string, string> = {}): string => {
  try {
    parseCommandLine(argv, env)
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    return (error as Error).message
  }
  throw new Error('no usage error')
}

describe('parseCommandLine', () => {
  it('--help and --version, wherever they stand', () => {
    expect(parseCommandLine(['--project-id', 'p', '-h'], {})).toEqual({ help: true })
    expect(parseCommandLine(['--version'], {})).toEqual({ version: true })
  })

  it('gives the inputs as text: switches, repeated ids, and the defaults left to the schema', () => {
    const { values, output, quiet, summary, dotenvFile } = request([
      '--project-id=p-1',
      '--operation-id',
      'a',
      '--operation-id',
      'b,c',
      '--no-wait',
      '--fail-fast',
      '-q',
      '--output',
      'json',
      '--dotenv',
      'gate.env'
    ])
    expect(values).toEqual({
      project_id: 'p-1',
      operation_id: 'a,b,c',
      wait: 'false',
      fail_fast: 'true'
    })
    expect({ output, quiet, summary, dotenvFile }).toEqual({
      output: 'json',
      quiet: true,
      summary: undefined,
      dotenvFile: 'gate.env'
    })
  })

  it('names each input as it came: the flag as typed, the variable, or where the secret was read', () => {
    const { naming } = request(['--no-wait', '--interval=0'], { NEON_PROJECT_ID: 'p' })
    expect(naming.label('wait')).toBe('--no-wait')
    expect(naming.label('interval')).toBe('--interval')
    expect(naming.label('project_id')).toBe('NEON_PROJECT_ID')
    expect(naming.label('api_key')).toBe('NEON_API_KEY')
    expect(naming.label('branch_id')).toBe('--branch-id')
    expect(naming.mention('list_projects')).toBe('--list-projects')
    expect(naming.enabled('list_projects')).toBe('--list-projects')
    const fromFiles = request(['--api-key-file', 'k', '--database-url-file=u'])
    expect(fromFiles.naming.label('api_key')).toBe('--api-key-file')
    expect(fromFiles.naming.label('database_url')).toBe('--database-url-file')
  })

  it('--org-id without --list-projects: the warning names the flags as given', () => {
    const { values, naming } = request(['--org-id', 'o'], { NEON_PROJECT_ID: 'p' })
    const inputs = parseInputs((name) => ({ ...values, api_key: 'k' })[name], naming)
    expect(ignoredInputWarnings(inputs, naming)).toEqual([
      '--org-id is ignored without --list-projects'
    ])
  })

  it("the schema's problems name the flags so", () => {
    const { values, naming } = request(['--project-id', 'P', '--interval', '0.5s'])
    expect(() => parseInputs((name) => ({ ...values, api_key: 'k' })[name], naming)).toThrow(
      'Invalid input: --project-id: "P" is not valid; expected a project id matching ^[a-z0-9-]{1,60}$; --interval: "0.5s" is below the minimum of 1 second'
    )
  })

  it('NEON_PROJECT_ID is the project to gate, but --list-projects alone only lists', () => {
    expect(request([], { NEON_PROJECT_ID: 'p' }).values.project_id).toBe('p')
    expect(request(['--list-projects'], { NEON_PROJECT_ID: 'p' }).values.project_id).toBe(undefined)
    expect(
      request(['--list-projects', '--project-id', 'q'], { NEON_PROJECT_ID: 'p' }).values.project_id
    ).toBe('q')
    // Flags that only shape how it runs or what it writes leave it listing alone.
    expect(
      request(['--list-projects', '--org-id', 'o', '--no-wait', '--timeout', '1m', '-q'], {
        NEON_PROJECT_ID: 'p'
      }).values.project_id
    ).toBe(undefined)
  })

  it.each([
    ['--branch-id', 'br-a'],
    ['--operation-id', 'a'],
    ['--database-url', 'postgresql://127.0.0.1/db'],
    ['--database-url-file', 'url'],
    ['--before', 'delete']
  ])(
    '--list-projects with %s asks for a gate too: NEON_PROJECT_ID is its project',
    (flag, value) => {
      const { values, naming } = request(['--list-projects', flag, value], { NEON_PROJECT_ID: 'p' })
      expect(values.project_id).toBe('p')
      expect(naming.label('project_id')).toBe('NEON_PROJECT_ID')
    }
  )

  it('--before: its problems name the flags as typed, NEON_PROJECT_ID as the variable', () => {
    const check =
      (argv: string[], env: Record<string, string> = {}) =>
      () => {
        const { values, naming } = request(argv, env)
        parseInputs((name) => ({ ...values, api_key: 'k' })[name], naming)
      }
    expect(check(['--before', 'Drop'], { NEON_PROJECT_ID: 'p' })).toThrow(
      'Invalid input: --before: "Drop" is not one of delete, reset'
    )
    expect(check(['--before', 'delete'], { NEON_PROJECT_ID: 'p' })).toThrow(
      'Invalid input: --branch-id: required with --before delete; give the branch to check (an id, br-…, or its name)'
    )
    expect(check(['--before=reset', '--branch-id', 'main'])).toThrow(
      'Invalid input: --project-id: required with --before reset; give the project of the branch'
    )
  })

  describe('issue 58: what would weaken the gate is an error, named as typed', () => {
    const OP = '0b2e9d1c-1a2b-4c3d-8e4f-5a6b7c8d9e0f'
    const problem = (argv: string[], env: Record<string, string> = {}) => {
      const { values, naming } = request(argv, env)
      try {
        parseInputs((name) => ({ ...values, api_key: 'k' })[name], naming)
      } catch (error) {
        return (error as Error).message
      }
      throw new Error('no input error')
    }

    it.each([[[',']], [[' , , ']], [[',\n,']], [[',', ' ,']]])(
      '--operation-id %j holds no id: an input error, never the project gate',
      (values) => {
        const argv = values.flatMap((value) => ['--operation-id', value])
        expect(problem(argv, { NEON_PROJECT_ID: 'p' })).toBe(
          'Invalid input: --operation-id: holds no operation id, only separators (commas, spaces or new lines): an unset step output? Give operation ids (UUIDs), or leave --operation-id out to gate the project or a branch (--project-id, --branch-id)'
        )
      }
    )

    it('--operation-id with an empty part between commas: an input error, as in the action', () => {
      const id = '5a1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
      expect(problem(['--operation-id', `${id},`], { NEON_PROJECT_ID: 'p' })).toBe(
        'Invalid input: --operation-id: has an empty part between commas ("a,", ",a" or "a,,b"): an unset step output? Its operation may be the one that failed; give every id, or drop the comma'
      )
    })

    it('an empty or blank --branch-id or --operation-id: a usage error before any input is read', () => {
      for (const flag of ['--branch-id', '--operation-id']) {
        for (const value of ['', ' ', '\n']) {
          expect(usage([flag, value])).toBe(
            `${flag}: an empty value (an unset variable?); give one, or leave the flag out`
          )
        }
      }
    })

    it('--branch-id with --operation-id', () => {
      expect(problem(['--branch-id', 'main', '--operation-id', OP], { NEON_PROJECT_ID: 'p' })).toBe(
        "Invalid input: --branch-id: cannot be combined with --operation-id: only the listed operations would be waited for, and the branch's readiness never checked; give --branch-id alone to gate the branch, or --operation-id alone"
      )
    })

    it('--list-projects with --branch-id or --database-url and no project', () => {
      expect(problem(['--list-projects', '--branch-id', 'main'])).toBe(
        'Invalid input: --branch-id: needs --project-id: with --list-projects and no project, only the projects are listed and the branch would never be checked; give the project, or leave --branch-id out'
      )
      expect(
        problem([
          '--list-projects',
          '--database-url',
          'postgresql://a:b@127.0.0.1/d?sslmode=disable'
        ])
      ).toContain(
        '--database-url: needs --project-id: with --list-projects and no project, only the projects are listed and the database would never be queried'
      )
    })
  })

  it('a negative number after a flag is its value, which the flag then refuses', () => {
    expect(request(['--timeout', '-5', '--interval', '-1.5m']).values).toEqual({
      timeout: '-5',
      interval: '-1.5m'
    })
  })

  it.each([
    ['--branch-id', ['--branch-id', 'main', '--branch-id', 'preview/pr-12']],
    ['--before', ['--branch-id', 'b', '--before', 'delete', '--before=reset']],
    ['--project-id', ['--project-id', 'p', '--project-id', 'q']],
    ['--match', ['sweep', '--match', 'preview/*', '--match', 'other/*']],
    ['--older-than', ['sweep', '--match', 'p/*', '--older-than', '1d', '--older-than', '30d']],
    ['--timeout', ['--timeout', '1m', '--timeout', '1m']],
    ['--api-key-file', ['--api-key-file', 'a', '--api-key-file', 'b']],
    ['--output', ['--output', 'json', '--output', 'text']],
    ['--dotenv', ['--dotenv', 'a.env', '--dotenv', 'b.env']],
    ['--summary', ['--summary=a.md', '--summary', 'b.md']]
  ])('a flag of one value given twice is a usage error naming it (review M2): %s', (flag, argv) => {
    expect(usage(argv)).toBe(
      `${flag} is given twice: it takes one value, and only one would be used; give it once`
    )
  })

  it('every flag of one value is refused twice; only --operation-id repeats', () => {
    const single = Object.entries(OPTIONS).filter(
      ([, option]) => option.type === 'string' && !('multiple' in option)
    )
    expect(single.length).toBeGreaterThan(10)
    for (const [name] of single) {
      expect(usage([`--${name}`, 'a', `--${name}`, 'b'])).toContain(`--${name} is given twice`)
    }
    expect(request(['--operation-id', 'a', '--operation-id', 'b']).values.operation_id).toBe('a,b')
  })

  it('names an unknown flag only when it looks like one: anything else may be a secret', () => {
    expect(usage(['--projct-id'])).toBe('unknown flag --projct-id')
    for (const argv of [['--napi_secret_key'], ['--napi_secret_key=x'], [`--${'a'.repeat(41)}`]]) {
      expect(usage(argv)).toBe('an unknown flag (not repeated here, in case it is a secret)')
    }
  })

  it('resultTargetsOf finds the files in a command line that does not parse', () => {
    expect(resultTargetsOf(['--bogus', '--dotenv', 'a.env', '--summary=s.md', 'x'], {})).toEqual([
      { dotenvFile: 'a.env', summary: { path: 's.md', append: false } }
    ])
    // A value that starts with a dash is the next flag; after `--`, nothing is a flag.
    expect(resultTargetsOf(['--dotenv', '--summary', 's.md', '--', '--dotenv', 'b'], {})).toEqual([
      { dotenvFile: undefined, summary: { path: 's.md', append: false } }
    ])
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/s' }
    expect(resultTargetsOf(['--summary='], env)[0].summary).toEqual({ path: '/s', append: true })
    // Each path given is one to write (review M1): none keeps an earlier run's outcome.
    expect(
      resultTargetsOf(['--dotenv', 'a', '--summary', 's', '--dotenv=b', '--dotenv', ''], {})
    ).toEqual([
      { dotenvFile: 'a', summary: { path: 's', append: false } },
      { dotenvFile: 'b', summary: undefined }
    ])
  })

  it('inside GitHub Actions the summary goes to the step summary, appended; --summary overwrites', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/s' }
    expect(request([], env).summary).toEqual({ path: '/s', append: true })
    expect(request(['--summary', 'mine.md'], env).summary).toEqual({
      path: 'mine.md',
      append: false
    })
    expect(request([], { GITHUB_STEP_SUMMARY: '/s' }).summary).toBeUndefined()
  })

  it.each([
    [['--projct-id', 'p'], 'unknown flag --projct-id'],
    [['napi_secret_key'], 'an argument without its flag'],
    // Review L2: the word sweep after a flag is the sweep asked for in the wrong place.
    [
      ['--api-host', 'h', 'sweep', '--match', 'p/*'],
      'sweep must come first: neon-gate sweep --match PATTERN, then the other flags'
    ],
    [['--fail-fast=yes'], '--fail-fast takes no value (turn it off with --no-fail-fast)'],
    [['--timeout'], '--timeout needs a value'],
    [['--operation-id', ''], '--operation-id: an empty value (an unset variable?)'],
    [['--operation-id', 'a', '--operation-id', ' '], '--operation-id: an empty value'],
    [['--output', 'yaml'], '--output: not one of text, json (the value is not repeated here)'],
    [['--output', ''], '--output: an empty value'],
    [['--database-url-file='], '--database-url-file: an empty value'],
    [['--timeout', '--no-wait'], '--timeout needs a value; one that starts with a dash goes as'],
    [
      ['--branch-id', '-x'],
      '--branch-id needs a value; one that starts with a dash goes as --branch-id=-…'
    ],
    [
      ['--database-url', 'u', '--database-url-file', 'f'],
      'give --database-url or --database-url-file, not both'
    ],
    [['--api-key-file', '-', '--database-url-file', '-'], 'standard input can hold one secret']
  ])('%j: %s', (argv, message) => {
    const text = usage(argv)
    expect(text).toContain(message)
    expect(text).not.toContain('napi_secret_key')
  })
})
