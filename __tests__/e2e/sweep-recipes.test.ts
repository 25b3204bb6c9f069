/*
 * The sweep's recipes (issue 69) run against the local API: examples/sweep.yml's sweep job through
 * the action's bundle (its `with:` evaluated as the runner would, the pull requests from the local
 * GitHub API), then its delete job's condition and matrix over the job's outputs; and
 * examples/command/sweep.sh, the shell loop: the command's bundle as `neon-gate`, and Neon's real
 * CLI (`npx --no-install neon`) deleting through the writing front the GitLab test uses.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { runAction, serve } from '../support/bundles/action.js'
import { inTempDir } from '../support/bundles/command.js'
import { evaluate, root } from '../support/bundles/recipes.js'
import { COMMAND_BUNDLE, runCommandBundle } from '../support/bundles/run-bundle.ts'
import { ACTIONS_BOT, startGitHubServer } from '../support/github/server.ts'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { addStalePreviews } from '../support/neon/scenarios.js'
import { startWritingFront } from '../support/neon/writes.js'

const REPOSITORY = 'acme/app'
const TOKEN = 'ghs_sweep-recipe'
/** A ceiling only: Neon's CLI starts in a few seconds alone, far slower among the suite's workers. */
const SHELL_CEILING = 300_000

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

type Step = { id?: string; uses?: string; if?: string; with?: Record<string, string> }
type Job = {
  needs?: string
  if?: string
  outputs?: Record<string, string>
  strategy?: { matrix: Record<string, string>; 'max-parallel'?: number }
  steps: Step[]
}
const workflow = parse(readFileSync(join(root, 'examples', 'sweep.yml'), 'utf8')) as {
  permissions: Record<string, string>
  jobs: Record<string, Job>
}

describe('GitHub: examples/sweep.yml, its sweep job run, its delete job over the outputs', () => {
  it('lists the stale previews, a closed pull request among them, and deletes only those nothing blocks, one at a time', async () => {
    const github = await startGitHubServer()
    cleanups.push(github.close)
    github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: false })
    github.pullStates.push({ repository: REPOSITORY, number: 8, state: 'closed', merged: false })
    github.pullStates.push({ repository: REPOSITORY, number: 5, state: 'open', merged: false })
    expect(workflow.permissions).toEqual({ contents: 'read', 'pull-requests': 'read' })
    const { sweep, delete: remove } = workflow.jobs
    const step = sweep.steps.find((candidate) => candidate.id === 'sweep')!
    expect(step.uses).toMatch(/^OWNER\/neon-operations-gate@/)
    const context = {
      secrets: { NEON_API_KEY: KEYS.organization },
      vars: { NEON_PROJECT_ID: PROJECT }
    }
    const inputs = Object.fromEntries(
      Object.entries(step.with!).map(([name, value]) => [name, evaluate(String(value), context)])
    )
    const { world, server } = await serve()
    addStalePreviews(world)
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
    // The job's outputs, as the delete job reads them.
    const outputs = Object.fromEntries(
      Object.entries(sweep.outputs!).map(([name, value]) => [
        name,
        evaluate(value, { steps: { sweep: { outputs: run.outputs } } })
      ])
    )
    expect(outputs.stale_count).toBe('4')
    expect(remove.needs).toBe('sweep')
    expect(remove.if).toBe('needs.sweep.outputs.stale_count > 0')
    expect(Number(outputs.stale_count) > 0).toBe(true)
    expect(remove.strategy).toMatchObject({
      'max-parallel': 1,
      matrix: { branch: '${{ fromJSON(needs.sweep.outputs.stale) }}' }
    })
    const matrix = JSON.parse(outputs.stale) as { id: string; blockers: string[] }[]
    expect(matrix.length).toBeLessThanOrEqual(256)
    const [deleteStep] = remove.steps
    expect(deleteStep.if).toBe("join(matrix.branch.blockers, ',') == ''")
    expect(deleteStep.uses).toMatch(/^neondatabase\/delete-branch-action@[0-9a-f]{40}$/)
    const deleted = matrix
      .filter((branch) => branch.blockers.join(',') === '')
      .map((branch) => evaluate(deleteStep.with!.branch, { matrix: { branch } }))
    // pr-8's pull request closed, pr-3 quiet 25 days; pr-4 has a child, pr-6 restricts deletes.
    expect(deleted).toEqual(['br-preview-pr-8', 'br-preview-pr-3'])
  })
})

describe('the shell loop: examples/command/sweep.sh with Neon’s CLI', () => {
  it(
    'deletes each stale branch nothing blocks, by id, the key only in NEON_API_KEY',
    async () => {
      const { world, server } = await serve()
      addStalePreviews(world)
      const front = await startWritingFront(world, server, {
        databaseUrl: 'postgresql://app@127.0.0.1:1/app'
      })
      cleanups.push(front.close)
      await inTempDir(async (dir) => {
        const bin = join(dir, 'bin')
        mkdirSync(bin)
        const gate = join(bin, 'neon-gate')
        writeFileSync(
          gate,
          `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(COMMAND_BUNDLE)} "$@"\n`
        )
        chmodSync(gate, 0o755)
        mkdirSync(join(dir, 'home'))
        const run = await runCommandBundle(
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
            program: ['sh', join(root, 'examples', 'command', 'sweep.sh'), 'preview/*', '7d'],
            cwd: root
          }
        )
        expect([run.code, run.stderr.split('\n').filter((line) => /error/i.test(line))]).toEqual([
          0,
          []
        ])
        expect(run.stdout).toContain('Deleting stale branch br-preview-pr-3')
        expect(run.stdout).toContain('Deleted 1 stale branches.')
        expect(run.stdout).not.toContain(KEYS.organization)
      })
      expect(front.answered).toEqual([`DELETE /projects/${PROJECT}/branches/br-preview-pr-3`])
      expect(world.branchesOf(PROJECT).map((branch) => branch.id)).not.toContain('br-preview-pr-3')
      expect(front.violations).toEqual([])
    },
    SHELL_CEILING
  )
})
