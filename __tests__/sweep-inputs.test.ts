/*
 * The sweep's inputs (issue 69): what a sweep cannot be combined with is an input error in both
 * front ends' words, as are its own inputs without it; what it ignores is a warning; the command
 * takes it as `neon-gate sweep --match`.
 */
import { describe, expect, it } from '@jest/globals'
import { parseCommandLine } from '../src/command/flags.js'
import { CONTRACT_NAMING } from '../src/domain/input-naming.js'
import { ignoredInputWarnings, parseInputs } from '../src/gate/inputs.js'
import { KEYS, PROJECT } from './support/neon/ids.js'
import { getInputs } from '../src/runner/input-helper.js'
import assert from 'node:assert'
import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'

/** action.yml's defaults, as the runner hands them over for an input not given, and the key. */
const ACTION_DEFAULTS: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(
      (
        parseYaml(readFileSync('action.yml', 'utf8')) as {
          inputs: Record<string, { default?: string }>
        }
      ).inputs
    ).map(([name, { default: value }]) => [name, value ?? ''])
  ),
  api_key: KEYS.organization
}

const parse = (values: Record<string, string>) =>
  parseInputs((name) => values[name], CONTRACT_NAMING)
const base = { api_key: KEYS.organization, project_id: PROJECT, sweep: 'preview/*' }

describe('the sweep’s inputs', () => {
  it('reads the pattern, older_than (not given: none, which the sweep reads as 7d) and fail_on_stale', () => {
    const inputs = parse(base)
    // Not given stays apart from any value, so that given without a sweep can be refused (L3).
    expect([inputs.sweep?.text, inputs.olderThanMs, inputs.failOnStale]).toEqual([
      'preview/*',
      undefined,
      false
    ])
    expect(parse({ ...base, older_than: '36h', fail_on_stale: 'true' })).toMatchObject({
      olderThanMs: 36 * 3_600_000,
      failOnStale: true
    })
    // Review L7: units in either case, as interval and timeout read them; `M` is minutes (the docs
    // say so), never months.
    expect(parse({ ...base, older_than: '200M' }).olderThanMs).toBe(200 * 60_000)
  })

  it('refuses the inputs of another gate beside it, each by name, and needs the project', () => {
    const conflicts = {
      branch_id: 'main',
      operation_id: '8f2d0c4e-1111-4222-8333-944455556666',
      before: 'delete',
      database_url: 'postgresql://app:pw@127.0.0.1/app',
      list_projects: 'true'
    }
    for (const [name, value] of Object.entries(conflicts)) {
      expect(() => parse({ ...base, [name]: value })).toThrow(
        `input "${name}": cannot be combined with sweep`
      )
    }
    expect(() => parse({ api_key: KEYS.organization, sweep: 'preview/*' })).toThrow(
      'input "project_id": required with sweep; give the project whose branches to sweep'
    )
    expect(() => parse({ ...base, sweep: ' ' })).toThrow('input "sweep": holds only white space')
    // Given empty (an unset variable), older_than is no age: never 7d.
    for (const [given, said] of [
      ['', 'is empty'],
      ['\t', 'holds only white space']
    ]) {
      expect(() => parse({ ...base, older_than: given })).toThrow(
        `input "older_than": ${said}, what an expression gives for an unset variable or a step output that does not exist; give a value, or leave older_than out for 7d`
      )
    }
  })

  it('warns of fail_fast with it', () => {
    expect(ignoredInputWarnings(parse({ ...base, fail_fast: 'true' }), CONTRACT_NAMING)).toEqual([
      'fail_fast is ignored with sweep: a sweep waits for nothing'
    ])
  })

  // Review L3: the sweep's own inputs without it would be ignored, and the gate that ran instead
  // could pass (`--older-than 7d --fail-on-stale` with `sweep` forgotten exited 0). Both front ends
  // refuse them alike; `fail_on_stale: false`, action.yml's default, asks for nothing.
  const gate = { project_id: PROJECT }
  const refused = (said: string) =>
    `${said}: only a sweep reads it, and without ${said.startsWith('--') ? '--match' : 'sweep'} none runs`
  it.each([
    [{ older_than: '7d' }, 'input "older_than"'],
    [{ older_than: '2w', fail_on_stale: 'true' }, 'input "older_than"'],
    [{ fail_on_stale: 'true' }, 'input "fail_on_stale"']
  ])('the action: %j without sweep is an input error', (given, said) => {
    // As the runner reads them, with action.yml's defaults for the rest.
    const values: Record<string, string> = { ...ACTION_DEFAULTS, ...gate, ...given }
    expect(() => getInputs((name) => values[name] ?? '')).toThrow(refused(said))
  })

  it.each([
    [['--older-than', '7d'], '--older-than'],
    [['--older-than=36h', '--fail-on-stale'], '--older-than=36h'],
    [['--fail-on-stale'], '--fail-on-stale']
  ])('the command: %j without sweep is an input error', (argv, said) => {
    const parsed = parseCommandLine(argv, { NEON_PROJECT_ID: PROJECT })
    const { values, naming } = 'request' in parsed ? parsed.request : assert.fail('no request')
    const read = { ...values, api_key: KEYS.organization }
    expect(() => parseInputs((name) => read[name], naming)).toThrow(refused(said.split('=')[0]))
  })

  it('what asks for nothing is no error: fail_on_stale false, older_than not given', () => {
    const values: Record<string, string> = { ...ACTION_DEFAULTS, ...gate }
    expect(getInputs((name) => values[name] ?? '')).toMatchObject({ failOnStale: false })
    const parsed = parseCommandLine(['--no-fail-on-stale'], { NEON_PROJECT_ID: PROJECT })
    const { values: read, naming } =
      'request' in parsed ? parsed.request : assert.fail('no request')
    const all = { ...read, api_key: KEYS.organization }
    expect(parseInputs((name) => all[name], naming).failOnStale).toBe(false)
  })

  it('the command: neon-gate sweep --match, the word first; either alone is a usage error', () => {
    const parsed = parseCommandLine(['sweep', '--match', 'preview/*', '--fail-on-stale'], {})
    expect('request' in parsed && parsed.request.values).toMatchObject({
      sweep: 'preview/*',
      fail_on_stale: 'true'
    })
    expect(() => parseCommandLine(['sweep'], {})).toThrow('neon-gate sweep needs --match PATTERN')
    expect(() => parseCommandLine(['--match', 'preview/*'], {})).toThrow(
      '--match belongs to the sweep: run neon-gate sweep --match PATTERN'
    )
    expect(() => parseCommandLine(['--project-id', PROJECT, 'sweep'], {})).toThrow(
      'sweep must come first'
    )
  })
})
