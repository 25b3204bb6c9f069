import { afterEach, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { release, ReleaseRefused } from '../../script/build/release.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A scratch repository at version 1.4.2 with one commit; `npm` answers as told. */
function repository(changelog = '## [1.4.2] - 2026-11-22\n') {
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
  it('tags vX.Y.Z and moves vX when everything holds', () => {
    const { cwd, git } = repository()
    git('tag', 'v1', 'HEAD')
    const ran: string[] = []
    const result = release({ cwd, npm: (script) => ran.push(script), log: () => undefined })
    expect(result).toEqual({ tag: 'v1.4.2', major: 'v1' })
    expect(ran).toEqual(['check-dist', 'test'])
    expect(git('rev-parse', 'v1.4.2^{commit}')).toBe(git('rev-parse', 'HEAD'))
    expect(git('rev-parse', 'v1^{commit}')).toBe(git('rev-parse', 'HEAD'))
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
    const bare = repository('# Changelog\n')
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
