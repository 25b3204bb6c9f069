/*
 * npm run release: tags the version in package.json as vX.Y.Z, but only when the tree is clean,
 * CHANGELOG.md has a section for the version, dist/ is the bundle of src/ and the tests pass. It
 * pushes nothing: it prints the command that starts the release workflow
 * (.github/workflows/release.yml), which checks again, publishes to npm, writes the GitHub release
 * and moves the major tag vX.
 *
 * `node script/build/release.ts notes X.Y.Z` prints the CHANGELOG.md section of that version (the
 * workflow's release notes), or fails when there is none.
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

/**
 * The body of the section `## [version]` of a Keep a Changelog file, without its heading, up to
 * the next `## ` heading (or the link definitions at the end); undefined when there is none.
 */
export function releaseNotes(changelog: string, version: string): string | undefined {
  const lines = changelog.split('\n')
  const start = lines.findIndex((line) => line.startsWith(`## [${version}]`))
  if (start < 0) return undefined
  const rest = lines.slice(start + 1)
  const end = rest.findIndex((line) => line.startsWith('## ') || /^\[[^\]]+\]: /.test(line))
  return (end < 0 ? rest : rest.slice(0, end)).join('\n').trim()
}

export function release(options: ReleaseOptions): { tag: string } {
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
  if (git('status', '--porcelain') !== '') {
    throw new ReleaseRefused('the work tree is not clean: commit or stash first')
  }
  if (git('tag', '--list', tag) !== '') throw new ReleaseRefused(`${tag} exists already`)
  const changelog = readFileSync(join(cwd, 'CHANGELOG.md'), 'utf8')
  if (!releaseNotes(changelog, version)) {
    throw new ReleaseRefused(`CHANGELOG.md has no "## [${version}]" section, or it is empty`)
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
  log(`Tagged ${tag}. To release it: git push origin ${tag}`)
  log('  The release workflow then checks it again, publishes it to npm with provenance, writes')
  log(
    `  the GitHub release from the CHANGELOG.md section for ${version} and moves v${version.split('.')[0]} to it.`
  )
  return { tag }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const root = join(import.meta.dirname, '..', '..')
  if (process.argv[2] === 'notes') {
    const version = process.argv[3] ?? ''
    const notes = releaseNotes(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), version)
    if (notes) console.log(notes)
    else {
      console.error(`CHANGELOG.md has no "## [${version}]" section, or it is empty`)
      process.exitCode = 1
    }
  } else {
    try {
      release({ cwd: root })
    } catch (error) {
      console.error(`Release refused: ${(error as Error).message}`)
      process.exitCode = 1
    }
  }
}
