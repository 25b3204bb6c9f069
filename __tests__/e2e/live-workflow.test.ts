/*
 * .github/workflows/live.yml, the preview flow, as CI runs it (ci.yml calls it with a 127.0.0.1
 * api_host): each step in order, its `if`, `env` and `with` evaluated from the file, its shell in
 * bash, `uses: ./` as the runner runs the action (INPUT_* with action.yml's defaults). Only the
 * runner's own setup (checkout, setup-node, npm ci) is not run, and the job's PostgreSQL service is
 * the suite's. The workflow's expressions are evaluated by a reader of the few forms it uses; any
 * other form fails the test, so it cannot pass by skipping what it does not understand.
 */
import { describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import YAML from 'yaml'
import { runBundle } from '../support/bundles/run-bundle.ts'
import { root } from '../support/bundles/recipes.js'
import type { WorkflowStep } from '../support/github/workflows.js'
import { freshDatabase } from '../support/postgres/databases.js'
import { KEYS } from '../support/neon/ids.js'
import pg from 'pg'

type Step = WorkflowStep<string | number | boolean>
interface Workflow {
  on: { workflow_call: { inputs: { api_host: { default: string } } } }
  jobs: Record<string, { env: Record<string, string>; steps: Step[] }>
}

const workflow = YAML.parse(
  readFileSync(join(root, '.github', 'workflows', 'live.yml'), 'utf8')
) as Workflow
const actionDefaults = Object.fromEntries(
  Object.entries(
    (
      YAML.parse(readFileSync(join(root, 'action.yml'), 'utf8')) as {
        inputs: Record<string, { default?: string }>
      }
    ).inputs
  ).flatMap(([name, input]) => (input.default === undefined ? [] : [[name, input.default]]))
)

interface Context {
  inputs: Record<string, string>
  env: Record<string, string>
  steps: Record<string, { outcome: string; outputs: Record<string, string> }>
}

/** One operand: a literal, a context's value, a comparison, startsWith or always(). */
function operand(text: string, context: Context): string | boolean {
  const compare = /^(.+?) (==|!=) (.+)$/.exec(text)
  if (compare) {
    const same = operand(compare[1], context) === operand(compare[3], context)
    return compare[2] === '==' ? same : !same
  }
  const starts = /^startsWith\((.+), (.+)\)$/.exec(text)
  if (starts)
    return String(operand(starts[1], context)).startsWith(String(operand(starts[2], context)))
  if (text === 'always()') return true
  const literal = /^'([^']*)'$/.exec(text)
  if (literal) return literal[1]
  const [scope, ...path] = text.split('.')
  if (scope === 'inputs') return context.inputs[path[0]] ?? ''
  if (scope === 'env') return context.env[path[0]] ?? ''
  // No secret and no variable where CI calls the workflow (a caller passes none).
  if (scope === 'secrets' || scope === 'vars') return ''
  if (scope === 'github' && ['run_id', 'run_attempt'].includes(path[0])) return '1'
  if (scope === 'steps' && path[1] === 'outcome') return context.steps[path[0]]?.outcome ?? ''
  if (scope === 'steps' && path[1] === 'outputs')
    return context.steps[path[0]]?.outputs[path[2]] ?? ''
  throw new Error(`an expression this test does not read: ${text}`)
}

/** `a && b || c`, as GitHub evaluates it: the value of the first alternative that holds. */
function evaluate(expression: string, context: Context): string | boolean {
  let value: string | boolean = ''
  for (const alternative of expression.trim().split(' || ')) {
    for (const part of alternative.split(' && ')) {
      value = operand(part.trim(), context)
      if (!value) break
    }
    if (value) return value
  }
  return value
}

const interpolate = (text: string, context: Context) =>
  text.replace(/\$\{\{(.+?)\}\}/g, (_, expression: string) => String(evaluate(expression, context)))

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/** A step's shell, as the runner runs it (bash -e), in its own process group: what it leaves running is stopped at the end. */
function bash(script: string, env: Record<string, string>, groups: number[]) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('bash', ['-e', '-c', script], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      detached: true
    })
    groups.push(child.pid!)
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk))
    child.on('close', (code) => resolve({ code, output }))
  })
}

const outputsOf = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^[\w-]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  )

describe('the live workflow, against the local API as CI runs it', () => {
  it('creates a branch, gates it with its database URL, migrates a table, passes before: delete, deletes it', async () => {
    const database = await freshDatabase('live-workflow-password')
    const url = new URL(database.url())
    url.search = ''
    const port = await freePort()
    const context: Context = {
      inputs: { api_host: `http://127.0.0.1:${port}/api/v2` },
      env: {},
      steps: {}
    }
    const [job] = Object.values(workflow.jobs)
    for (const [name, value] of Object.entries(job.env))
      context.env[name] = interpolate(value, context)
    // The job's PostgreSQL service is the suite's.
    Object.assign(context.env, {
      LOCAL_DATABASE_URL: url.toString(),
      LOCAL_DATABASE: database.role,
      LOCAL_ROLE: database.role
    })
    expect(context.env).toMatchObject({ LOCAL: 'true', PROJECT_ID: 'demo-project-000001' })

    const dir = mkdtempSync(join(tmpdir(), 'live-workflow-'))
    const groups: number[] = []
    const ran: string[] = []
    const logs: string[] = []
    try {
      for (const [index, step] of job.steps.entries()) {
        const name = step.name ?? step.uses ?? step.run ?? ''
        const id = step.id ?? `step-${index}`
        if (step.if && !evaluate(step.if, context)) {
          context.steps[id] = { outcome: 'skipped', outputs: {} }
          continue
        }
        // The runner's setup, done here by the suite itself.
        if (/^actions\/(checkout|setup-node)@/.test(step.uses ?? '') || step.run === 'npm ci') {
          context.steps[id] = { outcome: 'success', outputs: {} }
          continue
        }
        ran.push(name)
        const env = Object.fromEntries(
          Object.entries(step.env ?? {}).map(([key, value]) => [key, interpolate(value, context)])
        )
        let outputs: Record<string, string>
        let code: number | null
        if (step.uses === './') {
          const inputs = Object.fromEntries(
            Object.entries(step.with ?? {}).map(([key, value]) => [
              key,
              interpolate(String(value), context)
            ])
          )
          const run = await runBundle({ ...actionDefaults, ...inputs })
          ;({ code, outputs } = run)
          logs.push(run.stdout)
        } else {
          expect([name, step.run]).toEqual([name, expect.any(String)])
          const file = join(dir, `output-${index}`)
          writeFileSync(file, '')
          const run = await bash(
            interpolate(step.run!, context),
            { ...context.env, ...env, GITHUB_OUTPUT: file },
            groups
          )
          code = run.code
          logs.push(run.output)
          outputs = outputsOf(file)
        }
        expect([name, code, logs.at(-1)]).toEqual([name, 0, logs.at(-1)])
        context.steps[id] = { outcome: 'success', outputs }
      }
      // The branch is gone from the local API.
      const answer = await fetch(
        `${context.env.API_HOST}/projects/${context.env.PROJECT_ID}/branches?limit=100`,
        { headers: { authorization: `Bearer ${KEYS.organization}` } }
      )
      const { branches } = (await answer.json()) as { branches: { name: string }[] }
      expect(branches.length).toBeGreaterThan(0)
      expect(branches.map((branch) => branch.name)).not.toContain(context.env.BRANCH)
    } finally {
      for (const group of groups) {
        try {
          process.kill(-group, 'SIGINT')
        } catch {
          // That step left nothing running.
        }
      }
      rmSync(dir, { recursive: true, force: true })
    }

    // Neon's actions are the live run's; here Neon's CLI made and removed the branch.
    expect(ran).toEqual([
      'Is there a key?',
      'Start the local API',
      "Create the branch (Neon's CLI, local API)",
      'Gate the new branch, its database included',
      'Migrate a table',
      'Before the delete',
      "Delete the branch (Neon's CLI, local API)",
      'Check the outputs'
    ])
    expect(context.steps.gate.outputs).toMatchObject({ outcome: 'success', gate: 'branch' })
    expect(context.steps.teardown.outputs).toMatchObject({ outcome: 'success', preflight: 'clear' })
    const all = logs.join('\n')
    expect(all).toContain('The database answered')
    expect(all).toContain('migrated: live_preview has 1 row(s)')
    expect(all).toMatch(/Branch preview\/live-1-1 \(br-[\w-]+\) can be deleted now/)
    // The database's password is masked before any line shows it.
    const shown = all.split('\n').filter((line) => line.includes('live-workflow-password'))
    expect(shown.length).toBeGreaterThan(0)
    expect(shown.filter((line) => !line.startsWith('::add-mask::'))).toEqual([])
    // The migration's table, on the branch's database.
    const client = new pg.Client({ connectionString: database.url(), ssl: false })
    await client.connect()
    const { rows } = await client.query('SELECT count(*)::int AS n FROM live_preview')
    await client.end()
    expect(rows).toEqual([{ n: 1 }])
    // A ceiling only: 42 s alone here; CI, among the suite's 8 workers on 2 cores, saw it pass 120 s.
  }, 600_000)

  it('without a key or a project (the schedule, where the secrets do not exist): says so and skips every other step', async () => {
    const context: Context = { inputs: {}, env: {}, steps: {} }
    const [job] = Object.values(workflow.jobs)
    for (const [name, value] of Object.entries(job.env))
      context.env[name] = interpolate(value, context)
    expect(context.env).toMatchObject({
      API_HOST: workflow.on.workflow_call.inputs.api_host.default,
      LOCAL: 'false',
      PROJECT_ID: ''
    })
    const [ready, ...rest] = job.steps
    const dir = mkdtempSync(join(tmpdir(), 'live-workflow-'))
    try {
      const file = join(dir, 'output')
      writeFileSync(file, '')
      const env = Object.fromEntries(
        Object.entries(ready.env ?? {}).map(([key, value]) => [key, interpolate(value, context)])
      )
      const run = await bash(ready.run!, { ...context.env, ...env, GITHUB_OUTPUT: file }, [])
      expect([run.code, run.output]).toEqual([
        0,
        'No NEON_API_KEY secret or no NEON_PROJECT_ID variable: skipping the live preview flow\n'
      ])
      context.steps[ready.id!] = { outcome: 'success', outputs: outputsOf(file) }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(context.steps.ready.outputs).toEqual({ ready: 'false' })
    // Skipped: its step did not run, so its outcome is empty to the expressions after it.
    for (const step of rest)
      expect([step.name, evaluate(step.if ?? 'true', context)]).toEqual([step.name, false])
  })
})

describe("the live workflow's pins", () => {
  it("uses Neon's actions at the commits the examples pin, and CI calls it with the local API", () => {
    const pins = (file: string) =>
      [
        ...readFileSync(join(root, file), 'utf8').matchAll(
          /uses: (neondatabase\/[\w-]+@\w{40} # v[\d.]+)/g
        )
      ]
        .map((match) => match[1])
        .sort()
    expect(pins('.github/workflows/live.yml')).toEqual(
      [...pins('examples/preview.yml'), ...pins('examples/teardown.yml')].sort()
    )
    expect(pins('.github/workflows/live.yml')).toHaveLength(2)
    const ci = YAML.parse(readFileSync(join(root, '.github', 'workflows', 'ci.yml'), 'utf8')) as {
      jobs: Record<string, { uses?: string; with?: Record<string, string> }>
    }
    expect(Object.values(ci.jobs).filter((job) => job.uses)).toEqual([
      { uses: './.github/workflows/live.yml', with: { api_host: 'http://127.0.0.1:4010/api/v2' } }
    ])
  })
})
