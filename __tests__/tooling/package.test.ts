/*
 * The package that would be published really runs: `npm pack`, then an install of the tarball into
 * an empty folder (offline: the package ships a bundle and depends on nothing), then `neon-gate
 * --version` from there. And it holds only what a user needs: the command's bundle and its docs.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string
}

describe('the npm package', () => {
  it('packs the command alone, installs offline into an empty folder, and runs as neon-gate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'package-'))
    try {
      const npm = (args: string[], cwd: string) =>
        execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
          cwd,
          encoding: 'utf8',
          env: { ...process.env, npm_config_cache: join(dir, 'cache') }
        })
      const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], root)) as {
        filename: string
        files: { path: string }[]
      }[]
      const files = packed.files.map((file) => file.path).sort()
      expect(files).toContain('dist/command/index.js')
      expect(files).toContain('docs/cli.md')
      expect(
        files.filter(
          (path) =>
            !/^(dist\/command\/|docs\/[\w-]+\.md$|README\.md$|LICENSE$|package\.json$)/.test(path)
        )
      ).toEqual([])

      const project = join(dir, 'project')
      execFileSync('mkdir', [project])
      writeFileSync(join(project, 'package.json'), '{"name":"uses-the-gate","private":true}\n')
      // An empty cache of its own and --offline: nothing may come from the registry.
      npm(['install', '--offline', join(dir, packed.filename)], project)
      const output = execFileSync(
        join(project, 'node_modules', '.bin', 'neon-gate'),
        ['--version'],
        {
          encoding: 'utf8'
        }
      )
      expect(output).toBe(`neon-gate ${version}\n`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
