/*
 * Keeps dist/ the bundle of src/ for everything that runs it: the end-to-end suites (Jest's global
 * setup), `npm run demo` and `npm run local`. `npm run bundle` writes dist/build-stamp beside the
 * bundle: a hash of what it was built from (src/, package.json, package-lock.json) and of what it
 * wrote (dist/index.js, dist/command/index.js). The stamp is committed with dist/, so a fresh clone is fresh without a
 * build; when the stamp differs from the tree (src/ changed, or dist/index.js did), `npm run
 * bundle` runs first. File times say nothing here: a clone sets them all to the time of the clone.
 * check-dist proves the bundle itself, and that the committed stamp is the tree's.
 *
 *   npm run bundle:fresh    (node script/build/fresh-bundle.ts, on Node 24)
 *   node script/build/fresh-bundle.ts stamp    (the last step of npm run bundle)
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..')

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

/** A hash of what the bundle is built from, and of the bundle itself. */
export function bundleStamp(root: string): string {
  const hash = createHash('sha256')
  const inputs = [
    ...filesUnder(join(root, 'src')),
    join(root, 'package.json'),
    join(root, 'package-lock.json'),
    join(root, 'dist', 'index.js'),
    join(root, 'dist', 'command', 'index.js')
  ]
  for (const file of inputs) {
    hash.update(relative(root, file)).update('\0')
    hash.update(existsSync(file) ? readFileSync(file) : 'missing').update('\0')
  }
  return hash.digest('hex')
}

export const stampFile = (root: string): string => join(root, 'dist', 'build-stamp')

export function writeStamp(root: string): void {
  mkdirSync(dirname(stampFile(root)), { recursive: true })
  writeFileSync(stampFile(root), `${bundleStamp(root)}\n`)
}

export function isBundleFresh(root: string): boolean {
  return (
    existsSync(stampFile(root)) &&
    readFileSync(stampFile(root), 'utf8').trim() === bundleStamp(root)
  )
}

function npmRunBundle(root: string): void {
  execFileSync('npm', ['run', '--silent', 'bundle'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe']
  })
}

/** Rebuilds dist/ unless the stamp says it is the bundle of the current src/; says which. */
export function ensureFreshBundle(
  root: string = ROOT,
  build: (root: string) => void = npmRunBundle
): 'fresh' | 'rebuilt' {
  if (isBundleFresh(root)) return 'fresh'
  build(root)
  writeStamp(root)
  return 'rebuilt'
}

if (import.meta.main && process.argv[2] === 'stamp') {
  writeStamp(ROOT)
} else if (import.meta.main) {
  const started = Date.now()
  if (ensureFreshBundle() === 'rebuilt') {
    console.error(
      `dist/ was not the bundle of src/ (its build stamp differs): rebuilt it (${((Date.now() - started) / 1000).toFixed(1)} s). Commit dist/ with src/.`
    )
  }
}
