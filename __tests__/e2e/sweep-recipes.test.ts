/*
 * The sweep's recipes (issue 69) run against the local API: examples/sweep.yml's sweep job through
 * the action's bundle (its `with:` evaluated as the runner would, the pull requests from the local
 * GitHub API), then its delete job's condition and matrix over the job's outputs, and its last
 * job's warning (run in bash) when the list stopped at its page cap (`cut`); and
 * examples/command/sweep.sh, the shell loop: the command's bundle as `neon-gate`, and Neon's real
 * CLI (`npx --no-install neon`) deleting through the writing front the GitLab test uses. Each over
 * the whole list, and over one cut: the deletes of what was found go ahead, then a warning.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { execFile, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction } from '../support/bundles/action.js'
import { inTempDir } from '../support/bundles/command.js'
import { evaluate, root } from '../support/bundles/recipes.js'
import { NEON_CLI } from '../support/bundles/recipe-tools.js'
import { COMMAND_BUNDLE, runCommandBundle } from '../support/bundles/run-bundle.ts'
import {
  deletingFront,
  serveStalePreviews,
  type StaleList,
  SWEEP_CUT_SHORT,
  WHOLE_OR_CUT
} from '../support/bundles/sweep-recipes.js'
import { ACTIONS_BOT, startGitHubServer } from '../support/github/server.ts'
import { exampleWorkflow, type WorkflowJob } from '../support/github/workflows.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import type { ApiServer } from '../support/neon/server.ts'
import type { World } from '../support/neon/world.ts'

const REPOSITORY = 'acme/app'
const TOKEN = 'ghs_sweep-recipe'
/** A ceiling only: Neon's CLI starts in a few seconds alone, far slower among the suite's workers. */
const SHELL_CEILING = 300_000

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const workflow = exampleWorkflow('sweep.yml')

/**
 * The workflow's sweep job, its step run through the action's bundle on addStalePreviews' world
 * and what `list` adds (the pull requests from the local GitHub API): the job's outputs, as the
 * next jobs read them.
 */
async function sweepJob(list: StaleList = {}) {
  const github = await startGitHubServer()
  cleanups.push(github.close)
  github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: false })
  github.pullStates.push({ repository: REPOSITORY, number: 8, state: 'closed', merged: false })
  github.pullStates.push({ repository: REPOSITORY, number: 5, state: 'open', merged: false })
  const { sweep } = workflow.jobs
  const step = sweep.steps.find((candidate) => candidate.id === 'sweep')!
  expect(step.uses).toMatch(/^OWNER\/neon-operations-gate@/)
  const context = {
    secrets: { NEON_API_KEY: KEYS.organization },
    vars: { NEON_PROJECT_ID: PROJECT }
  }
  const inputs = Object.fromEntries(
    Object.entries(step.with!).map(([name, value]) => [name, evaluate(String(value), context)])
  )
  const { world, server } = await serveStalePreviews(list)
  const dir = mkdtempSync(join(tmpdir(), 'sweep-event-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'event.json'), JSON.stringify({ schedule: '17 3 * * *' }))
  const run = await runAction(
    server,
    // github_token: action.yml's default, ${{ github.token }}, as the runner evaluates it.
    { ...inputs, github_token: TOKEN },
    {
      env: {
        GITHUB_EVENT_NAME: 'schedule',
        GITHUB_EVENT_PATH: join(dir, 'event.json'),
        GITHUB_REPOSITORY: REPOSITORY,
        GITHUB_API_URL: github.apiUrl
      }
    }
  )
  expect(run.code).toBe(0)
  const outputs = Object.fromEntries(
    Object.entries(sweep.outputs!).map(([name, value]) => [
      name,
      evaluate(value, { steps: { sweep: { outputs: run.outputs } } })
    ])
  )
  return { outputs, world, server }
}

/**
 * The delete job over the sweep job's `outputs`, one matrix job each, one at a time, none
 * cancelled by another's failure (`fail-fast: false`). Each step whose `if` holds runs as the
 * runner runs it: a `run:` step in bash (`bash -e`), Neon's delete action as its composite step
 * runs (`neonctl branches delete "<branch>"`, here Neon's real CLI from node_modules, which
 * resolves a branch as neonctl does) against the writing front before the local API. What became
 * of each job, by branch id: `deleted`, `skipped` (a blocker) or `failed` (its log).
 */
async function deleteJobs(
  outputs: Record<string, string>,
  world: World,
  server: ApiServer,
  options: { refusedDeletes?: Record<string, number> } = {}
): Promise<[string, string][]> {
  const { delete: remove } = workflow.jobs
  expect(remove.needs).toBe('sweep')
  expect(remove.if).toBe('needs.sweep.outputs.stale_count > 0')
  expect(Number(outputs.stale_count) > 0).toBe(true)
  expect(remove.strategy).toMatchObject({
    'fail-fast': false,
    'max-parallel': 1,
    matrix: { branch: '${{ fromJSON(needs.sweep.outputs.stale) }}' }
  })
  const matrix = JSON.parse(outputs.stale) as { id: string; blockers: string[] }[]
  expect(matrix.length).toBeLessThanOrEqual(256)
  const front = await deletingFront(world, server, options)
  cleanups.push(front.close)
  const dir = mkdtempSync(join(tmpdir(), 'sweep-delete-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const jobs: [string, string][] = []
  for (const branch of matrix) {
    jobs.push([branch.id, await deleteJob(remove, branch, { front, dir })])
  }
  expect(front.violations).toEqual([])
  return jobs
}

/** One job of the delete matrix, its steps in order until one fails. */
async function deleteJob(
  job: WorkflowJob,
  branch: { id: string; blockers: string[] },
  { front, dir }: { front: { apiHost: string }; dir: string }
): Promise<string> {
  const context = {
    matrix: { branch },
    vars: { NEON_PROJECT_ID: PROJECT },
    secrets: { NEON_API_KEY: KEYS.organization }
  }
  const blockersJoined = "join(matrix.branch.blockers, ',') == ''"
  let ran = false
  for (const step of job.steps) {
    // The one condition the steps take, read as the runner reads it.
    expect(step.if).toBe(blockersJoined)
    if (branch.blockers.join(',') !== '') continue
    ran = true
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, evaluate(value, context)])
    )
    if (step.run !== undefined) {
      const script = join(dir, 'step.sh')
      writeFileSync(script, evaluate(step.run, context))
      const shell = spawnSync('bash', ['-e', script], {
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8'
      })
      if (shell.status !== 0) return `failed: ${shell.stdout}${shell.stderr}`.trim()
      continue
    }
    expect(step.uses).toMatch(/^neondatabase\/delete-branch-action@[0-9a-f]{40}$/)
    const inputs = Object.fromEntries(
      Object.entries(step.with!).map(([name, value]) => [name, evaluate(value, context)])
    )
    // The action's step: neonctl branches delete "${{ inputs.branch }}" --project-id …, with the
    // key and host in its environment (no analytics here: nothing leaves 127.0.0.1).
    // Not spawnSync: the front and the local API answer from this process.
    const cli = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          NEON_CLI,
          'branches',
          'delete',
          inputs.branch,
          '--project-id',
          inputs.project_id,
          '--no-analytics'
        ],
        {
          env: {
            PATH: process.env.PATH,
            HOME: dir,
            NEON_API_KEY: inputs.api_key,
            NEON_API_HOST: front.apiHost
          },
          encoding: 'utf8'
        },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr })
      ).stdin?.end()
    })
    if (cli.code !== 0) return `failed: ${cli.stderr}`.trim()
  }
  return ran ? 'deleted' : 'skipped'
}

/**
 * The job that says the list was cut, after the deletes whatever became of them: whether it runs
 * over the sweep job's `outputs` (its condition, read as the runner reads its one form), and what
 * its step, run in bash as the runner runs it, logs and writes in the summary (in `dir`).
 */
function cutNotice(outputs: Record<string, string>, dir: string) {
  const { 'more-stale': notice } = workflow.jobs
  expect(notice.needs).toEqual(['sweep', 'delete'])
  expect(notice.if).toBe("${{ !cancelled() && needs.sweep.outputs.cut == 'true' }}")
  expect(['true', 'false']).toContain(outputs.cut)
  if (outputs.cut !== 'true') return undefined
  const [step] = notice.steps
  const summary = join(dir, 'summary.md')
  writeFileSync(summary, '')
  // As the runner runs a step without `shell:`: its script in a file, `bash -e {0}`.
  const script = join(dir, 'step.sh')
  writeFileSync(script, evaluate(step.run!, {}))
  const shell = spawnSync('bash', ['-e', script], {
    env: { PATH: process.env.PATH, GITHUB_STEP_SUMMARY: summary },
    encoding: 'utf8'
  })
  return {
    code: shell.status,
    log: shell.stdout + shell.stderr,
    summary: readFileSync(summary, 'utf8')
  }
}

describe('GitHub: examples/sweep.yml, its sweep job run, its delete job over the outputs', () => {
  it('lists the stale previews, a closed pull request among them, and deletes only those nothing blocks, one at a time', async () => {
    expect(workflow.permissions).toEqual({ contents: 'read', 'pull-requests': 'read' })
    const { outputs, world, server } = await sweepJob()
    expect(outputs).toMatchObject({ stale_count: '4', cut: 'false' })
    // pr-8's pull request closed, pr-3 quiet 25 days; pr-4 has a child, pr-6 restricts deletes.
    expect(await deleteJobs(outputs, world, server)).toEqual([
      ['br-preview-pr-8', 'deleted'],
      ['br-preview-pr-6', 'skipped'],
      ['br-preview-pr-4', 'skipped'],
      ['br-preview-pr-3', 'deleted']
    ])
    const left = world.branchesOf(PROJECT).map((branch) => branch.id)
    expect(left).not.toContain('br-preview-pr-8')
    expect(left).not.toContain('br-preview-pr-3')
    // The whole list read: nothing to say.
    expect(cutNotice(outputs, tmpdir())).toBeUndefined()
  }, 120_000)

  it('a list cut at its page cap: the stale branches found are deleted all the same, then a warning says more may exist', async () => {
    const { outputs, world, server } = await sweepJob({ cut: true })
    expect(outputs).toMatchObject({ stale_count: '4', cut: 'true' })
    const jobs = await deleteJobs(outputs, world, server)
    expect(jobs.filter(([, outcome]) => outcome === 'deleted').map(([id]) => id)).toEqual([
      'br-preview-pr-8',
      'br-preview-pr-3'
    ])
    const dir = mkdtempSync(join(tmpdir(), 'sweep-cut-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const notice = cutNotice(outputs, dir)
    expect(notice).toEqual({
      code: 0,
      log: `::warning title=Branch list cut short::${SWEEP_CUT_SHORT}\n`,
      summary: `${SWEEP_CUT_SHORT}\n`
    })
  }, 120_000)

  it('a delete refused (409) fails its job alone: the others still run, and an id Neon’s delete action would read as a name is never handed to it', async () => {
    const { outputs, world, server } = await sweepJob({ beyondTheCli: true })
    const jobs = await deleteJobs(outputs, world, server, {
      refusedDeletes: { 'br-preview-pr-3': 409 }
    })
    expect(jobs.map(([id, outcome]) => [id, outcome.split(':')[0]])).toEqual([
      ['br-preview-pr-8', 'deleted'],
      ['br-preview-pr-6', 'skipped'],
      ['br-preview-pr-4', 'skipped'],
      ['br-preview-pr-3', 'failed'],
      ['br-preview-pr-2', 'deleted'],
      ['br-legacy-1', 'failed']
    ])
    expect(jobs[5][1]).toContain(
      "::error title=Stale branch not deleted::Neon's delete action would read br-legacy-1 as a branch name, not an id"
    )
    const left = world.branchesOf(PROJECT).map((branch) => branch.id)
    expect(left).toEqual(
      expect.arrayContaining(['br-preview-pr-3', 'br-legacy-1', 'br-named-like-an-id'])
    )
    expect(left).not.toContain('br-preview-pr-2')
  }, 120_000)
})

/**
 * examples/command/sweep.sh run as a CI job runs it, over `world` behind a writing front (its
 * options): the command's bundle as `neon-gate`, Neon's real CLI from node_modules as `npx neon`.
 */
async function shellLoop(
  world: World,
  server: ApiServer,
  options: { refusedDeletes?: Record<string, number>; args?: string[] } = {}
) {
  const { args = ['preview/*', '7d'], ...frontOptions } = options
  const front = await deletingFront(world, server, frontOptions)
  cleanups.push(front.close)
  const run = await inTempDir(async (dir) => {
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    const gate = join(bin, 'neon-gate')
    writeFileSync(
      gate,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(COMMAND_BUNDLE)} "$@"\n`
    )
    chmodSync(gate, 0o755)
    mkdirSync(join(dir, 'home'))
    return runCommandBundle(
      [],
      {
        HOME: join(dir, 'home'),
        PATH: `${bin}:${process.env.PATH}`,
        NEON_API_KEY: KEYS.organization,
        NEON_PROJECT_ID: PROJECT,
        NEON_API_HOST: front.apiHost,
        npm_config_offline: 'true'
      },
      {
        program: ['sh', join(root, 'examples', 'command', 'sweep.sh'), ...args],
        cwd: root
      }
    )
  })
  expect(run.stdout + run.stderr).not.toContain(KEYS.organization)
  expect(front.violations).toEqual([])
  return { run, front }
}

describe('the shell loop: examples/command/sweep.sh with Neon’s CLI', () => {
  it.each(WHOLE_OR_CUT)(
    '%s: deletes each stale branch nothing blocks, by id, the key only in NEON_API_KEY; a cut list said so after',
    async (_, cut) => {
      const { world, server } = await serveStalePreviews({ cut })
      const { run, front } = await shellLoop(world, server)
      expect([run.code, run.stderr.split('\n').filter((line) => /error/i.test(line))]).toEqual([
        0,
        []
      ])
      expect(run.stdout).toContain('Deleting stale branch br-preview-pr-3')
      expect(run.stdout).toContain('Deleted 1 stale branches.')
      // Said last, once the deletes are done; never when the whole list was read.
      const warning = `warning: ${SWEEP_CUT_SHORT}`
      if (cut) expect(run.stderr.trim().split('\n').at(-1)).toBe(warning)
      else expect(run.stderr).not.toContain(warning)
      expect(front.answered).toEqual([`DELETE /projects/${PROJECT}/branches/br-preview-pr-3`])
      expect(world.branchesOf(PROJECT).map((branch) => branch.id)).not.toContain('br-preview-pr-3')
    },
    SHELL_CEILING
  )

  it.each([
    ['the pattern', ['', '7d'], '--match'],
    ['the age', ['preview/*', ''], '--older-than']
  ])(
    '%s given empty (an unset variable) is refused: exit 2 naming the flag, nothing deleted (was: the default, then deletes)',
    async (_, args, flag) => {
      const { world, server } = await serveStalePreviews()
      const { run, front } = await shellLoop(world, server, { args })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(flag)
      expect(front.answered).toEqual([])
      expect(world.branchesOf(PROJECT).map((branch) => branch.id)).toContain('br-preview-pr-3')
    },
    SHELL_CEILING
  )

  it(
    'a delete refused (409) stops nothing: every other stale branch is tried, then each one not deleted is named, and the loop exits 1',
    async () => {
      const { world, server } = await serveStalePreviews({ beyondTheCli: true })
      const { run, front } = await shellLoop(world, server, {
        refusedDeletes: { 'br-preview-pr-3': 409 }
      })
      expect(run.code).toBe(1)
      // Tried in the sweep's order, the refused one first; the one after it deleted all the same.
      expect(front.answered).toEqual([
        `DELETE /projects/${PROJECT}/branches/br-preview-pr-3`,
        `DELETE /projects/${PROJECT}/branches/br-preview-pr-2`
      ])
      const left = world.branchesOf(PROJECT).map((branch) => branch.id)
      expect(left).toContain('br-preview-pr-3')
      expect(left).not.toContain('br-preview-pr-2')
      // br-legacy-1 is never handed to Neon's CLI, which would read it as a name and delete the
      // branch named so (br-named-like-an-id) in its place.
      expect(left).toEqual(expect.arrayContaining(['br-legacy-1', 'br-named-like-an-id']))
      expect(run.stdout).toContain('Deleted 1 stale branches.')
      expect(run.stderr.trim().split('\n').slice(-2)).toEqual([
        'error: stale branch br-preview-pr-3 not deleted: Neon’s CLI failed (its error is above)',
        'error: stale branch br-legacy-1 not deleted: Neon’s CLI would read its id as a branch name'
      ])
    },
    SHELL_CEILING
  )
})
