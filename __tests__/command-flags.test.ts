/*
 * The command's flags in process (src/command/flags.ts): what each becomes, where a value came
 * from and how it is named back, and every usage error. The bundle's own runs are in
 * e2e/command*.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { parseCommandLine, UsageError } from '../src/command/flags.js'
import { parseInputs } from '../src/gate/inputs.js'

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

  it("the schema's problems name the flags so", () => {
    const { values, naming } = request(['--project-id', 'P', '--interval', '0.5s'])
    expect(() => parseInputs((name) => ({ ...values, api_key: 'k' })[name] ?? '', naming)).toThrow(
      'Invalid input: --project-id: "P" is not valid; expected a project id matching ^[a-z0-9-]{1,60}$; --interval: "0.5s" is below the minimum of 1 second'
    )
  })

  it('NEON_PROJECT_ID is the project to gate, but --list-projects alone only lists', () => {
    expect(request([], { NEON_PROJECT_ID: 'p' }).values.project_id).toBe('p')
    expect(request(['--list-projects'], { NEON_PROJECT_ID: 'p' }).values.project_id).toBe(undefined)
    expect(
      request(['--list-projects', '--project-id', 'q'], { NEON_PROJECT_ID: 'p' }).values.project_id
    ).toBe('q')
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
    [['--fail-fast=yes'], '--fail-fast takes no value (turn it off with --no-fail-fast)'],
    [['--timeout'], '--timeout needs a value'],
    [['--operation-id', ''], '--operation-id: an empty value (an unset variable?)'],
    [['--operation-id', 'a', '--operation-id', ' '], '--operation-id: an empty value'],
    [['--output', 'yaml'], '--output: "yaml" is not one of text, json'],
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
