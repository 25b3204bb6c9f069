/*
 * Issue 65's rules of the inputs, held by fast-check at their edges, in both front ends'
 * spellings. The oracles never read a value as the code does (no trimming, no matching): each
 * value is generated from a tag ("not given", "given empty", "white space", "a value"; "an
 * unexpanded variable", "a URL"; "a path suffix", "k edits", "another number"), and the expected
 * verdict comes from the tag alone.
 * (d) given empty is not "not given": '' or white space of any kind, given to an input that the
 *     catalog says refuses it (project_id, branch_id, database_url, before, operation_id, sweep), is
 *     an input error that names it; not given (not set, or action.yml's default) is the gate the others
 *     ask for, and for project_id (no list_projects here) an input error that names it;
 *     older_than given (a value) without sweep is an input error that names it (review L3);
 * (e) database_url of an unexpanded variable, in any spelling, is an input error on both front
 *     ends; a URL whose password holds a `$` is a URL;
 * (g) given empty is not its default either: '' or white space given to an input whose default in
 *     action.yml is a value (wait, timeout, fail_on_stale, …) is an input error that names it; not
 *     set, or given that default, it is the default;
 * (f) before a delete, a near miss of a branch's name (one a path suffix of the other, of two to
 *     four parts; the same numbers, leading zeros aside, with 0 to 3 edits in the rest) is an input
 *     error naming the branch; 4 edits, or another number, is another branch: `gone`.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { parseCommandLine, UsageError } from '../../src/command/flags.js'
import { InputError } from '../../src/domain/errors.js'
import {
  INPUT_CATALOG,
  inputEntry,
  INPUT_NAMES,
  type InputName
} from '../../src/gate/input-catalog.js'
import { parseInputs } from '../../src/gate/inputs.js'
import { getInputs } from '../../src/runner/input-helper.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

/** What a front end does with the values, by their contract names: the inputs, or the error. */
type Read = { error: string } | { inputs: ReturnType<typeof parseInputs> }

/** The action, as the runner hands the inputs over: an input not in `values` is not set. */
function readByAction(values: Record<string, string>): Read {
  try {
    const all: Record<string, string> = { api_key: KEYS.organization, ...values }
    return { inputs: getInputs((name) => all[name]) }
  } catch (error) {
    if (error instanceof InputError) return { error: error.message }
    throw error
  }
}

/** An input's flag as the catalog names it (`--branch-id`; the sweep's pattern: `--match`). */
const flagOf = (name: string) => `--${inputEntry(name as InputName).command.flag?.name ?? name}`

/**
 * The command, each value as its flag (`--branch-id=…`), the project by NEON_PROJECT_ID; with a
 * sweep's pattern, the command `neon-gate sweep`.
 */
function readByCommand(values: Record<string, string>): Read {
  const argv = Object.entries(values)
    .filter(([name]) => name !== 'project_id')
    .map(([name, value]) => `${flagOf(name)}=${value}`)
  if (values.sweep !== undefined) argv.unshift('sweep')
  try {
    const parsed = parseCommandLine(argv, { NEON_PROJECT_ID: values.project_id ?? '' })
    if (!('request' in parsed)) throw new Error('not a request')
    const read: Record<string, string | undefined> = {
      ...parsed.request.values,
      api_key: KEYS.organization
    }
    return { inputs: parseInputs((name) => read[name], parsed.request.naming) }
  } catch (error) {
    if (error instanceof InputError || error instanceof UsageError) return { error: error.message }
    throw error
  }
}

const readers = { action: readByAction, command: readByCommand }

/** How each front end names an input in its errors. */
const named = {
  action: (name: string) => `input "${name}"`,
  command: flagOf
}

/**
 * Whether `error` names `name` as `frontEnd` does: the command's project comes from
 * NEON_PROJECT_ID here, named so when it holds white space, and by its flag when it is missing.
 */
const names = (error: string, frontEnd: 'action' | 'command', name: string) =>
  error.includes(`${named[frontEnd](name)}: `) ||
  (frontEnd === 'command' && name === 'project_id' && error.includes('NEON_PROJECT_ID: '))

/**
 * White space of every kind Unicode names (and the byte-order mark), listed here, not taken from
 * the code: the space, tab, line breaks, the no-break and the wide spaces.
 */
const WHITE_SPACE = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u0085',
  '\u00a0',
  '\u1680',
  ...Array.from({ length: 11 }, (_, index) => String.fromCodePoint(0x2000 + index)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff'
]
const whiteSpace = fc
  .array(fc.constantFrom(...WHITE_SPACE), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(''))

const OPERATION = '0b2e9d1c-1a2b-4c3d-8e4f-5a6b7c8d9e0f'
const URL = 'postgresql://app:pw@127.0.0.1:5432/app?sslmode=disable'

/** The inputs of the catalog that refuse an empty value (`refusesEmpty`). */
type Refusing = {
  [N in InputName]: (typeof INPUT_CATALOG)[N] extends { refusesEmpty: true } ? N : never
}[InputName]

/** Each of them with its real value, as a workflow gives it: a new one must join. */
const VALUES: Record<Refusing, string> = {
  project_id: PROJECT,
  operation_id: OPERATION,
  branch_id: 'preview/pr-12',
  database_url: URL,
  before: 'delete',
  sweep: 'preview/*',
  older_than: '3d'
}
const REFUSING = Object.keys(VALUES) as Refusing[]

const tag = fc.constantFrom('notSet', 'notGiven', 'empty', 'white', 'value')
const givens = fc.record({
  frontEnd: fc.constantFrom('action', 'command'),
  tags: fc.record({
    ...(Object.fromEntries(REFUSING.map((name) => [name, tag])) as Record<Refusing, typeof tag>),
    // Given mostly, so that the other inputs' verdicts are reached beside a project too.
    project_id: fc.oneof(
      { arbitrary: fc.constant('value'), weight: 5 },
      { arbitrary: tag, weight: 2 }
    )
  }),
  white: whiteSpace
})

describe('given empty is not "not given" (issue 65, fast-check)', () => {
  it('(d) holds every input of the catalog that refuses an empty value', () => {
    const refusing = INPUT_NAMES.filter((name) => inputEntry(name).refusesEmpty)
    expect([...REFUSING].sort()).toEqual(refusing.sort())
  })

  it('(d) an empty or blank value is an input error naming it; not given is the gate the others ask for', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(givens, ({ frontEnd: end, tags: g, white }) => {
        const frontEnd = end as 'action' | 'command'
        // The combinations that are errors of another kind (issue 58) are held elsewhere.
        fc.pre(!(g.before === 'value' && g.branch_id !== 'value'))
        fc.pre(!(g.operation_id === 'value' && (g.branch_id === 'value' || g.before === 'value')))
        // older_than is the sweep's own: beside it, a sweep's input; without it, an error (below).
        const others = REFUSING.filter(
          (name) => !['project_id', 'sweep', 'older_than'].includes(name) && g[name] === 'value'
        )
        fc.pre(!(g.sweep === 'value' && others.length > 0))
        const values: Record<string, string> = {}
        for (const name of REFUSING) {
          const given = {
            notSet: undefined,
            // action.yml's default; the command has no defaults, so it sets none.
            notGiven: frontEnd === 'action' ? '(not given)' : undefined,
            empty: '',
            white,
            value: VALUES[name]
          }[g[name]]
          if (given !== undefined) values[name] = given
        }
        const read = readers[frontEnd](values)
        const blank = REFUSING.filter((name) => g[name] === 'empty' || g[name] === 'white')
        const sweepless = g.older_than === 'value' && g.sweep !== 'value'
        const projectless = g.project_id !== 'value'
        seen.add(
          blank.length > 0
            ? 'error'
            : projectless
              ? 'projectless'
              : sweepless
                ? 'sweepless'
                : g.sweep === 'value'
                  ? 'sweep'
                  : 'gate'
        )
        if (blank.length > 0) {
          if (!('error' in read)) throw new Error(`no input error for ${JSON.stringify(values)}`)
          // The action names every blank input; the command stops at its first empty flag.
          const namedOnes = blank.filter((name) => names(read.error, frontEnd, name))
          const expected = frontEnd === 'action' ? blank.length : 1
          if (namedOnes.length < expected) throw new Error(`not named: ${read.error}`)
          return
        }
        // No project, and no list_projects: every gate needs one.
        if (projectless) {
          if (!('error' in read) || !names(read.error, frontEnd, 'project_id')) {
            throw new Error(`no input error naming project_id for ${JSON.stringify(values)}`)
          }
          return
        }
        // The sweep's age given without a sweep: no gate would read it, and the one that runs could
        // pass; an input error naming it (review L3).
        if (sweepless) {
          const said = `${named[frontEnd]('older_than')}: `
          if (!('error' in read) || !read.error.includes(said)) {
            throw new Error(`no input error naming older_than for ${JSON.stringify(values)}`)
          }
          return
        }
        if ('error' in read) throw new Error(`${JSON.stringify(values)}: ${read.error}`)
        const { inputs } = read
        const value = (name: Refusing) => (g[name] === 'value' ? VALUES[name] : undefined)
        expect(inputs.branchId).toBe(value('branch_id'))
        expect(inputs.before).toBe(value('before'))
        expect(inputs.operationIds).toEqual(g.operation_id === 'value' ? [OPERATION] : [])
        expect(inputs.sweep?.text).toBe(value('sweep'))
        expect(inputs.olderThanMs).toBe(g.older_than === 'value' ? 3 * 86_400_000 : undefined)
        expect(inputs.database === undefined).toBe(g.database_url !== 'value')
      }),
      { seed: 65, numRuns: 400 }
    )
    expect([...seen].sort()).toEqual(['error', 'gate', 'projectless', 'sweep', 'sweepless'])
  })
})

/**
 * The inputs whose default in action.yml is a value: that default as the runner sets it, another
 * value, and what each means, written out here (the typed field, the default's meaning, the other's).
 */
const DEFAULTED = {
  list_projects: ['false', 'true', 'listProjects', false, true],
  wait: ['true', 'false', 'wait', true, false],
  interval: ['5', '2s', 'intervalMs', 5000, 2000],
  timeout: ['10m', '1h', 'timeoutMs', 600_000, 3_600_000],
  fail_fast: ['false', 'true', 'failFast', false, true],
  api_host: [
    'https://console.neon.tech/api/v2',
    'https://api.example.com/v2',
    'apiHost',
    'https://console.neon.tech/api/v2',
    'https://api.example.com/v2'
  ],
  fail_on_stale: ['false', 'true', 'failOnStale', false, true],
  pr_comment: ['off', 'always', 'prComment', 'off', 'always']
} as const
type Defaulted = keyof typeof DEFAULTED
const DEFAULTED_NAMES = Object.keys(DEFAULTED) as Defaulted[]

describe('given empty is not its default either (issue 69, fast-check)', () => {
  it('(g) an input whose default is a value, given "" or white space: an input error naming it; not set or its default: the default', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(
        fc.record(
          Object.fromEntries(DEFAULTED_NAMES.map((name) => [name, tag])) as Record<
            Defaulted,
            typeof tag
          >
        ),
        whiteSpace,
        (g, white) => {
          const values: Record<string, string> = { project_id: PROJECT, sweep: 'preview/*' }
          for (const name of DEFAULTED_NAMES) {
            const [byDefault, other] = DEFAULTED[name]
            const given = {
              notSet: undefined,
              notGiven: byDefault,
              empty: '',
              white,
              value: other
            }[g[name]]
            if (given !== undefined) values[name] = given
          }
          // A sweep is no listing: list_projects true beside it is an error of another kind.
          fc.pre(values.list_projects !== 'true')
          const read = readByAction(values)
          const blank = DEFAULTED_NAMES.filter((name) => g[name] === 'empty' || g[name] === 'white')
          seen.add(blank.length > 0 ? 'error' : 'read')
          if (blank.length > 0) {
            if (!('error' in read)) throw new Error(`no input error for ${JSON.stringify(values)}`)
            for (const name of blank) expect(read.error).toContain(`input "${name}": `)
            return
          }
          if ('error' in read) throw new Error(`${JSON.stringify(values)}: ${read.error}`)
          for (const name of DEFAULTED_NAMES) {
            const [, , field, meansByDefault, meansOther] = DEFAULTED[name]
            const inputs = read.inputs as unknown as Record<string, unknown>
            expect(inputs[field]).toBe(g[name] === 'value' ? meansOther : meansByDefault)
          }
        }
      ),
      { seed: 69, numRuns: 300 }
    )
    expect([...seen].sort()).toEqual(['error', 'read'])
  })
})

/** A variable's name as a shell, a CI system or a template spells it, left as text. */
const variableName = fc.constantFrom('DATABASE_URL', 'DB_URL', 'PGPASSWORD', 'X', 'db_url_2')
const unexpanded = fc
  .record({
    name: variableName,
    spelling: fc.constantFrom(
      (n: string) => `$${n}`,
      (n: string) => `\${${n}}`,
      (n: string) => `\${${n}:-}`,
      (n: string) => `$(${n})`,
      (n: string) => `%${n}%`,
      (n: string) => `$env:${n}`,
      (n: string) => `\${{ secrets.${n} }}`,
      (n: string) => `\${{ steps.branch.outputs.${n.toLowerCase()} }}`,
      (n: string) => `$[[ inputs.${n.toLowerCase()} ]]`,
      (n: string) => `{{ .${n} }}`,
      (n: string) => `postgresql://app:\${${n}}@ep-1.example.com/app`,
      (n: string) => `postgresql://\${${n}}:pw@ep-1.example.com/app`,
      (n: string) => `postgresql://app:pw@$(${n})/app`
    ),
    around: fc.constantFrom('', ' ', '\n', '\t ')
  })
  .map(({ name, spelling, around }) => ({ kind: 'unexpanded', text: around + spelling(name) }))
/** A URL whose password holds a `$` before a word, or a `$` written as %24: a URL all the same. */
const dollarUrl = fc
  .record({
    password: fc.constantFrom('pa$word', '$ecret', 'pw$', '%24%7BX%7D', '%24HOME', 'a$b$c'),
    database: fc.constantFrom('app', 'db$1', 'main')
  })
  .map(({ password, database }) => ({
    kind: 'url',
    text: `postgresql://app:${password}@127.0.0.1/${database}?sslmode=disable`
  }))

describe('database_url of an unexpanded variable (issue 65, fast-check)', () => {
  it('(e) is an input error on both front ends; a $ that belongs to the URL is a URL', () => {
    fc.assert(
      fc.property(
        fc.oneof(unexpanded, dollarUrl),
        fc.constantFrom('action', 'command'),
        ({ kind, text }, frontEnd) => {
          const read = readers[frontEnd as 'action' | 'command']({
            project_id: PROJECT,
            database_url: text
          })
          if (kind === 'url') {
            if ('error' in read) throw new Error(`${JSON.stringify(text)}: ${read.error}`)
            expect(read.inputs.database).toMatchObject({ host: '127.0.0.1', user: 'app' })
            return
          }
          const said = `${named[frontEnd as 'action' | 'command']('database_url')}: is a variable that was not expanded`
          if (!('error' in read) || !read.error.includes(said)) {
            throw new Error(`${JSON.stringify(text)}: ${JSON.stringify(read)}`)
          }
        }
      ),
      { seed: 65, numRuns: 300 }
    )
  })
})

/** Letters the generated names are made of, and letters they never hold (an edit's). */
const LETTERS = 'abcdefgh'
const NOVEL = 'wxyz'

/** A branch name: two to four parts of letters, a separator, then its number with its zeros. */
const branchName = fc.record({
  parts: fc.array(fc.stringMatching(/^[a-h]{3,6}$/), { minLength: 1, maxLength: 4 }),
  separator: fc.constantFrom('-', '_', '/', ''),
  number: fc.integer({ min: 0, max: 99_999 }),
  zeros: fc.integer({ min: 0, max: 2 })
})
type Name = typeof branchName extends fc.Arbitrary<infer T> ? T : never
const spell = (n: Name, number = n.number, zeros = n.zeros) =>
  `${n.parts.join('/')}${n.separator}${'0'.repeat(zeros)}${number}`

/**
 * The input a hand or a template writes for a branch, and whether it is near that branch (by how it
 * was made, never by comparing the two).
 */
const nearMiss = branchName.chain((n) =>
  fc.oneof(
    // Fewer parts in front: a path suffix (the last part alone, or more than it).
    fc.integer({ min: 1, max: Math.max(1, n.parts.length - 1) }).map((cut) => ({
      n,
      input: spell({ ...n, parts: n.parts.slice(cut) }),
      near: true,
      why: `suffix, ${cut} parts cut`,
      valid: cut < n.parts.length
    })),
    // More parts in front.
    fc.array(fc.stringMatching(/^[a-h]{3,6}$/), { minLength: 1, maxLength: 2 }).map((more) => ({
      n,
      input: `${more.join('/')}/${spell(n)}`,
      near: true,
      why: `${more.length} parts more`,
      valid: true
    })),
    // k edits of the letters (each one new to the name, so the distance is k), zeros changed or not.
    fc
      .record({
        k: fc.integer({ min: 0, max: 4 }),
        kind: fc.constantFrom('replace', 'insert', 'delete'),
        at: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
        zeros: fc.integer({ min: 0, max: 2 })
      })
      .map(({ k, kind, at, zeros }) => {
        const letters = [...n.parts.join('/')]
        const slots = letters.flatMap((letter, index) => (LETTERS.includes(letter) ? [index] : []))
        const chosen = [...new Set(at.map((a) => slots[a % slots.length]))].slice(0, k)
        const edited = letters.flatMap((letter, index) => {
          if (!chosen.includes(index)) return [letter]
          const novel = NOVEL[index % NOVEL.length]
          return { replace: [novel], insert: [novel, letter], delete: [] }[kind]
        })
        const parts = edited.join('').split('/')
        return {
          n,
          input: spell({ ...n, parts }, n.number, zeros),
          near: chosen.length <= 3,
          why: `${chosen.length} edits (${kind})${zeros === n.zeros ? '' : ', zeros changed'}`,
          // Every part keeps a letter (a part deleted whole is a path suffix), and k edits were made.
          valid: chosen.length === k && parts.every((part) => part !== '')
        }
      }),
    // Another number, with the letters as they are: another branch.
    fc.integer({ min: 1, max: 1000 }).map((plus) => ({
      n,
      input: spell(n, n.number + plus),
      near: false,
      why: 'another number',
      valid: true
    }))
  )
)

describe('a near miss of a branch before a delete (issue 65, fast-check)', () => {
  it('(f) is an input error naming the branch; 4 edits or another number is gone', async () => {
    const reached = new Set<string>()
    await fc.assert(
      fc.asyncProperty(nearMiss, async ({ n, input, near, why, valid }) => {
        const name = spell(n)
        fc.pre(valid && input !== name)
        reached.add(`${near}: ${why.replace(/ \(.*\)|, zeros changed/g, '')}`)
        const setup = simulatedWorld()
        setup.world.addBranch(PROJECT, { id: 'br-near-000001', name })
        const { report } = await runSimulated(setup, {
          project_id: PROJECT,
          branch_id: input,
          before: 'delete'
        })
        const fail = (what: string) => {
          throw new Error(`${what}: ${input} for ${name} (${why}): ${JSON.stringify(report)}`)
        }
        if (near) {
          if (report.teardown || report.errorCause !== 'input') fail('not an input error')
          if (!report.error?.includes(`but has ${name} (br-near-000001)`)) fail('not named')
        } else if (report.teardown?.preflight !== 'gone') {
          fail('not gone')
        }
      }),
      { seed: 65, numRuns: 300, endOnFailure: true }
    )
    // Both sides of every bound were reached: 3 edits and 4, three-part names cut and grown.
    for (const bound of ['true: 3 edits', 'false: 4 edits', 'true: suffix, 2 parts cut']) {
      expect(reached).toContain(bound)
    }
  }, 120_000)
})

describe('what the properties hold, as the cases of issue 65', () => {
  it.each([
    ['previews/pr-12', true],
    ['preview/12', true],
    ['preview/pr-012', true],
    ['team/preview/pr-12', true],
    ['pr-12', true],
    ['preview/pr-13', false],
    ['preview/pr-120', false]
  ])('%s for preview/pr-12: near %s', async (input, near) => {
    const setup = simulatedWorld()
    setup.world.addBranch(PROJECT, { id: 'br-preview-pr-12', name: 'preview/pr-12' })
    const { report } = await runSimulated(setup, {
      project_id: PROJECT,
      branch_id: input,
      before: 'delete'
    })
    if (near) {
      expect(report.error).toContain('but has preview/pr-12 (br-preview-pr-12)')
      expect(report.teardown).toBeUndefined()
    } else {
      expect(report.teardown?.preflight).toBe('gone')
    }
  })

  it.each(['action', 'command'] as const)(
    '%s: branch_id of an unset variable, database_url of an empty output, before of a space: each named',
    (frontEnd) => {
      const read = readers[frontEnd]({ project_id: PROJECT, branch_id: '' })
      expect(read).toHaveProperty(
        'error',
        expect.stringContaining(`${named[frontEnd]('branch_id')}: `)
      )
      for (const [name, value] of [
        ['database_url', ''],
        ['database_url', '  '],
        ['before', ' ']
      ]) {
        const values = { project_id: PROJECT, branch_id: 'main', [name]: value }
        expect(readers[frontEnd](values)).toHaveProperty(
          'error',
          expect.stringContaining(`${named[frontEnd](name)}: `)
        )
      }
    }
  )
})
