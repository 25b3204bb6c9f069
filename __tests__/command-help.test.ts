/*
 * The command's --help (src/command/help.ts) from the step list and the input catalog: a usage line
 * for each gate, the core's and each step's that is a gate of its own, and under each exit code the
 * reasons the core and each step give for it. A step that brings neither, a reason shown under
 * another code than the command ends with, or an exit code the help leaves out fails here. That each
 * input's flag is in --help: tooling/docs.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { EXIT, exitCodeOf } from '../src/command/exit-codes.js'
import { HELP_TEXT } from '../src/command/help.js'
import { flagOf } from '../src/command/options.js'
import { INPUT_NAMES, type InputName } from '../src/gate/input-catalog.js'
import { STEPS } from '../src/gate/steps.js'
import type { RunReport } from '../src/report/report.js'

/** The lines of --help under `heading`, up to the next blank line. */
const linesUnder = (heading: string): string[] =>
  HELP_TEXT.split(`\n${heading}\n`)[1].split('\n\n')[0].split('\n')

/** The inputs a step's words name (`{before}`), each checked to be the catalog's. */
function inputsNamed(words: string): InputName[] {
  const names = [...words.matchAll(/\{(\w+)\}/g)].map(([, name]) => name)
  for (const name of names) expect(INPUT_NAMES).toContain(name)
  return names as InputName[]
}

/** The step's words as the user reads them: each input as its flag (`--fail-on-stale`). */
const asRead = (words: string): string =>
  inputsNamed(words).reduce((text, name) => text.replace(`{${name}}`, flagOf(name)), words)

/** Each exit code in --help, with its reasons: the first beside it, each further one after `or`. */
function exitCodes(): Map<number, string[]> {
  const codes = new Map<number, string[]>()
  let code = NaN
  for (const line of linesUnder('Exit codes:')) {
    const [, number, first] = /^ {2}(\d+) +(.*)$/.exec(line) ?? []
    if (number !== undefined) codes.set((code = Number(number)), [first])
    else codes.get(code)!.push(/^ {7}or (.*)$/.exec(line)![1])
  }
  return codes
}

describe('--help from the step list', () => {
  it('each step is a gate of its own (a usage line) or brings a reason for a run to end', () => {
    for (const [index, { help }] of STEPS.entries()) {
      const says = help.usage !== undefined || help.ends.length > 0
      expect([index, says]).toEqual([index, true])
    }
  })

  it('the usage has a line for each gate: the core’s two, then each step’s, its flags from the catalog', () => {
    const usage = linesUnder('Usage:')
    const gates = STEPS.flatMap(({ help }) => help.usage ?? [])
    expect(usage).toHaveLength(2 + gates.length)
    for (const line of usage) expect(line).toMatch(/^ {2}neon-gate .* \[options\]$/)
    gates.forEach((gate, index) => {
      const line = usage[2 + index]
      // Each input as its flag, in the step's order, with the value the catalog's help gives it.
      const at = inputsNamed(gate).map((name) => line.search(new RegExp(`${flagOf(name)}\\b`)))
      expect(at.every((place) => place > 0)).toBe(true)
      expect(at).toEqual([...at].sort((a, b) => a - b))
      expect(line).not.toContain('{')
    })
    expect(usage).toContain(
      '  neon-gate --project-id ID --branch-id BRANCH --before delete|reset [options]'
    )
  })

  it('each step’s reasons stand under the code the command ends with for that outcome', () => {
    const codes = exitCodes()
    const reasons = STEPS.flatMap(({ help }) => help.ends)
    expect(reasons.map(([outcome]) => outcome)).toEqual(
      expect.arrayContaining(['failure', 'error'])
    )
    for (const [outcome, reason] of reasons) {
      const code = exitCodeOf({ outcome } as RunReport, undefined)
      expect([outcome, code, codes.get(code)]).toEqual([
        outcome,
        code,
        expect.arrayContaining([asRead(reason)])
      ])
    }
  })

  it('every exit code of the command stands in --help once, in order, with a reason', () => {
    const codes = exitCodes()
    expect([...codes.keys()]).toEqual(Object.values(EXIT).sort((a, b) => a - b))
    for (const reasons of codes.values())
      expect(reasons.every((reason) => reason !== '')).toBe(true)
    expect(codes.get(EXIT.pending)?.[0]).toMatch(/^--no-wait, /)
  })

  it('fits 92 columns, as it did when it was written by hand', () => {
    const widths = HELP_TEXT.split('\n').map((line) => line.length)
    expect(Math.max(...widths)).toBeLessThanOrEqual(92)
  })
})
