/*
 * The layers' rules (.dependency-cruiser.mjs, and eslint.config.js's rule that keeps the action's
 * own inputs in the runner; both run by `npm run lint`) can fail: a small tree that breaks each of
 * them once makes dependency-cruiser name every rule, and ESLint flags the action's inputs named
 * below the front ends. `npm run lint` shows that the real src/ breaks none. And each optional step
 * stays in its folder: outside it, few files of the real src/ name it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { IForbiddenRuleType } from 'dependency-cruiser'
import { depcruise } from '../support/tooling/depcruise.js'

const root = join(import.meta.dirname, '..', '..')

/** Each file of the broken tree, and what it imports. */
const BROKEN: Record<string, string[]> = {
  // A layer importing a later one, at each floor.
  'src/domain/time.ts': ['../api/client.js'],
  'src/api/client.ts': ['../wait/loop.js'],
  'src/wait/loop.ts': ['../report/words.js'],
  // The runner's toolkit and GitHub below the runner (any @actions/ package but the http-client's
  // proxy rules, which the API layer keeps).
  'src/report/words.ts': [
    '../gate/gate.js',
    '@actions/github',
    '@actions/io',
    // report/ naming a step.
    '../steps/a/step.js'
  ],
  // A step importing another step, and a later layer; its own folder and src/steps/step.ts are its.
  'src/steps/a/step.ts': ['../b/step.js', './words.js', '../step.js'],
  'src/steps/a/words.ts': [],
  'src/steps/step.ts': [],
  'src/steps/b/step.ts': ['../../gate/gate.js'],
  'src/api/proxy.ts': ['@actions/http-client/lib/proxy'],
  'src/gate/gate.ts': ['../runner/main.js'],
  // The gate's run, which the front ends go through.
  'src/gate/gate-run.ts': ['./gate.js', '../api/client.js', '../api/proxy.js'],
  // The front ends importing each other, the command the toolkit, and going around the run.
  'src/runner/main.ts': ['../command/main.js', '../gate/gate-run.js', '../gate/gate.js'],
  'src/command/main.ts': ['../runner/main.js', '@actions/core', '../api/proxy.js'],
  'src/command/index.ts': ['./main.js'],
  // The action's entry starting something besides the runner.
  'src/index.ts': ['./gate/gate.js', './runner/main.js'],
  // Imported by nothing.
  'src/wait/forgotten.ts': []
}

interface Violation {
  from: string
  to: string
  rule: { name: string }
}

describe('the rules of the layers', () => {
  const configFile = join(root, '.dependency-cruiser.mjs')
  const dir = mkdtempSync(join(tmpdir(), 'layers-'))
  let violations: Violation[] = []
  /**
   * The rules `from` breaks by importing the module at `to` (a path, or a package's), but the
   * circle's: the broken tree goes round in several.
   */
  const broken = (from: string, to: string): string[] =>
    violations
      .filter((violation) => violation.from === from && violation.to.includes(to))
      .map((violation) => violation.rule.name)
      .filter((name) => name !== 'no-circular')
      .sort()

  beforeAll(() => {
    for (const [file, imports] of Object.entries(BROKEN)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true })
      const lines = imports.map((from, index) => `import * as m${index} from '${from}'`)
      writeFileSync(join(dir, file), `${lines.join('\n')}\nexport const used = ${imports.length}\n`)
    }
    copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'))
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
    // As `npm run lint` runs it, on the broken tree.
    const output = JSON.parse(
      depcruise(['src', '--config', configFile, '--output-type', 'json'], dir)
    ) as { summary: { violations: Violation[] } }
    violations = output.summary.violations
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('each rule of .dependency-cruiser.mjs fails on a tree that breaks it', async () => {
    const { default: config } = (await import(pathToFileURL(configFile).href)) as {
      default: { forbidden: IForbiddenRuleType[] }
    }
    const names = new Set(violations.map((violation) => violation.rule.name))
    expect([...names].sort()).toEqual(config.forbidden.map((rule) => rule.name).sort())
  })

  it('the front ends go through the gate’s run, and only the runner uses the toolkit', () => {
    expect(broken('src/runner/main.ts', 'src/gate/gate.ts')).toEqual([
      'front-ends-run-the-gate-through-its-run'
    ])
    expect(broken('src/runner/main.ts', 'src/gate/gate-run.ts')).toEqual([])
    expect(broken('src/command/main.ts', 'src/api/proxy.ts')).toEqual([
      'front-ends-reach-the-api-only-through-the-run'
    ])
    // The run itself stands on gate.ts and the API.
    expect(broken('src/gate/gate-run.ts', 'src/gate/gate.ts')).toEqual([])
    expect(broken('src/gate/gate-run.ts', 'src/api/client.ts')).toEqual([])
    expect(broken('src/report/words.ts', '@actions/io')).toEqual(['toolkit-only-in-runner'])
    expect(broken('src/api/proxy.ts', '@actions/http-client')).toEqual([])
  })

  it('a step imports no other step and no later layer, and report/ imports no step', () => {
    expect(broken('src/steps/a/step.ts', 'src/steps/b/step.ts')).toEqual(['step-imports-no-step'])
    expect(broken('src/steps/a/step.ts', 'src/steps/a/words.ts')).toEqual([])
    expect(broken('src/steps/a/step.ts', 'src/steps/step.ts')).toEqual([])
    expect(broken('src/steps/b/step.ts', 'src/gate/gate.ts')).toEqual([
      'steps-imports-no-later-layer'
    ])
    expect(broken('src/report/words.ts', 'src/steps/a/step.ts')).toEqual(['report-imports-no-step'])
  })
})

/**
 * What ESLint, as `npm run lint` runs it (types aside), says about `code` in each of `files`: the
 * rules it breaks there. One process for all: ESLint takes most of a second to load.
 */
function eslintRules(files: string[], code: string): Record<string, string[]> {
  const script = `
    import { ESLint } from 'eslint'
    const eslint = new ESLint({
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { projectService: false } },
        rules: {
          '@typescript-eslint/no-floating-promises': 'off',
          '@typescript-eslint/no-misused-promises': 'off'
        }
      }
    })
    const said = {}
    for (const filePath of ${JSON.stringify(files)}) {
      const [result] = await eslint.lintText(${JSON.stringify(code)}, { filePath })
      said[filePath] = result.messages.map((message) => message.ruleId ?? message.message)
    }
    console.log(JSON.stringify(said))
  `
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8'
  })
  if (run.status !== 0) throw new Error(run.stderr)
  return JSON.parse(run.stdout) as Record<string, string[]>
}

/** The code of each file of the real src/, its comments left out. */
function srcCode(): Map<string, string> {
  return new Map(
    readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => [
        `src/${file}`,
        readFileSync(join(root, 'src', file), 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\/\/.*$/gm, '')
      ])
  )
}

/**
 * The fields a step's inputs bring, which only its folder (and the files that make the inputs)
 * may read: the plan carries what the rest of the gate needs of them.
 */
const STEP_FIELDS: Record<string, string[]> = { teardown: ['before'] }

/** Whether `code` reads the field `name`: `x.name`, `x?.name`, or `{ name }` destructured. */
const readsField = (code: string, name: string): boolean =>
  new RegExp(`\\.${name}\\b|[{,]\\s*${name}\\s*[:,}]`).test(code)

/**
 * The files of src/ outside `src/steps/<step>/` that know the step: that import a module of its
 * folder, name (in code, comments aside) an identifier one of its modules exports, or read one of
 * its fields.
 */
function filesNaming(step: string, code = srcCode()): string[] {
  const folder = `src/steps/${step}/`
  const files = [...code.keys()]
  const exported = files
    .filter((file) => file.startsWith(folder))
    .flatMap((file) => [
      ...code
        .get(file)!
        .matchAll(/export\s+(?:async\s+)?(?:function|const|let|class|interface|type|enum)\s+(\w+)/g)
    ])
    .map((match) => new RegExp(`\\b${match[1]}\\b`))
  expect(exported.length).toBeGreaterThan(0)
  const fields = STEP_FIELDS[step] ?? []
  return files
    .filter((file) => !file.startsWith(folder))
    .filter((file) => {
      const text = code.get(file)!
      return (
        text.includes(`steps/${step}/`) ||
        exported.some((name) => name.test(text)) ||
        fields.some((field) => readsField(text, field))
      )
    })
}

describe('each optional step stays in its folder', () => {
  const steps = readdirSync(join(root, 'src', 'steps'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)

  it('finds every step folder of src/steps/', () => {
    expect(steps).toEqual(expect.arrayContaining(['teardown', 'database', 'projects']))
  })

  it.each(steps)('outside src/steps/%s/, at most 5 files of src/ know it', (step) => {
    const naming = filesNaming(step)
    expect([step, naming.length <= 5 ? 'at most 5' : naming]).toEqual([step, 'at most 5'])
  })

  it('a file that imports a step, or names what it exports, counts', () => {
    expect(filesNaming('teardown')).toEqual(expect.arrayContaining(['src/gate/steps.ts']))
    expect(filesNaming('database')).toEqual(expect.arrayContaining(['src/gate/gate-run.ts']))
  })

  it('a file that reads a step’s field counts: a planted read of `before` is found, and six fail', () => {
    const code = srcCode()
    const clean = filesNaming('teardown', code)
    const reads = [
      'export const idle = (report: { before?: string }) => report.before !== undefined',
      'export const idle = (inputs?: { before?: string }) => inputs?.before',
      'export function idle({ before }: { before?: string }) { return before }',
      'export function idle({ before: action }: { before?: string }) { return action }'
    ]
    const outside = [
      'src/report/headline.ts',
      'src/wait/wait-for-operations.ts',
      'src/runner/main.ts'
    ]
    for (const [index, read] of reads.entries()) {
      const file = outside[index % outside.length]
      const planted = new Map(code).set(file, `${code.get(file)!}\n${read}\n`)
      expect(filesNaming('teardown', planted).sort()).toEqual([...clean, file].sort())
    }
    // In six files beside the folder: over the budget of 5, whatever the real count.
    const six = new Map(code)
    for (const index of [1, 2, 3, 4, 5, 6]) six.set(`src/wait/planted-${index}.ts`, reads[0])
    expect(filesNaming('teardown', six).length).toBeGreaterThan(5)
    // A field of that name read nowhere is no read: `beforehand`, `isBefore`.
    const near = new Map(code).set(
      'src/wait/near.ts',
      'export const x = { beforehand: 1 }.beforehand'
    )
    expect(filesNaming('teardown', near)).toEqual(clean)
  })
})

describe('the action’s own inputs stay in the runner', () => {
  it('named anywhere below the front ends, they fail the lint; in src/runner/, they pass', () => {
    const code = [
      "export const names = ['api_key', 'pr_comment', 'pr_comment_author', 'github_token']",
      'export const inputs = { prComment: 1, prCommentAuthor: 2, githubToken: 3 }',
      ''
    ].join('\n')
    const below = ['domain', 'api', 'wait', 'report', 'steps', 'gate'].map(
      (layer) => `src/${layer}/x.ts`
    )
    const said = eslintRules([...below, 'src/runner/x.ts', 'src/command/x.ts'], code)
    const six = Array(6).fill('no-restricted-syntax')
    expect(said).toEqual({
      ...Object.fromEntries(below.map((file) => [file, six])),
      'src/runner/x.ts': [],
      'src/command/x.ts': []
    })
  })
})
