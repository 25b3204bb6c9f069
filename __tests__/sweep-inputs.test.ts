/*
 * The sweep's inputs (issue 69): what a sweep cannot be combined with is an input error in both
 * front ends' words; what it ignores, or what is ignored without it, is a warning; the command
 * takes it as `neon-gate sweep --match`.
 */
import { describe, expect, it } from '@jest/globals'
import { parseCommandLine } from '../src/command/flags.js'
import { CONTRACT_NAMING } from '../src/domain/input-naming.js'
import { ignoredInputWarnings, parseInputs } from '../src/gate/inputs.js'
import { KEYS, PROJECT } from './support/neon/ids.js'

const parse = (values: Record<string, string>) =>
  parseInputs((name) => values[name], CONTRACT_NAMING)
const base = { api_key: KEYS.organization, project_id: PROJECT, sweep: 'preview/*' }

describe('the sweep’s inputs', () => {
  it('reads the pattern, older_than (7d by default) and fail_on_stale', () => {
    const inputs = parse(base)
    expect([inputs.sweep?.text, inputs.olderThanMs, inputs.failOnStale]).toEqual([
      'preview/*',
      7 * 86_400_000,
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

  it('warns of fail_fast with it, and of fail_on_stale without it', () => {
    expect(ignoredInputWarnings(parse({ ...base, fail_fast: 'true' }), CONTRACT_NAMING)).toEqual([
      'fail_fast is ignored with sweep: a sweep waits for nothing'
    ])
    const gate = { api_key: KEYS.organization, project_id: PROJECT, fail_on_stale: 'true' }
    expect(ignoredInputWarnings(parse(gate), CONTRACT_NAMING)).toEqual([
      'fail_on_stale is ignored without sweep'
    ])
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
