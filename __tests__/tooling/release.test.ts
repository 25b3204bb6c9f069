import { afterEach, describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { release, ReleaseRefused, releaseNotes } from '../../script/build/release.ts'

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
  })

  it('publishes with provenance, and only that job may ask for an OIDC token', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' })
    expect(workflow.jobs.publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' })
    expect(runs('publish')).toContain('npm publish --provenance --access public')
    expect(workflow.jobs.release.permissions).toEqual({ contents: 'write' })
    expect(workflow.jobs.check.permissions).toBeUndefined()
  })
})
