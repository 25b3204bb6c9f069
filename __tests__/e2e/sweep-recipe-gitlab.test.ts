/*
 * The GitLab sweep recipe, examples/command/gitlab-sweep.yml, as a scheduled pipeline under
 * gitlab-ci-local and its shell executor, offline: the command from the packed tarball (NEON_GATE,
 * as a schedule's variable would set it), Neon's real CLI (the devDependency `neon`, as NEON_CLI,
 * through a wrapper that writes down its command lines), and the local API behind the writing
 * front the GitLab recipe's test uses, which deletes branches. Over the whole list, and over one
 * cut at its page cap: the deletes of what was found go ahead, then a warning.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { serve } from '../support/bundles/action.js'
import { inTempDir } from '../support/bundles/command.js'
import { packedTarball, root, SWEEP_CUT_SHORT } from '../support/bundles/recipes.js'
import { runCommandBundle } from '../support/bundles/run-bundle.ts'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import {
  addBusyBranches,
  addStaleBeyondTheCli,
  addStalePreviews
} from '../support/neon/stale-branches.js'
import type { World } from '../support/neon/world.ts'
import { startWritingFront } from '../support/neon/writes.js'

/** A ceiling only, as recipe-gitlab.test.ts's: a pipeline takes seconds alone, far more loaded. */
const PIPELINE_CEILING = 600_000
const GITLAB_CI_LOCAL = join(root, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js')
const RECIPE = join(root, 'examples', 'command', 'gitlab-sweep.yml')
const NEON_CLI = join(root, 'node_modules', 'neon', 'dist', 'cli.js')

let packed: ReturnType<typeof packedTarball>
beforeAll(() => {
  packed = packedTarball()
}, 60_000)
afterAll(() => packed?.remove())

/** A git repository with the recipe as its .gitlab-ci.yml. */
function repository(dir: string): string {
  const repo = join(dir, 'repo')
  mkdirSync(repo, { recursive: true })
  copyFileSync(RECIPE, join(repo, '.gitlab-ci.yml'))
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null'
      }
    })
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'recipe')
  git('config', 'user.email', 'recipe@example.invalid')
  git('add', '.gitlab-ci.yml')
  git('commit', '-q', '-m', 'the sweep')
  git('remote', 'add', 'origin', 'https://gitlab.example.invalid/OWNER/app.git')
  git('update-ref', 'refs/remotes/origin/main', 'HEAD')
  git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main')
  return repo
}

/**
 * The recipe as a scheduled pipeline over `world` behind a writing front (its options): the
 * pipeline's exit code and output, and the command lines Neon's CLI was given.
 */
async function pipeline(
  world: World,
  server: Awaited<ReturnType<typeof serve>>['server'],
  options: { refusedDeletes?: Record<string, number> } = {}
) {
  const front = await startWritingFront(world, server, {
    databaseUrl: 'postgresql://app@127.0.0.1:1/app',
    ...options
  })
  try {
    return await inTempDir(async (dir) => {
      const repo = repository(dir)
      const log = join(dir, 'neon-argv.log')
      writeFileSync(log, '')
      const cli = join(dir, 'neon-cli')
      writeFileSync(
        cli,
        `#!/bin/sh\nprintf '%s\\n' "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(NEON_CLI)} "$@"\n`
      )
      chmodSync(cli, 0o755)
      // The command from the packed tarball as npx installs it, behind a one-word wrapper.
      const gate = join(dir, 'neon-gate')
      writeFileSync(
        gate,
        `#!/bin/sh\nexec npx --yes neon-operations-gate@file:${packed.tarball} "$@"\n`
      )
      chmodSync(gate, 0o755)
      mkdirSync(join(dir, 'home'))
      const variables = {
        CI_PIPELINE_SOURCE: 'schedule',
        NEON_API_KEY: KEYS.organization,
        NEON_PROJECT_ID: PROJECT,
        NEON_API_HOST: front.apiHost,
        NEON_SWEEP: 'preview/*',
        NEON_GATE: gate,
        NEON_CLI: cli,
        npm_config_offline: 'true',
        npm_config_cache: join(dir, 'npm-cache')
      }
      const run = await runCommandBundle(
        [],
        { HOME: join(dir, 'home') },
        {
          program: [
            process.execPath,
            GITLAB_CI_LOCAL,
            '--no-color',
            '--force-shell-executor',
            '--ignore-predefined-vars',
            'CI_PIPELINE_SOURCE',
            ...Object.entries(variables).flatMap(([name, value]) => [
              '--variable',
              `${name}=${value}`
            ])
          ],
          cwd: repo
        }
      )
      const argv = readFileSync(log, 'utf8')
      expect(argv).not.toContain(KEYS.organization)
      expect(front.violations).toEqual([])
      return {
        code: run.code,
        output: run.stdout + run.stderr,
        argv: argv.trim().split('\n').filter(Boolean),
        answered: front.answered
      }
    })
  } finally {
    await front.close()
  }
}

describe('GitLab: examples/command/gitlab-sweep.yml, a scheduled pipeline', () => {
  it.each([
    ['the whole list read', false],
    ['a list cut at its page cap', true]
  ] as const)(
    '%s: sweeps, then deletes each stale branch nothing blocks with Neon’s CLI, the key never on a command line; a cut list said so after',
    async (_, cut) => {
      // 50 pages in a few seconds: the local API's limit per second and route is not what is tested.
      const { world, server } = await serve({ limits: { perSecondPerRoute: Infinity } })
      addStalePreviews(world)
      if (cut) addBusyBranches(world)
      const run = await pipeline(world, server)
      expect([run.code, run.output]).toEqual([0, expect.stringContaining('PASS')])
      expect(run.output).toContain('Deleting stale branch br-preview-pr-3')
      // Said once the deletes are done; never when the whole list was read.
      const warning = `warning: ${SWEEP_CUT_SHORT}`
      if (cut) {
        expect(run.output.indexOf(warning)).toBeGreaterThan(
          run.output.lastIndexOf('Deleting stale branch')
        )
      } else expect(run.output).not.toContain(warning)
      expect(run.argv).toEqual([
        `branches delete br-preview-pr-3 --project-id ${PROJECT} --no-analytics`
      ])
      expect(run.answered).toEqual([`DELETE /projects/${PROJECT}/branches/br-preview-pr-3`])
    },
    PIPELINE_CEILING
  )

  it(
    'a delete refused (409) stops nothing: every other stale branch is tried, then each one not deleted is named, and the job fails',
    async () => {
      const { world, server } = await serve()
      addStalePreviews(world)
      addStaleBeyondTheCli(world)
      const run = await pipeline(world, server, { refusedDeletes: { 'br-preview-pr-3': 409 } })
      expect(run.code).not.toBe(0)
      expect(run.output).toMatch(/^ *PASS +sweep/m)
      expect(run.output).toMatch(/^delete-stale finished in .* FAIL 1/m)
      // Tried in the sweep's order, the refused one first; br-legacy-1, which Neon's CLI would read
      // as the name of another branch (br-named-like-an-id), never handed to it.
      expect(run.argv).toEqual([
        `branches delete br-preview-pr-3 --project-id ${PROJECT} --no-analytics`,
        `branches delete br-preview-pr-2 --project-id ${PROJECT} --no-analytics`
      ])
      expect(run.answered).toEqual([
        `DELETE /projects/${PROJECT}/branches/br-preview-pr-3`,
        `DELETE /projects/${PROJECT}/branches/br-preview-pr-2`
      ])
      const left = world.branchesOf(PROJECT).map((branch) => branch.id)
      expect(left).toEqual(
        expect.arrayContaining(['br-preview-pr-3', 'br-legacy-1', 'br-named-like-an-id'])
      )
      expect(left).not.toContain('br-preview-pr-2')
      const named = [
        'error: stale branch br-preview-pr-3 not deleted: Neon’s CLI failed (its error is above)',
        'error: stale branch br-legacy-1 not deleted: Neon’s CLI would read its id as a branch name'
      ]
      for (const line of named) {
        expect(run.output.indexOf(line)).toBeGreaterThan(run.output.lastIndexOf('Deleting stale'))
      }
    },
    PIPELINE_CEILING
  )
})
