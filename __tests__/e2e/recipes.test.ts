/*
 * docs/cli.md's shell script, run for real against the local API server: it passes on a branch
 * whose operations finished and fails on one whose start_compute failed, with the gate's exit
 * code. The other recipes have suites of their own: recipe-github, recipe-gitlab and
 * recipe-terraform.
 */
import { describe, expect, it } from '@jest/globals'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCommandBundle } from '../support/bundles/run-bundle.ts'
import { inTempDir } from '../support/bundles/command.js'
import { branches, gateCommandLine, root } from '../support/bundles/recipes.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

describe("docs/cli.md's shell script: gate, then migrate", () => {
  const cli = readFileSync(join(root, 'docs', 'cli.md'), 'utf8')
  const script = /Gate, then migrate, in a script:\*\*\n\n```sh\n([\s\S]*?)```/.exec(cli)![1]

  it.each([
    ['ready', 0, true],
    ['failing', 1, false]
  ] as const)('a %s branch: exit %d, migrated: %s', async (which, code, migrated) => {
    const { server, ...branch } = await branches()
    await inTempDir(async (dir) => {
      const bin = join(dir, 'bin')
      mkdirSync(bin)
      // neon-gate as an install would put it on the PATH, here pointed at the local server.
      writeFileSync(join(bin, 'neon-gate'), `#!/bin/sh\nexec ${gateCommandLine(server)} "$@"\n`)
      writeFileSync(join(dir, 'migrate'), '#!/bin/sh\necho migrated > migrated.txt\n')
      writeFileSync(join(dir, 'gate-then-migrate.sh'), script)
      for (const file of ['bin/neon-gate', 'migrate']) chmodSync(join(dir, file), 0o755)
      const run = await runCommandBundle(
        [],
        {
          PATH: `${bin}:${process.env.PATH}`,
          NEON_API_KEY: KEYS.organization,
          NEON_PROJECT_ID: PROJECT,
          BRANCH_ID: branch[which]
        },
        { program: ['bash', 'gate-then-migrate.sh'], cwd: dir }
      )
      expect([run.code, run.stderr.includes('error:')]).toEqual([code, code !== 0])
      expect(existsSync(join(dir, 'migrated.txt'))).toBe(migrated)
    })
  })
})
