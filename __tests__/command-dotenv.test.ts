/*
 * The dotenv file's JSON values (review L4): a value that holds JSON (`GATE_BLOCKERS`) always
 * parses and keeps every entry: only the end of a `detail` is cut, with the marker, never a reason
 * or the JSON around it. fast-check generates branches before a delete or a reset (children with long
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

/** The value a job reads, as JSON: GitLab turns `$$` back into `$`; `%%` stays, written for `%`. */
const parsed = (value: string) =>
  JSON.parse(asRead(value).replace(/%%/g, '%')) as { reason: string; detail: string }[]

/** `detail` is the start of `whole`, then the marker that counts the characters left out. */
function cutFrom(detail: string, whole: string): boolean {
  const match = /^([\s\S]*)… \[(\d+) more characters\]$/.exec(detail)
  return (
    match !== null &&
    whole.startsWith(match[1]) &&
    whole.length - match[1].length === Number(match[2])
  )
}

describe('the dotenv file', () => {
  it('GATE_BLOCKERS always parses within 800 bytes and keeps every reason; a detail loses only its end', () => {
    const seen = { cut: 0, whole: 0 }
    fc.assert(
      fc.property(world, (w) => {
        const report = reportOf(w)
        const json = JSON.parse(standardOutput(report, 'json', redactor)) as Record<string, unknown>
        const value = dotenvValues(dotenvText(report, { redactor, code: 1 })).get('GATE_BLOCKERS')
        expect(value).toBeDefined()
        expect(Buffer.byteLength(value!)).toBeLessThanOrEqual(MAX_BYTES)
        expect(value).not.toContain(KEY)
        const whole = json.blockers as { reason: string; detail: string }[]
        const kept = parsed(value!)
        expect(kept.map((blocker) => blocker.reason)).toEqual(
          whole.map((blocker) => blocker.reason)
        )
        kept.forEach(({ detail }, index) => {
          if (detail !== whole[index].detail)
            expect(cutFrom(detail, whole[index].detail)).toBe(true)
        })
        if (JSON.stringify(kept) === JSON.stringify(whole)) seen.whole++
        else seen.cut++
      }),
      propertyRuns(4242, 300)
    )
    // The generators reach both sides of the bound.
    expect(seen.cut).toBeGreaterThan(10)
    expect(seen.whole).toBeGreaterThan(10)
  })

  it('one blocker whose detail alone is over the bound: kept, its detail cut, still JSON', () => {
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
    const value = dotenvValues(dotenvText(report, { redactor, code: 1 })).get('GATE_BLOCKERS')!
    const [blocker, ...rest] = parsed(value)
    expect(rest).toEqual([])
    expect(blocker.reason).toBe('restricted')
    const json = JSON.parse(standardOutput(report, 'json', redactor)) as {
      blockers: { detail: string }[]
    }
    expect(cutFrom(blocker.detail, json.blockers[0].detail)).toBe(true)
    expect(Buffer.byteLength(value)).toBeLessThanOrEqual(MAX_BYTES)
    // The longest cut that fits: not one character more would.
    expect(Buffer.byteLength(value)).toBeGreaterThan(MAX_BYTES - 20)
  })
})
