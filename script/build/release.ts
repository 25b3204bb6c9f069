/*
 * npm run release: tags the version in package.json as vX.Y.Z, but only when the tree is clean,
 * CHANGELOG.md has a section for the version, dist/ is the bundle of src/ and the tests pass. It
 * pushes nothing: it prints the command that starts the release workflow
 * (.github/workflows/release.yml), which checks again, publishes to npm, writes the GitHub release
 * and moves the major tag vX.
 *
 * `npm run release -- --dry-run` rehearses all of it and changes nothing: the version and its
 * CHANGELOG.md section, the checks, what the npm tarball holds, the tags vX.Y.Z and vX (and X.Y.Z
 * for GitLab's catalog), the GitHub release's notes, and the GitLab catalog step (the component
 * and the job that releases it). It prints each step, and fails naming everything missing.
 *
 * `node script/build/release.ts notes X.Y.Z` prints the CHANGELOG.md section of that version (the
 * workflow's release notes), or fails when there is none.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ReleaseOptions {
  /** The repository's root. */
  cwd: string
  /** Runs `npm run <script>`; throws when it fails. */
  npm?: (script: string) => void
  log?: (line: string) => void
  /** Rehearse: check and print every step, change nothing, throw naming all that is missing. */
  dryRun?: boolean
  /** The paths `npm pack` would put in the tarball (default: `npm pack --dry-run --json`). */
  pack?: () => string[]
}

/** What the npm tarball must hold (the command and what npm shows), and must not. */
export const TARBALL_NEEDS = [
  'package.json',
  'README.md',
  'LICENSE',
  'dist/command/index.js',
  'dist/command/package.json',
  'docs/cli.md',
  'docs/recipes.md'
]
export const TARBALL_REFUSES =
  /^(src|__tests__|script|node_modules|\.github|examples)\/|^dist\/index\.js$/

/** What is missing from the repository for the GitLab catalog: the component, and its release job. */
export function catalogProblems(cwd: string): string[] {
  const problems: string[] = []
  const component = join(cwd, 'templates', 'gate.yml')
  const text = existsSync(component) ? readFileSync(component, 'utf8') : ''
  if (!/^spec:\n {2}inputs:\n/m.test(text) || !/^---$/m.test(text)) {
    problems.push('templates/gate.yml is not a component (a spec: with inputs, ---, a job)')
  }
  const ci = existsSync(join(cwd, '.gitlab-ci.yml'))
    ? readFileSync(join(cwd, '.gitlab-ci.yml'), 'utf8')
    : ''
  if (!/^\s+release:\n\s+tag_name: \$CI_COMMIT_TAG$/m.test(ci)) {
    problems.push(
      '.gitlab-ci.yml has no job that releases a tag (release: tag_name: $CI_COMMIT_TAG)'
    )
  }
  return problems
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
  if (options.dryRun) return rehearse(options, log, npm, git)

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

/** The release, step by step, changing nothing; throws ReleaseRefused naming every gap. */
function rehearse(
  options: ReleaseOptions,
  log: (line: string) => void,
  npm: (script: string) => void,
  git: (...args: string[]) => string
): { tag: string } {
  const { cwd } = options
  const missing: string[] = []
  const step = (title: string, problems: string[], details: string[] = []) => {
    log(`${problems.length === 0 ? 'ok     ' : 'MISSING'} ${title}`)
    for (const line of [...problems, ...details]) log(`          ${line}`)
    missing.push(...problems)
  }
  const { version } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as {
    version: string
  }
  const semver = /^\d+\.\d+\.\d+$/.test(version)
  const tag = `v${version}`
  const major = `v${version.split('.')[0]}`
  step(`version ${version}`, semver ? [] : [`version "${version}" is not X.Y.Z`])
  const notes = releaseNotes(readFileSync(join(cwd, 'CHANGELOG.md'), 'utf8'), version)
  step(
    `CHANGELOG.md section [${version}], the GitHub release's notes`,
    notes ? [] : [`CHANGELOG.md has no "## [${version}]" section, or it is empty`],
    notes
      ? notes
          .split('\n')
          .slice(0, 8)
          .map((line) => `| ${line}`)
      : []
  )
  step(
    'the work tree is clean',
    git('status', '--porcelain') === '' ? [] : ['the work tree is not clean: commit or stash first']
  )
  for (const [script, what] of [
    ['check-dist', 'dist/ is not the bundle of src/: npm run bundle, commit dist/'],
    ['test', 'the tests fail']
  ]) {
    let failed = false
    try {
      npm(script)
    } catch {
      failed = true
    }
    step(`npm run ${script}`, failed ? [what] : [])
  }
  const files = (options.pack ?? (() => packedFiles(cwd)))()
  step(
    `the npm tarball: ${files.length} files`,
    [
      ...TARBALL_NEEDS.filter((file) => !files.includes(file)).map((file) => `it lacks ${file}`),
      ...files.filter((file) => TARBALL_REFUSES.test(file)).map((file) => `it holds ${file}`)
    ],
    TARBALL_NEEDS.filter((file) => files.includes(file))
  )
  const head = git('rev-parse', 'HEAD')
  const existing = (name: string) => git('tag', '--list', name) !== ''
  step(
    `tags: ${tag} and ${version} (GitLab's catalog) at ${head}, then ${major} moves there`,
    [tag, version].filter(existing).map((name) => `${name} exists already`),
    [
      existing(major)
        ? `${major} is at ${git('rev-parse', `${major}^{commit}`)} now`
        : `${major} is new`
    ]
  )
  step(
    'GitHub: .github/workflows/release.yml publishes to npm with provenance and writes the release',
    workflowProblems(cwd)
  )
  step(`GitLab: the component, released in the catalog as ${version}`, catalogProblems(cwd))
  if (missing.length > 0) {
    throw new ReleaseRefused(`the rehearsal found ${missing.length} missing: ${missing.join('; ')}`)
  }
  log(`Rehearsal passed: npm run release would tag ${tag} at ${head}. Nothing was changed.`)
  return { tag }
}

/** What `npm pack` would put in the tarball, as paths. */
function packedFiles(cwd: string): string[] {
  const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], {
    cwd,
    encoding: 'utf8'
  })
  return (JSON.parse(json) as { files: { path: string }[] }[])[0].files.map((file) => file.path)
}

/** What the release workflow lacks of its steps. */
function workflowProblems(cwd: string): string[] {
  const file = join(cwd, '.github', 'workflows', 'release.yml')
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  return [
    ['npm publish --provenance --access public', 'the npm publish with provenance'],
    ['gh release create "$TAG" --verify-tag', 'the GitHub release'],
    ['major="${TAG%%.*}"', 'the move of the major tag'],
    ['refs/tags/${TAG#v}', "the tag of GitLab's catalog (X.Y.Z)"]
  ]
    .filter(([needle]) => !text.includes(needle))
    .map(([, what]) => `.github/workflows/release.yml lacks ${what}`)
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
      release({ cwd: root, dryRun: process.argv.includes('--dry-run') })
    } catch (error) {
      console.error(`Release refused: ${(error as Error).message}`)
      process.exitCode = 1
    }
  }
}
