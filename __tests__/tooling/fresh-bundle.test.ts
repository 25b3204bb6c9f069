import { afterEach, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureFreshBundle, isBundleFresh } from '../../script/build/fresh-bundle.ts'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A project with src/, package files and a dist/ that `build` writes from src/. */
function project() {
  const root = mkdtempSync(join(tmpdir(), 'fresh-bundle-'))
  roots.push(root)
  mkdirSync(join(root, 'src'))
  mkdirSync(join(root, 'dist'))
  writeFileSync(join(root, 'src', 'main.ts'), 'export const answer = 1\n')
  writeFileSync(join(root, 'package.json'), '{"scripts": {"bundle": "ncc build"}}')
  writeFileSync(join(root, 'package-lock.json'), '{}')
  writeFileSync(join(root, 'dist', 'index.js'), 'old bundle')
  const builds: string[] = []
  const build = (at: string) => {
    builds.push(at)
    writeFileSync(join(at, 'dist', 'index.js'), `bundle ${builds.length}`)
  }
  return { root, builds, run: () => ensureFreshBundle(root, build) }
}

describe('the e2e suites, the demo and run-local never run a dist/ older than src/', () => {
  it('a checkout never stamped is rebuilt once, then is fresh', () => {
    const { root, builds, run } = project()
    expect(isBundleFresh(root)).toBe(false)
    expect(run()).toBe('rebuilt')
    expect(run()).toBe('fresh')
    expect(builds).toHaveLength(1)
  })

  it.each([
    ['a change to src/', 'src/main.ts', 'export const answer = 2\n'],
    ['a new file in src/', 'src/extra.ts', 'export {}\n'],
    ['a dependency change', 'package-lock.json', '{"changed": true}'],
    ['a bundle swapped underneath', 'dist/index.js', 'someone else’s bundle']
  ])('%s makes it stale: rebuilt before the run', (_case, path, text) => {
    const { root, builds, run } = project()
    run()
    writeFileSync(join(root, path), text)
    expect(isBundleFresh(root)).toBe(false)
    expect(run()).toBe('rebuilt')
    expect(builds).toHaveLength(2)
  })
})
