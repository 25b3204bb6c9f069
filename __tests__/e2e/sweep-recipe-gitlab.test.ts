/*
 * The GitLab sweep recipe, examples/command/gitlab-sweep.yml, as a scheduled pipeline under
 * gitlab-ci-local and its shell executor, offline: the command from the packed tarball (NEON_GATE,
 * as a schedule's variable would set it), Neon's real CLI (the devDependency `neon`, as NEON_CLI,
 * through a wrapper that writes down its command lines), and the local API behind the writing
 * front the GitLab recipe's test uses, which deletes branches. Over the whole list, and over one
 * cut at its page cap: the deletes of what was found go ahead, then a warning.
 */
import { describe, expect, it } from '@jest/globals'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inTempDir } from '../support/bundles/command.js'
import { root } from '../support/bundles/recipes.js'
import {
  gitlabPipeline,
  gitRepository,
  packedForTheseTests,
  PIPELINE_CEILING
} from '../support/bundles/recipe-tools.js'
import {
  deletingFront,
  serveStalePreviews,
  SWEEP_CUT_SHORT,
  WHOLE_OR_CUT
} from '../support/bundles/sweep-recipes.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import type { ApiServer } from '../support/neon/server.ts'
import type { World } from '../support/neon/world.ts'

const RECIPE = join(root, 'examples', 'command', 'gitlab-sweep.yml')
const tarball = packedForTheseTests()

/**
 * The recipe as a scheduled pipeline over `world` behind a writing front (its options): the
 * pipeline's exit code and output, and the command lines Neon's CLI was given.
 */
async function pipeline(
  world: World,
  server: ApiServer,
  options: { refusedDeletes?: Record<string, number> } = {}
) {
  const front = await deletingFront(world, server, options)
  try {
    return await inTempDir(async (dir) => {
      // A git repository with the recipe as its .gitlab-ci.yml.
      const { repo } = gitRepository(
        dir,
        { '.gitlab-ci.yml': RECIPE },
        { message: 'the sweep', remote: 'https://gitlab.example.invalid/OWNER/app.git' }
      )
      // The command from the packed tarball as npx installs it, behind a one-word wrapper.
      const gate = join(dir, 'neon-gate')
      writeFileSync(gate, `#!/bin/sh\nexec npx --yes neon-operations-gate@file:${tarball()} "$@"\n`)
      chmodSync(gate, 0o755)
      const run = await gitlabPipeline(dir, repo, {
        variables: {
          CI_PIPELINE_SOURCE: 'schedule',
          NEON_API_KEY: KEYS.organization,
          NEON_PROJECT_ID: PROJECT,
          NEON_API_HOST: front.apiHost,
          NEON_SWEEP: 'preview/*',
          NEON_GATE: gate
        },
        predefined: ['CI_PIPELINE_SOURCE']
      })
      expect(run.neonArgv).not.toContain(KEYS.organization)
      expect(front.violations).toEqual([])
      return {
        code: run.code,
        output: run.output,
        argv: run.neonArgv.trim().split('\n').filter(Boolean),
        answered: front.answered
      }
    })
  } finally {
    await front.close()
  }
}

describe('GitLab: examples/command/gitlab-sweep.yml, a scheduled pipeline', () => {
  it.each(WHOLE_OR_CUT)(
    '%s: sweeps, then deletes each stale branch nothing blocks with Neon’s CLI, the key never on a command line; a cut list said so after',
    async (_, cut) => {
      const { world, server } = await serveStalePreviews({ cut })
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
      const { world, server } = await serveStalePreviews({ beyondTheCli: true })
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
