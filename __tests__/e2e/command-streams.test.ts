/*
 * The command's streams and files end to end, against the local API server and the test
 * PostgreSQL: the key and the database password kept out of every stream and file, --summary and
 * --dotenv, API text made inert, and progress on a pseudo-terminal. Exit codes: command.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freshDatabase } from '../support/postgres/databases.js'
import {
  commandOn,
  FAILING_BRANCH,
  failingBranch,
  finishingBranch,
  CONTROL,
  inTempDir,
  secretForms
} from '../support/bundles/command.js'
import { KEYS, ORG } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('the command: secrets and files', () => {
  it('--api-key-file - on standard input, --summary and --dotenv: the key in no stream and no file, in any form', async () => {
    const { gate } = await commandOn(failingBranch)
    await inTempDir(async (dir) => {
      const summary = join(dir, 'summary.md')
      const dotenv = join(dir, 'gate.env')
      const run = await gate(
        [
          '--api-key-file',
          '-',
          '--branch-id',
          FAILING_BRANCH,
          '--summary',
          summary,
          '--dotenv',
          dotenv
        ],
        { env: { NEON_API_KEY: '' }, stdin: `${KEYS.organization}\n` }
      )
      expect(run.code).toBe(1)
      const env = readFileSync(dotenv, 'utf8')
      expect(env).toMatch(/^GATE_OUTCOME=failure$/m)
      expect(env).toMatch(/^GATE_STATUS=error$/m)
      expect(env).toMatch(/^GATE_BRANCH_STATE=ready$/m)
      expect(env).toMatch(/^GATE_ERROR=compute failed to start: out of capacity$/m)
      // One variable a line, GitLab's form: NAME=value, nothing else.
      for (const line of env.trimEnd().split('\n')) expect(line).toMatch(/^GATE_[A-Z_]+=[^\n]*$/)
      expect(env).not.toContain('GATE_OPERATIONS=')
      const markdown = readFileSync(summary, 'utf8')
      expect(markdown).toContain('<h2>Neon operations gate</h2>')
      expect(markdown).toContain('❌ failure')
      for (const form of secretForms(KEYS.organization)) {
        expect(run.stdout + run.stderr + env + markdown).not.toContain(form)
      }
    })
  })

  it('inside GitHub Actions the summary goes to the step summary; the JSON holds no key either', async () => {
    const { made, gate } = await commandOn(finishingBranch)
    const [create] = made
    await inTempDir(async (dir) => {
      const stepSummary = join(dir, 'step-summary')
      writeFileSync(stepSummary, 'an earlier step wrote this\n')
      const run = await gate(['--operation-id', create.id, '--output', 'json'], {
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary }
      })
      expect(run.code).toBe(0)
      const written = readFileSync(stepSummary, 'utf8')
      expect(written.startsWith('an earlier step wrote this\n<h2>Neon operations gate</h2>')).toBe(
        true
      )
      for (const form of secretForms(KEYS.organization)) expect(run.stdout).not.toContain(form)
    })
  })

  it('a --dotenv file that cannot be written: exit 2 before any request', async () => {
    const { server, gate } = await commandOn()
    const run = await gate(['--dotenv', '/nonexistent-folder/gate.env'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: --dotenv: it cannot be opened for writing (ENOENT)')
    expect(server.requests).toHaveLength(0)
  })

  it('--database-url-file against the real PostgreSQL: the password in no stream and no file', async () => {
    const password = 'cmd-db-pw-7f3a9c'
    const database = await freshDatabase(password)
    const { gate } = await commandOn()
    await inTempDir(async (dir) => {
      const urlFile = join(dir, 'database-url')
      writeFileSync(urlFile, `${database.url()}\n`)
      const dotenv = join(dir, 'gate.env')
      const run = await gate([
        '--database-url-file',
        urlFile,
        '--dotenv',
        dotenv,
        '--output',
        'json'
      ])
      expect(run.code).toBe(0)
      const result = JSON.parse(run.stdout) as Record<string, unknown>
      expect(result.database_state).toBe('ready')
      expect(typeof result.database_ready_ms).toBe('number')
      const env = readFileSync(dotenv, 'utf8')
      expect(env).toMatch(/^GATE_DATABASE_STATE=ready$/m)
      for (const form of secretForms(password))
        expect(run.stdout + run.stderr + env).not.toContain(form)
    })
  })
})

describe('the command: standard output arrives whole through a pipe', () => {
  it('--list-projects --output json for 4,000 projects: every byte through the pipe, then the exit', async () => {
    const { gate } = await commandOn((world) => {
      for (let index = 0; index < 4000; index++) {
        world.addProject({
          id: `piped-project-${String(index).padStart(6, '0')}`,
          orgId: ORG,
          name: `a project listed through a pipe, number ${index}`
        })
      }
    })
    // Standard output is a pipe here (as in `neon-gate … | jq`), read as it comes.
    const run = await gate(['--list-projects', '--output', 'json'], {
      noProject: true
    })
    expect(run.code).toBe(0)
    // Far more than a pipe holds (64 KiB): what was still queued at the exit used to be lost.
    expect(run.stdout.length).toBeGreaterThan(400_000)
    expect(run.stdout.endsWith('}\n')).toBe(true)
    const result = JSON.parse(run.stdout) as { project_count: number; projects: unknown[] }
    expect(result.project_count).toBeGreaterThanOrEqual(4000)
    // Every project: GitHub's 1 MB of outputs a job, which cuts the action's, is no limit of a
    // command's standard output, and nothing warns that it is.
    expect(result.projects).toHaveLength(result.project_count)
    expect(run.stderr).not.toMatch(/output holds|1 MB/)
  })
})

describe('the command: what a server sends cannot drive a terminal or a CI log', () => {
  it('escape codes and runner commands in API text come out inert on every stream and file', async () => {
    const hostile = '\x1b[2J\x1b]0;owned\x07\n::add-mask::x\n##[set-output name=outcome;]success'
    const { made: op, gate } = await commandOn((world) =>
      operationIn(world, 'running', { then: 'error', error: hostile })
    )
    await inTempDir(async (dir) => {
      const dotenv = join(dir, 'gate.env')
      for (const output of ['text', 'json']) {
        const run = await gate(['--operation-id', op.id, '--output', output, '--dotenv', dotenv])
        expect(run.code).toBe(1)
        const env = readFileSync(dotenv, 'utf8')
        for (const text of [run.stdout, run.stderr, env]) {
          expect(text).not.toMatch(CONTROL)
          expect(text).not.toContain('##[')
          expect(text).not.toMatch(/^\s*::/m)
        }
        if (output === 'json') expect(JSON.parse(run.stdout).error).toBe(hostile)
      }
    })
  })
})

describe('the command on a terminal', () => {
  it.each([
    ['coloured', {}],
    ['without colour under NO_COLOR', { NO_COLOR: '1' }]
  ])(
    'progress is one line rewritten in place; the error stands above it, %s',
    async (_, env: Record<string, string>) => {
      const { made: start, gate } = await commandOn(failingBranch)
      const run = await gate(['--operation-id', start.id], { terminal: true, env })
      expect(run.code).toBe(1)
      // Each progress line clears the one before it; none ends in a new line of its own.
      // eslint-disable-next-line no-control-regex -- the terminal's own codes are what this checks
      expect(run.stderr).toMatch(/\r\x1b\[2K\[\+[\d.]+ m?s\] [^\n]*: running → error\r\x1b\[2K/)
      // The error clears the progress line and stays, on a line of its own.
      const error = env.NO_COLOR ? 'error:' : '\x1b[31merror:\x1b[39m'
      expect(run.stderr).toContain(`\r\x1b[2K${error} An operation ended in failure`)
      if (env.NO_COLOR) expect(run.stderr).not.toContain('\x1b[31m')
      // Standard output is not the terminal: the report there has no control code.
      expect(run.stdout).not.toMatch(CONTROL)
    }
  )
})
