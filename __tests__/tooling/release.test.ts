import { afterEach, describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { copyFileSync, mkdirSync } from 'node:fs'
import {
  catalogProblems,
  release,
  ReleaseRefused,
  releaseNotes,
  TARBALL_NEEDS
} from '../../script/build/release.ts'

const root = join(import.meta.dirname, '..', '..')
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A scratch repository at version 1.4.2 with one commit; `npm` answers as told. */
function repository(changelog = '## [1.4.2] - 2026-11-22\n\n- Fixed a thing.\n') {
  const cwd = mkdtempSync(join(tmpdir(), 'release-'))
  dirs.push(cwd)
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
  git('init', '--quiet')
  git('config', 'user.email', 'test@example.invalid')
  git('config', 'user.name', 'Test')
  writeFileSync(join(cwd, 'package.json'), JSON.stringify({ version: '1.4.2' }))
  writeFileSync(join(cwd, 'CHANGELOG.md'), changelog)
  git('add', '.')
  git('commit', '--quiet', '-m', 'first')
  return { cwd, git }
}

const passing = () => undefined

describe('script/build/release.ts', () => {
  it('tags vX.Y.Z when everything holds, and leaves the major tag to the release workflow', () => {
    const { cwd, git } = repository()
    git('tag', 'v1', 'HEAD')
    git('commit', '--quiet', '--allow-empty', '-m', 'second')
    const ran: string[] = []
    const logged: string[] = []
    const result = release({
      cwd,
      npm: (script) => ran.push(script),
      log: (line) => logged.push(line)
    })
    expect(result).toEqual({ tag: 'v1.4.2' })
    expect(ran).toEqual(['check-dist', 'test'])
    expect(git('rev-parse', 'v1.4.2^{commit}')).toBe(git('rev-parse', 'HEAD'))
    expect(git('rev-parse', 'v1^{commit}')).toBe(git('rev-parse', 'HEAD~1'))
    expect(logged.join('\n')).toContain('git push origin v1.4.2')
  })

  it.each([
    [
      'a dirty tree',
      (cwd: string) => writeFileSync(join(cwd, 'stray.txt'), 'x'),
      passing,
      'the work tree is not clean'
    ],
    [
      'stale dist/',
      () => undefined,
      (script: string) => {
        if (script === 'check-dist') throw new Error('stale')
      },
      'dist/ is not the bundle'
    ],
    [
      'failing tests',
      () => undefined,
      (script: string) => {
        if (script === 'test') throw new Error('red')
      },
      'the tests fail'
    ]
  ])('refuses with %s, and tags nothing', (_case, spoil, npm, message) => {
    const { cwd, git } = repository()
    spoil(cwd)
    expect(() => release({ cwd, npm, log: () => undefined })).toThrow(ReleaseRefused)
    expect(() => release({ cwd, npm, log: () => undefined })).toThrow(message)
    expect(git('tag', '--list')).toBe('')
  })

  it('refuses without a CHANGELOG section, or when the tag exists', () => {
    const bare = repository('# Changelog\n\n## [1.4.2] - 2026-11-22\n\n## [1.4.1]\n\n- Older.\n')
    expect(() => release({ cwd: bare.cwd, npm: passing, log: () => undefined })).toThrow(
      'CHANGELOG.md has no "## [1.4.2]" section'
    )
    const tagged = repository()
    tagged.git('tag', 'v1.4.2')
    expect(() => release({ cwd: tagged.cwd, npm: passing, log: () => undefined })).toThrow(
      'v1.4.2 exists already'
    )
  })
})

describe('npm run release -- --dry-run: the whole release rehearsed, nothing changed', () => {
  /** The scratch repository with this repository's release workflow, component and GitLab job. */
  function complete() {
    const repo = repository()
    for (const file of ['.github/workflows/release.yml', 'templates/gate.yml', '.gitlab-ci.yml']) {
      mkdirSync(join(repo.cwd, file, '..'), { recursive: true })
      copyFileSync(join(root, file), join(repo.cwd, file))
    }
    repo.git('add', '.')
    repo.git('commit', '--quiet', '-m', 'release files')
    return repo
  }
  const packs = () => [...TARBALL_NEEDS, 'dist/command/index.js.map', 'docs/usage.md']

  it('passes when every step holds: prints the notes, the tarball, the tags and both platforms, and tags nothing', () => {
    const { cwd, git } = complete()
    git('tag', 'v1', 'HEAD')
    const ran: string[] = []
    const logged: string[] = []
    const result = release({
      cwd,
      dryRun: true,
      npm: (script) => ran.push(script),
      pack: packs,
      log: (line) => logged.push(line)
    })
    expect(result).toEqual({ tag: 'v1.4.2' })
    expect(ran).toEqual(['check-dist', 'test'])
    expect(git('tag', '--list')).toBe('v1')
    const text = logged.join('\n')
    expect(text).not.toContain('MISSING')
    for (const step of [
      'ok      version 1.4.2',
      "ok      CHANGELOG.md section [1.4.2], the GitHub release's notes",
      '          | - Fixed a thing.',
      'ok      npm run test',
      'ok      the npm tarball: 9 files',
      `ok      tags: v1.4.2 and 1.4.2 (GitLab's catalog) at ${git('rev-parse', 'HEAD')}, then v1 moves there`,
      'ok      GitHub: .github/workflows/release.yml publishes to npm with provenance',
      'ok      GitLab: the component, released in the catalog as 1.4.2',
      'Rehearsal passed'
    ])
      expect([step, text.includes(step)]).toEqual([step, true])
  })

  it('fails naming everything missing at once, and still tags nothing', () => {
    const { cwd, git } = repository('# Changelog\n')
    git('tag', '1.4.2')
    writeFileSync(join(cwd, 'stray.txt'), 'x')
    const logged: string[] = []
    const rehearsal = () =>
      release({
        cwd,
        dryRun: true,
        npm: (script) => {
          if (script === 'test') throw new Error('red')
        },
        pack: () => ['package.json', 'src/index.ts'],
        log: (line) => logged.push(line)
      })
    expect(rehearsal).toThrow(ReleaseRefused)
    let message = ''
    try {
      rehearsal()
    } catch (error) {
      message = (error as Error).message
    }
    for (const gap of [
      'CHANGELOG.md has no "## [1.4.2]" section',
      'the work tree is not clean',
      'the tests fail',
      'it lacks dist/command/index.js',
      'it holds src/index.ts',
      '1.4.2 exists already',
      '.github/workflows/release.yml lacks the npm publish with provenance',
      'templates/gate.yml is not a component',
      '.gitlab-ci.yml has no job that releases a tag'
    ])
      expect([gap, message.includes(gap)]).toEqual([gap, true])
    expect(git('tag', '--list')).toBe('1.4.2')
  })

  it("this repository's component and GitLab job are ready for the catalog", () => {
    expect(catalogProblems(root)).toEqual([])
  })
})

describe('releaseNotes: the CHANGELOG.md section of a version, for the GitHub release', () => {
  const changelog = [
    '# Changelog',
    '',
    '## [Unreleased]',
    '',
    '- Next.',
    '',
    '## [1.4.2] - 2026-11-22',
    '',
    '### Fixed',
    '',
    '- A thing ([docs](docs/x.md)).',
    '',
    '## [1.4.1] - 2026-11-01',
    '',
    '- Older.',
    '',
    '[1.4.2]: https://example.invalid/compare/v1.4.1...v1.4.2'
  ].join('\n')

  it('is the body under the heading, up to the next version', () => {
    expect(releaseNotes(changelog, '1.4.2')).toBe('### Fixed\n\n- A thing ([docs](docs/x.md)).')
  })

  it('stops at the link definitions, and is undefined for a version without a section', () => {
    expect(releaseNotes(changelog, '1.4.1')).toBe('- Older.')
    expect(releaseNotes(changelog, '1.4')).toBeUndefined()
    expect(releaseNotes(changelog, '9.9.9')).toBeUndefined()
  })

  it("reads the repository's CHANGELOG.md from the command line", () => {
    const run = spawnSync(
      process.execPath,
      [join(root, 'script', 'build', 'release.ts'), 'notes', '0.0.0'],
      {
        encoding: 'utf8'
      }
    )
    expect([run.status, run.stdout, run.stderr.trim()]).toEqual([
      1,
      '',
      'CHANGELOG.md has no "## [0.0.0]" section, or it is empty'
    ])
  })
})

describe('.github/workflows/release.yml', () => {
  const workflow = parse(readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8'))
  const runs = (job: string) =>
    (workflow.jobs[job].steps as { run?: string }[]).map((step) => step.run ?? '').join('\n')

  it('runs on a version tag, the checks first, then npm, then the GitHub release and the major tag', () => {
    expect(workflow.on.push.tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+'])
    expect(runs('check')).toContain('bash .ci/run')
    expect(runs('check')).toContain('node script/build/release.ts notes "$version"')
    expect(workflow.jobs.publish.needs).toBe('check')
    expect(workflow.jobs.release.needs).toBe('publish')
    expect(runs('release')).toContain('gh release create "$TAG" --verify-tag')
    expect(runs('release')).toContain('major="${TAG%%.*}"')
    // The tag without v, which GitLab's catalog releases the component under (.gitlab-ci.yml).
    expect(runs('release')).toContain('-f ref="refs/tags/${TAG#v}"')
  })

  it('publishes with provenance, and only that job may ask for an OIDC token', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' })
    expect(workflow.jobs.publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' })
    expect(runs('publish')).toContain('npm publish --provenance --access public')
    expect(workflow.jobs.release.permissions).toEqual({ contents: 'write' })
    expect(workflow.jobs.check.permissions).toBeUndefined()
  })
})
