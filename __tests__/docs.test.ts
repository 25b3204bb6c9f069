import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { INPUT_NAMES } from '../src/input-helper.js'
import { ACTION_NAME, ACTION_VERSION } from '../src/version.js'

const root = join(import.meta.dirname, '..')
const read = (name: string) => readFileSync(join(root, name), 'utf8')

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
    expect([...inputs].sort()).toEqual([...INPUT_NAMES].sort())
  })

  it('action.yml declares every output of the contract', () => {
    expect([...outputs].sort()).toEqual(
      [
        'outcome',
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
        'comment_url'
      ].sort()
    )
  })

  /** The first-column names of the table under a README heading. */
  function readmeTable(heading: string): string[] {
    const body = readme.split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? ''
    return [...body.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1])
  }

  it('README documents every input of action.yml in its Inputs table', () => {
    expect(readmeTable('Inputs')).toEqual(inputs)
  })

  it('README documents every output of action.yml in its Outputs table', () => {
    expect(readmeTable('Outputs')).toEqual(outputs)
  })

  it('no README recipe expands an expression inside a run: script (shell injection); outputs go through env:', () => {
    const offending: string[] = []
    for (const block of readme.matchAll(/```yaml\n([\s\S]*?)```/g)) {
      const lines = block[1].split('\n')
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
