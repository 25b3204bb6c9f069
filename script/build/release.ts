/*
 * npm run release: tags the version in package.json as vX.Y.Z and moves the major tag vX to it,
 * but only when the tree is clean, CHANGELOG.md has a section for the version, dist/ is the bundle
 * of src/ and the tests pass. It pushes nothing: it prints the commands that publish.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ReleaseOptions {
  /** The repository's root. */
  cwd: string
  /** Runs `npm run <script>`; throws when it fails. */
  npm?: (script: string) => void
  log?: (line: string) => void
}

export class ReleaseRefused extends Error {
  override name = 'ReleaseRefused'
}

export function release(options: ReleaseOptions): { tag: string; major: string } {
  const { cwd } = options
  const log = options.log ?? ((line: string) => console.log(line))
  const npm =
    options.npm ??
    ((script: string) => execFileSync('npm', ['run', script], { cwd, stdio: 'inherit' }))
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

  const { version } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as {
    version: string
  }
  if (!/^\d+\.\d+\.\d+$/.test(version))
    throw new ReleaseRefused(`version "${version}" is not X.Y.Z`)
  const tag = `v${version}`
  const major = `v${version.split('.')[0]}`
  if (git('status', '--porcelain') !== '') {
    throw new ReleaseRefused('the work tree is not clean: commit or stash first')
  }
  if (git('tag', '--list', tag) !== '') throw new ReleaseRefused(`${tag} exists already`)
  const changelog = readFileSync(join(cwd, 'CHANGELOG.md'), 'utf8')
  if (!changelog.includes(`## [${version}]`)) {
    throw new ReleaseRefused(`CHANGELOG.md has no "## [${version}]" section`)
  }
  for (const [script, what] of [
    ['check-dist', 'dist/ is not the bundle of src/: npm run bundle, commit dist/'],
    ['test', 'the tests fail']
  ]) {
    log(`npm run ${script}`)
    try {
      npm(script)
    } catch {
      throw new ReleaseRefused(what)
    }
  }
  git('tag', '--annotate', tag, '--message', tag)
  git('tag', '--force', '--annotate', major, '--message', `${major} → ${tag}`)
  log(`Tagged ${tag} and moved ${major} to it. To publish:`)
  log(`  git push origin ${tag} && git push --force origin ${major}`)
  log(`  then draft a GitHub release from ${tag} with the CHANGELOG.md section for ${version},`)
  log('  and tick "Publish this Action to the GitHub Marketplace".')
  return { tag, major }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    release({ cwd: join(import.meta.dirname, '..', '..') })
  } catch (error) {
    console.error(`Release refused: ${(error as Error).message}`)
    process.exitCode = 1
  }
}
