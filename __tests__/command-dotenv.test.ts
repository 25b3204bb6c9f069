/*
 * The dotenv file's JSON values (review L4): a value that holds JSON (`GATE_BLOCKERS`) is cut by
 * whole entries, never inside one, so that it always parses; what was left out is counted in
 * `GATE_<NAME>_CUT`. fast-check generates branches before a delete or a reset (children with long
 * names, restrictions with long reasons in any characters, the key among them) on both sides of
 * the 800-byte cut; the oracle is the standard output's JSON, which is never cut.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { judgeTeardown } from '../src/domain/teardown-rules.js'
import type { RelatedBranch, TeardownBranch } from '../src/domain/schemas.js'
import { Redactor } from '../src/domain/untrusted-text.js'
import type { RunReport } from '../src/report/report.js'
import type { TeardownCheck } from '../src/steps/teardown/teardown-check.js'
import { dotenvText, standardOutput } from '../src/command/results.js'
import { propertyRuns } from './support/property-runs.js'

const KEY = 'napi_Dotenv_Prop_Key_7Rk2Wq9Z'
const redactor = new Redactor([KEY])
/** The bound docs/cli.md gives `GATE_BLOCKERS`. */
const MAX_BYTES = 800

/** What a job reads from a dotenv value: GitLab turns `$$` back into `$`; `%%` stays. */
const asRead = (value: string): string => value.replace(/\$\$/g, '$')

/** The file's lines as name → value. */
function dotenvValues(text: string): Map<string, string> {
  const values = new Map<string, string>()
  for (const line of text.split('\n').filter(Boolean)) {
    const at = line.indexOf('=')
    values.set(line.slice(0, at), line.slice(at + 1))
  }
  return values
}

const text = fc.oneof(
  fc.string({ maxLength: 120, unit: 'binary' }),
  fc.constantFrom(KEY, '$CI_JOB_TOKEN', '%PATH%', '##[set-output x]', '"\\', '\u0085\u2028'),
  fc.string({ minLength: 100, maxLength: 900, unit: 'grapheme' })
)
const name = fc
  .tuple(text, fc.nat({ max: 200 }))
  .map(([words, pad]) => `preview/${words}${'n'.repeat(pad)}`)

const world = fc.record({
  action: fc.constantFrom('delete' as const, 'reset' as const),
  root: fc.boolean(),
  isDefault: fc.boolean(),
  protected: fc.boolean(),
  state: fc.constantFrom('ready', 'init', 'resetting', 'archived'),
  children: fc.array(name, { maxLength: 15 }),
  restrictions: fc.array(fc.record({ name: fc.constantFrom('delete', 'restore'), reason: text }), {
    maxLength: 3
  })
})

type World = typeof world extends fc.Arbitrary<infer T> ? T : never

function reportOf(w: World): RunReport {
  const branch: TeardownBranch = {
    id: 'br-target-1',
    name: 'preview/pr-1',
    parent_id: w.root ? undefined : 'br-main-1',
    default: w.isDefault,
    protected: w.protected,
    current_state: w.state,
    restricted_actions: w.restrictions
  }
  const family: RelatedBranch[] = w.children.map((child: string, index: number) => ({
    id: `br-child-${index}`,
    name: child,
    parent_id: branch.id
  }))
  const judgement = judgeTeardown(w.action, branch, family)
  const preflight = judgement.blockers.length > 0 ? 'blocked' : 'clear'
  const teardown: TeardownCheck = { action: w.action, preflight, branch, judgement }
  return {
    requests: { requests: 3, retries: 0 },
    projectId: 'p-1',
    gate: 'teardown',
    teardown,
    branch,
    outcome: preflight === 'blocked' ? 'failure' : 'success',
    elapsedMs: 900
  }
}

describe('the dotenv file', () => {
  it('a JSON value always parses, holds whole entries from the first, within 800 bytes, and counts the rest', () => {
    const seen = { cut: 0, whole: 0, emptied: 0 }
    fc.assert(
      fc.property(world, (w) => {
        const report = reportOf(w)
        const json = JSON.parse(standardOutput(report, 'json', redactor)) as Record<string, unknown>
        const file = dotenvValues(dotenvText(report, { redactor, code: 1 }))
        expect(file.has('GATE_BLOCKERS')).toBe(true)
        const whole = json.blockers as unknown[]
        for (const [line, value] of file) {
          const output = line.replace(/^GATE_/, '').toLowerCase()
          if (typeof json[output] !== 'object') continue
          expect(Buffer.byteLength(value)).toBeLessThanOrEqual(MAX_BYTES)
          const kept = JSON.parse(asRead(value).replace(/%%/g, '%')) as unknown[]
          const list = json[output] as unknown[]
          expect(kept).toEqual(list.slice(0, kept.length))
          const left = list.length - kept.length
          expect(file.get(`${line}_CUT`)).toBe(left > 0 ? String(left) : undefined)
        }
        const left =
          whole.length -
          (JSON.parse(asRead(file.get('GATE_BLOCKERS')!).replace(/%%/g, '%')) as unknown[]).length
        if (left > 0) seen.cut++
        else seen.whole++
        if (left > 0 && left === whole.length) seen.emptied++
        expect(file.get('GATE_BLOCKERS')).not.toContain(KEY)
      }),
      propertyRuns(4242, 300)
    )
    // The generators reach both sides of the bound, and an entry that alone is over it.
    expect(seen.cut).toBeGreaterThan(10)
    expect(seen.whole).toBeGreaterThan(10)
    expect(seen.emptied).toBeGreaterThan(0)
  })

  it('one entry over the bound leaves an empty array and the count, not a cut string', () => {
    const report = reportOf({
      action: 'delete',
      root: false,
      isDefault: false,
      protected: false,
      state: 'ready',
      children: [],
      // The report cuts each reason; three of them make one blocker over the bound.
      restrictions: ['a', 'b', 'c'].map((tag) => ({ name: 'delete', reason: tag.repeat(2000) }))
    })
    const file = dotenvValues(dotenvText(report, { redactor, code: 1 }))
    expect(file.get('GATE_BLOCKERS')).toBe('[]')
    expect(file.get('GATE_BLOCKERS_CUT')).toBe('1')
  })
})
