import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { COMMENT_TIME_LIMIT_MS } from '../../src/runner/pr-comment.js'
import { DEADLINE_GRACE_MS, MAX_BODY_BYTES } from '../../src/api/api-core.js'
import { ApiError } from '../../src/domain/errors.js'
import {
  MAX_INTERVAL_MS,
  MAX_OPERATION_IDS,
  MAX_TIMEOUT_MS
} from '../../src/domain/input-fields.js'
import { inputEntries, INPUT_NAMES } from '../../src/gate/input-catalog.js'
import { inputTables } from '../../script/docs/input-tables.ts'
import { HELP_TEXT } from '../../src/command/help.js'
import { OPTIONS } from '../../src/command/options.js'
import { ACTION_ONLY_INPUT_NAMES } from '../../src/runner/input-helper.js'
import { getInputs } from '../../src/runner/input-helper.js'
import {
  GATE_MAX_CATCH_UP_PAGES,
  GATE_MAX_POLL_PAGES,
  GATE_POLL_PAGE_LIMIT
} from '../../src/wait/later-polls.js'
import {
  GATE_DISCOVERY_PAGE_LIMIT,
  GATE_LOOKBACK_MS,
  GATE_MAX_DISCOVERY_PAGES,
  GATE_MAX_READS_BY_ID
} from '../../src/wait/project-gate-source.js'
import { BRANCH_PAGE_LIMIT, MAX_BRANCH_PAGES } from '../../src/api/resources/branches.js'
import { RECOVERY_INTERVALS, requestTimeLimitMs, RetryPolicy } from '../../src/api/retry-policy.js'
import { REFUSED_GRACE_INTERVALS } from '../../src/steps/database/database-probe.js'
import { depcruise } from '../support/tooling/depcruise.js'
import { messageTemplates } from '../support/tooling/messages.js'
import { ACTION_NAME, ACTION_VERSION } from '../../src/domain/version.js'

const root = join(import.meta.dirname, '..', '..')
const read = (name: string) => readFileSync(join(root, name), 'utf8')

/** The quick starts, docs/quickstart/*.md: one a platform. */
const QUICK_STARTS = ['github', 'gitlab', 'terraform'].map((name) => `docs/quickstart/${name}.md`)

/** README.md, docs/*.md, the quick starts, SECURITY.md and CONTRIBUTING.md. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
  return ['README.md', 'SECURITY.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs, ...QUICK_STARTS]
}

/** Every workflow a user could copy: examples/ and the YAML blocks of the Markdown files. */
function workflowTexts(): [string, string][] {
  // The workflows; examples/command/ holds the command's recipes for other CI systems.
  const examples = readdirSync(join(root, 'examples'))
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name): [string, string] => [`examples/${name}`, read(`examples/${name}`)])
  const snippets = markdownFiles().flatMap((file) =>
    [...read(file).matchAll(/```yaml\n([\s\S]*?)```/g)].map((match, index): [string, string] => [
      `${file} yaml block ${index + 1}`,
      match[1]
    ])
  )
  return [...examples, ...snippets]
}

/** The names under a top-level section of action.yml (two-space indented keys). */
function section(yaml: string, name: string): string[] {
  const body = yaml.split(new RegExp(`^${name}:\\n`, 'm'))[1]?.split(/^\S/m)[0] ?? ''
  return [...body.matchAll(/^ {2}([a-z_]+):/gm)].map((match) => match[1])
}

describe('documentation and metadata agree with the code', () => {
  const actionYml = read('action.yml')
  const readme = read('README.md')
  const inputs = section(actionYml, 'inputs')
  const outputs = section(actionYml, 'outputs')

  it('action.yml declares exactly the inputs the code reads', () => {
    expect([...inputs].sort()).toEqual([...INPUT_NAMES, ...ACTION_ONLY_INPUT_NAMES].sort())
  })

  it('action.yml declares every output of the contract', () => {
    expect([...outputs].sort()).toEqual(
      [
        'outcome',
        'gate',
        'status',
        'operation_id',
        'action',
        'branch_id',
        'endpoint_id',
        'failures_count',
        'error',
        'created_at',
        'updated_at',
        'duration_ms',
        'operation',
        'operations',
        'projects',
        'project_count',
        'elapsed_ms',
        'branch_state',
        'comment_url',
        'database_state',
        'database_ready_ms',
        'preflight',
        'preflight_branch_id',
        'blockers',
        'stale',
        'stale_count',
        'cut'
      ].sort()
    )
  })

  /** The first-column names of the table under a README heading. */
  function readmeTable(heading: string): string[] {
    const body = readme.split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? ''
    return [...body.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1])
  }

  it('README links to the full inputs table instead of repeating it (its budget holds as inputs grow)', () => {
    const section = readme.split('\n## Inputs\n')[1].split('\n## ')[0]
    expect(section).toContain('(docs/usage.md#inputs)')
    expect(section).not.toMatch(/^\|/m)
  })

  it('README documents every output of action.yml in its Outputs table', () => {
    expect(readmeTable('Outputs')).toEqual(outputs)
  })

  it('no recipe expands an expression inside a run: script (shell injection); outputs go through env:', () => {
    const offending: string[] = []
    for (const [, yaml] of workflowTexts()) {
      const lines = yaml.split('\n')
      lines.forEach((line, index) => {
        const run = /^(\s*)(?:- )?run:(.*)$/.exec(line)
        if (!run) return
        const indent = run[1].length
        const script = [run[2]]
        for (const next of lines.slice(index + 1)) {
          if (next.trim() !== '' && next.search(/\S/) <= indent + 2) break
          script.push(next)
        }
        if (script.join('\n').includes('${{')) offending.push(line.trim())
      })
    }
    expect(offending).toEqual([])
  })

  it('no recipe puts the API key on a command line (ps shows it): curl reads it from standard input', () => {
    const recipes: [string, string][] = [
      ...workflowTexts(),
      ...readdirSync(join(root, 'examples', 'command'), { recursive: true, encoding: 'utf8' })
        .filter((name) => /\.(ya?ml|tf)$/.test(name))
        .map((name): [string, string] => [name, read(`examples/command/${name}`)]),
      ['templates/gate.yml', read('templates/gate.yml')],
      ...markdownFiles().flatMap((file) =>
        [...read(file).matchAll(/```(?:sh|bash|hcl)\n([\s\S]*?)```/g)].map(
          (match): [string, string] => [file, match[1]]
        )
      )
    ]
    const onCommandLine = recipes.flatMap(([where, text]) =>
      text
        .split('\n')
        .filter(
          (line) => /\$\{?NEON_API_KEY\b/.test(line) && /Authorization|Bearer|-H\b/.test(line)
        )
        // The one accepted form: printf (a shell built-in, no process) into curl --config -.
        .filter(
          (line) =>
            !/^\s*printf 'header = "Authorization: Bearer %s"\\n' "\$NEON_API_KEY" \|$/.test(line)
        )
        .map((line) => `${where}: ${line.trim()}`)
    )
    expect(onCommandLine).toEqual([])
    // The accepted form is really there, followed by curl --config -.
    const piped = recipes.filter(([, text]) =>
      /printf 'header = "Authorization: Bearer %s"\\n' "\$NEON_API_KEY" \|\n\s*curl --config -/.test(
        text
      )
    )
    expect(piped.map(([where]) => where).sort()).toEqual(['examples/wait-for-api-call.yml'])
  })

  it('docs/usage.md and action.yml give the same defaults, and they are the ones the code applies', () => {
    const defaults = Object.fromEntries(
      inputs.map((name) => {
        const block = actionYml.split(new RegExp(`^ {2}${name}:\\n`, 'm'))[1].split(/^ {2}\S/m)[0]
        const required = /^ {4}required: true$/m.test(block)
        const value = /^ {4}default: (.*)$/m.exec(block)?.[1].replace(/^'(.*)'$/, '$1') ?? ''
        return [name, required ? 'required' : value]
      })
    )
    const inputsSection = read('docs/usage.md').split('\n## Inputs\n')[1].split('\n## ')[0]
    const readmeDefaults = Object.fromEntries(
      [...inputsSection.matchAll(/^\| `([a-z_]+)` +\| *([^|]*?) *\|/gm)]
        .filter((match) => inputs.includes(match[1]))
        .map((match) => [match[1], match[2].replace(/^`(.*)`$/, '$1')])
    )
    expect(readmeDefaults).toEqual(defaults)
    // The code's defaults, when the runner sets nothing (a local run) or action.yml's default; the
    // key and a project given (input-helper.test.ts holds project_id's "(not given)").
    const parse = (values: Record<string, string>) =>
      getInputs((name) => (name === 'api_key' ? 'k' : name === 'project_id' ? 'p-1' : values[name]))
    const fromYml = Object.fromEntries(
      Object.entries(defaults).filter(([name]) => !['api_key', 'github_token'].includes(name))
    )
    // github_token's default is an expression the runner evaluates.
    const withoutToken = (parsed: ReturnType<typeof parse>) =>
      Object.fromEntries(Object.entries(parsed).filter(([name]) => name !== 'githubToken'))
    expect(withoutToken(parse(fromYml))).toEqual(withoutToken(parse({})))
  })

  it('every input whose action.yml default is a value says that given empty it fails the step (only github_token keeps its empty meaning)', () => {
    const saying = inputs.filter((name) => {
      const block = inputDescription(actionYml, name)
      const value = /^ {4}default: '?(.*?)'?$/m.exec(block)?.[1] ?? ''
      return value !== '' && name !== 'github_token'
    })
    expect(saying.length).toBeGreaterThan(10)
    for (const name of saying) {
      expect([name, inputDescription(actionYml, name)]).toEqual([
        name,
        expect.stringContaining(
          'Given empty or as white space alone (an expression naming an unset variable or a step output that does not exist), it fails the step, never reads as its default.'
        )
      ])
    }
  })

  it('every example and snippet passes only inputs that action.yml declares', () => {
    const unknown: string[] = []
    for (const [where, yaml] of workflowTexts()) {
      const lines = yaml.split('\n')
      lines.forEach((line, index) => {
        if (!/uses: (OWNER\/neon-operations-gate@\S+|\.\/)\s*$/.test(line)) return
        const indent = line.search(/\S/) + (line.trimStart().startsWith('- ') ? 2 : 0)
        let inWith = false
        for (const next of lines.slice(index + 1)) {
          if (next.trim() === '') continue
          const depth = next.search(/\S/)
          if (depth < indent || (depth === indent && next.trimStart().startsWith('- '))) break
          if (depth === indent) inWith = next.trim() === 'with:'
          else if (inWith && depth === indent + 2) {
            const key = /^\s*([a-z_]+):/.exec(next)?.[1]
            if (key && !inputs.includes(key)) unknown.push(`${where}: ${key}`)
          }
        }
      })
    }
    expect(unknown).toEqual([])
    expect(workflowTexts().length).toBeGreaterThan(5)
  })

  it('README stays short, links docs/ for the depth, and every relative link resolves', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024)
    for (const topic of [
      'usage',
      'recipes',
      'cli',
      'how-the-wait-works',
      'pull-requests',
      'security',
      'troubleshooting',
      'benchmarks',
      'development'
    ]) {
      expect(readme).toContain(`](docs/${topic}.md)`)
    }
    for (const file of markdownFiles()) {
      for (const [, target] of read(file).matchAll(/\]\(((?!https?:|#)[^)#\s]+)(#[^)]*)?\)/g)) {
        expect([file, existsSync(join(root, dirname(file), target))]).toEqual([file, true])
      }
    }
  })

  it('the README says first what breaks without the gate, then that it is an action and a command, then shows the preview recipe, all in 55 lines', () => {
    // 55: the snippet is examples/preview.yml with its permissions and concurrency (recipe-github).
    const first = readme.split('\n').slice(0, 55).join('\n')
    const at = (text: string) => first.indexOf(text)
    expect(at('a migration against a branch still `init`')).toBeGreaterThan(0)
    expect(at('**GitHub Action**')).toBeGreaterThan(at('a migration against a branch still `init`'))
    expect(at('`neon-gate`')).toBeGreaterThan(at('**GitHub Action**'))
    // The recipe, whole: its block opens and closes within the first 55 lines.
    const recipe = /```yaml\n([\s\S]*?)```/.exec(first)?.[1] ?? ''
    expect(at('```yaml')).toBeGreaterThan(at('`neon-gate`'))
    expect(recipe).toContain('uses: neondatabase/create-branch-action@')
    expect(recipe).toContain('uses: OWNER/neon-operations-gate@v0')
    expect(recipe).toContain('database_url: ${{ steps.branch.outputs.db_url }}')
  })

  it('every `neon-operations-gate@X.Y.Z` in the docs, the recipes and the component is this version', () => {
    const { version } = JSON.parse(read('package.json')) as { version: string }
    const files = [
      ...markdownFiles().filter((file) => file !== 'CHANGELOG.md'),
      'examples/command/gitlab-ci.yml',
      'examples/command/terraform/modules/neon-preview/gate.tf',
      'examples/command/terraform/main.tf'
    ]
    const pinned = files.flatMap((file) =>
      [...read(file).matchAll(/neon-operations-gate(?:\/gate)?@(\d+\.\d+\.\d+)/g)].map(
        (match) => `${file}: ${match[1]}`
      )
    )
    expect(pinned.length).toBeGreaterThan(4)
    expect(pinned.filter((entry) => !entry.endsWith(`: ${version}`))).toEqual([])
    // What works today comes first; npm and @v0 only "after the first release".
    const install = readme.split('\n## Install\n')[1].split('\n## ')[0]
    const after = install.indexOf('After the first release')
    for (const today of [
      'uses: OWNER/neon-operations-gate@<full commit SHA>',
      'npx --yes github:OWNER/neon-operations-gate#<full commit SHA> --help',
      'npm pack',
      'npm install --global ./neon-operations-gate-'
    ])
      expect([today, install.includes(today), install.indexOf(today) < after]).toEqual([
        today,
        true,
        true
      ])
    expect(install.indexOf('npm pack')).toBeGreaterThan(0)
    expect(install.indexOf('npm pack')).toBeLessThan(after)
    expect(install.slice(after).replace(/\s+/g, ' ')).toContain(
      `uses: OWNER/neon-operations-gate@v0\`, \`npx --yes neon-operations-gate@${version}\``
    )
    expect(install).toContain('`node:24`, not `node:24-slim`')
    // Everywhere else, an npm version follows the words "after the first release".
    const cli = read('docs/cli.md')
    const afterRelease = cli.indexOf('After the first release, from npm:')
    expect(cli.indexOf('github:OWNER/neon-operations-gate#<full commit SHA>')).toBeLessThan(
      afterRelease
    )
    expect(cli.indexOf(`npx --yes neon-operations-gate@${version} --help`)).toBeGreaterThan(
      afterRelease
    )
  })

  it('the README shows the summary of a success and of a failure, as PNGs that exist', () => {
    for (const picture of ['summary-success', 'summary-failure']) {
      const target = `docs/images/${picture}.png`
      expect(readme).toMatch(new RegExp(`!\\[[^\\]]+\\]\\(${target.replace(/\./g, '\\.')}\\)`))
      // PNG's signature: the file is a picture, not a pointer or a placeholder.
      expect(readFileSync(join(root, target)).subarray(0, 8).toString('hex')).toBe(
        '89504e470d0a1a0a'
      )
    }
  })

  it('raw Markdown stays readable: no line over 130 characters outside code blocks', () => {
    const wide: string[] = []
    for (const file of markdownFiles()) {
      read(file)
        .replace(/```[\s\S]*?```/g, '')
        .split('\n')
        .forEach((line) => {
          if ([...line].length > 130) wide.push(`${file}: ${line.slice(0, 60)}…`)
        })
    }
    expect(wide).toEqual([])
  })

  it('the README’s two commands are the ones CI runs', () => {
    expect(readme).toContain('npm ci && npm run demo')
    const ci = read('.ci/run')
    expect(ci).toMatch(/^npm ci /m)
    expect(ci).toMatch(/^npm test$/m)
    expect(ci).toMatch(/^npm run demo$/m)
  })

  it('runs on node24 from dist/index.js', () => {
    expect(actionYml).toMatch(/^ {2}using: node24$/m)
    expect(actionYml).toMatch(/^ {2}main: dist\/index\.js$/m)
  })

  it('the User-Agent version is package.json version', () => {
    const pkg = JSON.parse(read('package.json')) as { name: string; version: string }
    expect(ACTION_NAME).toBe(pkg.name)
    expect(ACTION_VERSION).toBe(pkg.version)
  })

  it('the tests run on Node 24, the runtime the action declares', () => {
    expect(Number(process.versions.node.split('.')[0])).toBe(24)
  })
})

/** The description of an input of action.yml. */
function inputDescription(yaml: string, name: string): string {
  return yaml.split(new RegExp(`^ {2}${name}:\\n`, 'm'))[1].split(/^ {2}\S/m)[0]
}

/** The rows of the first Markdown table under a heading (its header and rule left out), as cells. */
function tableUnder(markdown: string, heading: string): string[][] {
  const body = markdown.split(`\n${heading}\n`)[1]?.split('\n#')[0] ?? ''
  const tables = [...body.matchAll(/(?:^\|.*\|$\n?)+/gm)].map(([table]) => table)
  return tables
    .flatMap((table) => table.trim().split('\n').slice(2))
    .map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim())
    )
}

describe('the input catalog (src/domain/input-catalog.ts) holds action.yml, docs/usage.md and docs/cli.md', () => {
  const actionYml = read('action.yml')
  const inputs = section(actionYml, 'inputs')
  const masked = (name: string) => /\bmasked\b/i.test(inputDescription(actionYml, name))
  const catalog = new Map(inputEntries())

  it('action.yml declares each input of the catalog, and masks exactly its secrets', () => {
    for (const [name, entry] of catalog) {
      expect([name, inputs.includes(name), masked(name)]).toEqual([name, true, !!entry.secret])
    }
  })

  it.each(['action.yml', 'docs/usage.md', 'docs/cli.md', 'docs/cli.md exit codes'] as const)(
    '%s: the table npm run docs writes from the catalog and the steps',
    (doc) => {
      const { written, generated } = inputTables(doc)
      expect(written).toBe(generated)
    }
  )

  it('a stale table fails: an input of the catalog missing from it, or a description changed', () => {
    const { generated } = inputTables('docs/usage.md')
    const [, start, end] = /([\s\S]*?)\| `fail_fast`[^\n]*\n([\s\S]*)/.exec(generated)!
    expect(`${start}${end}`).not.toBe(generated)
    const yml = inputTables('action.yml').generated
    expect(yml.replace('masked before anything runs', 'masked')).not.toBe(yml)
  })

  it('docs/usage.md lists every input of action.yml: the catalog’s, then the action’s own', () => {
    const rows = tableUnder(read('docs/usage.md'), '## Inputs')
    expect(rows.map(([input]) => input.replace(/`/g, '')).sort()).toEqual([...inputs].sort())
  })

  it('docs/cli.md gives a flag’s default where it takes a value, and a switch that turns an input off says what it does', () => {
    const rows = new Map(
      tableUnder(read('docs/cli.md'), '## Flags').map(([flag, fallback, meaning]) => [
        flag,
        { fallback, meaning }
      ])
    )
    expect(rows.get('`--interval DURATION`')?.fallback).toBe('`5`')
    expect(rows.get('`--timeout DURATION`')?.fallback).toBe('`10m`')
    expect(rows.get('`--api-key-file PATH`')?.fallback).toBe('`NEON_API_KEY`')
    // A switch is off unless given: no default to show, and never the input's `true` or `false`.
    for (const flag of ['`--no-wait`', '`--fail-fast`', '`--list-projects`', '`--fail-on-stale`']) {
      expect([flag, rows.get(flag)?.fallback]).toEqual([flag, ''])
      expect(rows.get(flag)?.meaning).not.toMatch(/`(true|false)`/)
    }
  })

  it('docs/cli.md documents every flag the command takes, and no other; and each input’s variable', () => {
    const cli = read('docs/cli.md')
    const documented = tableUnder(cli, '## Flags').flatMap(([flags]) =>
      [...flags.matchAll(/`--([a-z-]+)/g)].map(([, flag]) =>
        flag.startsWith('no-') && flag.slice(3) in OPTIONS ? flag.slice(3) : flag
      )
    )
    expect([...new Set(documented)].sort()).toEqual(Object.keys(OPTIONS).sort())
    const variables = tableUnder(cli, '## Environment').flatMap(([names]) =>
      [...names.matchAll(/`([A-Z_]+)`/g)].map(([, variable]) => variable)
    )
    for (const [, { command }] of catalog) {
      if (command.env) expect(variables).toContain(command.env)
    }
  })

  it('--help names each input’s flag and file', () => {
    for (const [name, { command }] of catalog) {
      const named = [command.flag?.name, command.file].filter((flag) => flag !== undefined)
      for (const flag of named) {
        expect([
          name,
          HELP_TEXT.includes(`--${flag}`) || HELP_TEXT.includes(`--no-${flag}`)
        ]).toEqual([name, true])
      }
    }
  })
})

/**
 * The sentences of a Markdown text, as a reader meets them: code blocks, tables, headings and HTML
 * left out; a code span or a link counts as one word; a list item starts a sentence.
 */
export function sentences(markdown: string): string[] {
  return markdown
    .replace(/```[\s\S]*?```/g, '\n\n')
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .filter((line) => !/^\s*(\||#|<\/?(details|summary)|!\[)/.test(line))
    .map((line) => line.replace(/^\s*(?:[-*]|\d+\.)\s+/, '\n\n'))
    .join('\n')
    .replace(/([^\n])\n(?=[^\n])/g, '$1 ')
    .replace(/`[^`]*`/g, 'CODE')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .split(/\n\s*\n/)
    .flatMap((paragraph) =>
      paragraph
        .replace(/\s+/g, ' ')
        .trim()
        .split(/(?<=[.!?])\s+(?=[A-Z`"“(*0-9])/)
    )
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '')
}

describe('the users’ docs read easily', () => {
  const USERS_DOCS = [
    'README.md',
    'docs/usage.md',
    'docs/cli.md',
    'docs/recipes.md',
    'docs/how-the-wait-works.md',
    'docs/teardown.md',
    'docs/sweep.md',
    'docs/troubleshooting.md',
    'docs/pull-requests.md',
    'docs/security.md',
    ...QUICK_STARTS
  ]

  it('the sentence splitter counts what a reader reads', () => {
    expect(
      sentences(
        'One `two three.four` [five six](x.md). Seven?\n\n- Eight\n- nine ten\n\n| a | b |\n\n```sh\nx. Y\n```'
      )
    ).toEqual(['One CODE five six.', 'Seven?', 'Eight', 'nine ten'])
  })

  it('no sentence over 40 words in the README and the users’ docs', () => {
    const long = USERS_DOCS.flatMap((file) =>
      sentences(read(file))
        .filter((sentence) => sentence.split(' ').length > 40)
        .map((sentence) => `${file} (${sentence.split(' ').length}): ${sentence.slice(0, 80)}…`)
    )
    expect(long).toEqual([])
  })
})

describe('every message a user can meet has a troubleshooting entry', () => {
  const troubleshooting = read('docs/troubleshooting.md').replace(/\s+/g, ' ')
  const templates = messageTemplates(root)

  it('finds the messages of the code (errors, warnings, input problems)', () => {
    // A floor, so that a collector that stops finding messages cannot pass by finding none.
    expect(templates.length).toBeGreaterThan(60)
    expect(templates.map((template) => template.quote)).toContain(
      'The API rejected the key (HTTP 401 on'
    )
    // Text passed to a helper that builds the message (`explained(why)` in projects.ts).
    expect(templates.map((template) => template.quote)).toContain(
      'the key belongs to no organization'
    )
  })

  it('troubleshooting.md quotes each one', () => {
    const missing = templates
      .filter((template) => !troubleshooting.includes(template.quote))
      .map((template) => `${template.file}:${template.line} "${template.quote}"`)
    expect(missing).toEqual([])
  })
})

describe('the sweep’s `cut` output in our docs (issue 69)', () => {
  const cap = `${MAX_BRANCH_PAGES} pages of ${BRANCH_PAGE_LIMIT}`
  it.each(['docs/usage.md', 'docs/cli.md', 'docs/sweep.md'])(
    '%s says what `cut` is: true at the page cap (the code’s numbers), false when every page was read',
    (file) => {
      const text = read(file).replace(/\s+/g, ' ')
      expect(text).toContain(
        '`cut`: `true` when the list of branches stopped at its page cap, `false` when every page was read'
      )
      expect(text).toContain(`at most ${cap} branches`)
    }
  )
})

describe('numbers in the docs are the code’s', () => {
  const wait = read('docs/how-the-wait-works.md').replace(/\s+/g, ' ')
  const usage = read('docs/usage.md').replace(/\s+/g, ' ')
  const security = read('docs/security.md').replace(/\s+/g, ' ')
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`

  it('the project gate’s pages, horizon and reads by id', () => {
    expect(wait).toContain(
      `pages of ${GATE_DISCOVERY_PAGE_LIMIT} back to operations created ${GATE_LOOKBACK_MS / 3_600_000} hours before the newest one listed, or to an empty page (at most ${GATE_MAX_DISCOVERY_PAGES} pages, ${(GATE_MAX_DISCOVERY_PAGES * GATE_DISCOVERY_PAGE_LIMIT).toLocaleString('en')} operations`
    )
    expect(wait).toContain(
      `pages of ${GATE_POLL_PAGE_LIMIT} from the newest operation back to what earlier polls had seen`
    )
    expect(wait).toContain(`at most ${GATE_MAX_CATCH_UP_PAGES} pages a poll`)
    expect(wait).toContain(`oldest operation still pending, at most ${GATE_MAX_POLL_PAGES} pages`)
    expect(wait).toContain(`at most ${GATE_MAX_READS_BY_ID} a poll`)
    expect(wait).toContain(`branches?search=…&limit=${BRANCH_PAGE_LIMIT}`)
    expect(wait).toContain(`at most ${MAX_BRANCH_PAGES} pages, with a warning`)
  })

  it('the first retry after a 429, at the default interval and with a longer Retry-After', () => {
    const decide = (random: number, retryAfter?: string) =>
      new RetryPolicy({ random: () => random }).decide(
        new ApiError({ status: 429, endpoint: 'GET /x', subject: 'x', retryAfter }),
        1,
        0,
        { minimumMs: 5000, nextPollMs: 5000 }
      )!.delayMs
    const range = (retryAfter?: string) =>
      `${seconds(decide(0.999999, retryAfter)).slice(0, -2)}–${seconds(decide(0, retryAfter))}`
    expect(wait).toContain(`the next request goes out ${range()} later`)
    expect(wait).toContain(`${range('12')} for \`Retry-After: 12\``)
  })

  it('the recovery bound, the cut of a silent request, the deadline’s grace and the comment’s limit', () => {
    expect(usage).toContain(
      `the next request comes within ${RECOVERY_INTERVALS} intervals (${seconds(RECOVERY_INTERVALS * 5000)} by default)`
    )
    const cut = `cut after ${RECOVERY_INTERVALS} intervals (${requestTimeLimitMs(1000) / 1000}–${seconds(requestTimeLimitMs(60_000))})`
    expect(usage).toContain(cut)
    expect(wait).toContain(`may run up to ${seconds(DEADLINE_GRACE_MS)} past it`)
    expect(wait).toContain(`within ${seconds(COMMENT_TIME_LIMIT_MS)} of its own`)
    expect(usage).toContain(
      `a refused password or role is tried again for ${REFUSED_GRACE_INTERVALS} intervals`
    )
  })

  it('the limits of inputs and answers', () => {
    expect(usage).toContain(`At most ${MAX_OPERATION_IDS} operation ids`)
    expect(usage).toContain(`1 s to ${MAX_INTERVAL_MS / 3_600_000} h`)
    expect(usage).toContain(`1 s to ${MAX_TIMEOUT_MS / 86_400_000} days`)
    expect(security).toContain(`capped at ${MAX_BODY_BYTES / 1024 / 1024} MiB decoded`)
  })
})

describe('the picture of the layers stays true', () => {
  it('docs/development.md holds the graph dependency-cruiser draws from the imports of src/ (npm run graph)', () => {
    const script = (JSON.parse(read('package.json')) as { scripts: { graph: string } }).scripts
      .graph
    const [command, ...args] = script.match(/"[^"]*"|\S+/g)!.map((arg) => arg.replace(/"/g, ''))
    expect(command).toBe('depcruise')
    const drawn = depcruise(args, root).trim()
    const documented = /<!-- graph: npm run graph -->\n\n```mermaid\n([\s\S]*?)\n```/.exec(
      read('docs/development.md')
    )?.[1]
    expect(documented).toBe(drawn)
  })

  it('docs/development.md names every folder of src/, and every folder and file of script/', () => {
    const development = read('docs/development.md')
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}/`)
    // Every folder of script/ and every file in them, by name.
    const scripts = readdirSync(join(root, 'script'), { recursive: true, encoding: 'utf8' }).map(
      (path) => basename(path) + (path.includes('.') ? '' : '/')
    )
    for (const name of [...folders, ...scripts])
      expect([name, development.includes(name)]).toEqual([name, true])
  })
})

describe('what the docs say of the recipes, the recipes do', () => {
  const gitlab = read('examples/command/gitlab-ci.yml')
  const teardown = read('docs/teardown.md').replace(/\s+/g, ' ')
  const stopJob = gitlab.split(/^stop-preview:/m)[1] ?? ''

  it("the GitLab delete: Neon's CLI's attempts, as the docs count them (recipe-gitlab.test.ts counts the DELETEs)", () => {
    expect(teardown).toMatch(/the stop job makes up to \d+ delete attempts, \d+ s apart/)
    // The stop job deletes with Neon's CLI, which retries a 423 itself: no loop of its own.
    // The id the gate checked (docs/teardown.md: never the name again).
    expect(stopJob).toContain(
      `neon branches delete "$(sed -n 's/^GATE_PREFLIGHT_BRANCH_ID=//p' "$NEON_GATE_DOTENV")"`
    )
    expect(teardown).toContain('Delete the id the gate checked')
    expect(stopJob).not.toMatch(/for attempt in/)
    expect(teardown).not.toMatch(/retried twice/)
    // Every page that counts neonctl's tries at a 423 gives the same number as the stop job's.
    const attempts = /up to (\d+) delete attempts/.exec(teardown)?.[1]
    for (const path of ['docs/teardown.md', 'docs/troubleshooting.md']) {
      const text = read(path).replace(/\s+/g, ' ')
      expect([path, text]).not.toEqual([path, expect.stringMatching(/retries a `423` \w+ times/)])
      for (const [, count] of text.matchAll(/makes up to (\d+) attempts at a `423`/g))
        expect([path, count]).toEqual([path, attempts])
    }
  })

  it('the GitLab resource_group is said to order jobs, never whole pipelines (GitLab locks a job)', () => {
    const quickstart = read('docs/quickstart/gitlab.md').replace(/\s+/g, ' ')
    expect(gitlab).toMatch(/resource_group: preview\/mr-\$CI_MERGE_REQUEST_IID/)
    for (const text of [quickstart, gitlab.replace(/\s*#\s*/g, ' ')]) {
      expect(text).not.toMatch(/one pipeline's jobs at a time/i)
      expect(text).toMatch(/not (order )?whole pipelines|not whole pipelines/)
    }
  })

  it('a new name for a Terraform key renames its branch in place, as kislerdm/neon does: no doc says it replaces it', () => {
    const module = read('examples/command/terraform/modules/neon-preview/main.tf')
    expect(module).not.toMatch(/replace_triggered_by/)
    for (const text of [read('docs/quickstart/terraform.md'), read('docs/recipes.md'), module])
      expect(text.replace(/\s+/g, ' ')).not.toMatch(
        /new (branch_)?name (for a key )?replaces|another name replaces/
      )
  })

  it('the GitLab stop job skips the delete on the variable and file the job really has', () => {
    // Named in the docs as the job reads it: the component's dotenv file, not a variable of its own.
    const said = /unless the gate's dotenv report, the file `\$(\w+)`, holds `(\w+)=(\w+)`/.exec(
      teardown
    )
    expect(said?.slice(1)).toEqual(['NEON_GATE_DOTENV', 'GATE_PREFLIGHT', 'gone'])
    expect(stopJob).toContain(`grep -qx 'GATE_PREFLIGHT=gone' "$NEON_GATE_DOTENV"`)
    // The component's job sets that variable and gives it to --dotenv.
    const component = read('templates/gate.yml')
    expect(component).toContain("NEON_GATE_DOTENV: '$[[ inputs.dotenv ]]'")
    expect(component).toContain('--dotenv "$NEON_GATE_DOTENV"')
    expect(teardown).not.toContain('unless `$GATE_PREFLIGHT`')
  })

  it('docs/security.md pins this action to a tag only where the tag exists, else to a commit SHA', () => {
    const security = read('docs/security.md')
    const tags = execFileSync('git', ['tag', '--list'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
    const pins = [...security.matchAll(/neon-operations-gate@(<full commit SHA>|[^\s`)]+)/g)].map(
      (m) => m[1]
    )
    expect(pins).toContain('<full commit SHA>')
    expect(
      pins.filter(
        (ref) => ref !== '<full commit SHA>' && !/^[0-9a-f]{40}$/.test(ref) && !tags.includes(ref)
      )
    ).toEqual([])
    expect(security).not.toMatch(/to a tag \(`@v\d+`\)/)
  })
})

describe('the quick starts', () => {
  const words = (file: string) => read(file).split(/\s+/).filter(Boolean).length

  it('are one a platform, each at most 700 words (code included), and the only files of docs/quickstart/', () => {
    expect(readdirSync(join(root, 'docs', 'quickstart')).sort()).toEqual(
      QUICK_STARTS.map((file) => basename(file)).sort()
    )
    expect(QUICK_STARTS.map((file) => [file, words(file) <= 700])).toEqual(
      QUICK_STARTS.map((file) => [file, true])
    )
    // The count is of what is there: a page twice as long would fail.
    expect(words('docs/quickstart/github.md')).toBeGreaterThan(200)
  })

  it('each goes from nothing to create, gate, migrate, deploy and teardown, and links out for depth', () => {
    for (const file of QUICK_STARTS) {
      const text = read(file)
      const headings = [...text.matchAll(/^## (.*)$/gm)].map((match) => match[1]).join(' / ')
      expect([file, /what you need/i.test(headings), /teardown/i.test(headings)]).toEqual([
        file,
        true,
        true
      ])
      for (const step of ['Create', 'Gate', 'Migrate'])
        expect([file, step, text.includes(step)]).toEqual([file, step, true])
      expect([file, /deploy/i.test(text)]).toEqual([file, true])
      expect(text).toContain('](../troubleshooting.md)')
      expect(text).toContain('](../recipes.md#')
    }
  })

  it("the README's first screen links the three", () => {
    const firstScreen = read('README.md').split('\n').slice(0, 15).join('\n')
    for (const file of QUICK_STARTS) expect(firstScreen).toContain(`](${file})`)
  })

  it('the edge cases live in troubleshooting, not in the reference pages', () => {
    for (const edge of ['ENOSPC', 'EBADF', 'full-width']) {
      expect([edge, read('docs/troubleshooting.md').includes(edge)]).toEqual([edge, true])
      for (const reference of ['docs/cli.md', 'docs/teardown.md'])
        expect([edge, reference, read(reference).includes(edge)]).toEqual([edge, reference, false])
    }
  })
})
