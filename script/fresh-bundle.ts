/*
 * Keeps dist/ the bundle of src/ for everything that runs it: the end-to-end suites (Jest's global
 * setup), `npm run demo` and `npm run local`. A stamp of the build's inputs (src/, package.json,
 * package-lock.json) and of its output (dist/index.js) is kept in node_modules/.cache; when either
 * differs from the stamp, `npm run bundle` runs first. check-dist writes the stamp when it has
 * proved dist/ fresh, so CI builds once.
 *
 *   npm run bundle:fresh    (node script/fresh-bundle.ts, on Node 24)
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

export const ROOT = join(import.meta.dirname, '..')

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
    join(root, 'dist', 'index.js')
  ]
  for (const file of inputs) {
    hash.update(relative(root, file)).update('\0')
    hash.update(existsSync(file) ? readFileSync(file) : 'missing').update('\0')
  }
  return hash.digest('hex')
}

export const stampFile = (root: string): string =>
  join(root, 'node_modules', '.cache', 'neon-operations-gate', 'bundle-stamp')

export function writeStamp(root: string): void {
  mkdirSync(dirname(stampFile(root)), { recursive: true })
  writeFileSync(stampFile(root), bundleStamp(root))
}

export function isBundleFresh(root: string): boolean {
  return existsSync(stampFile(root)) && readFileSync(stampFile(root), 'utf8') === bundleStamp(root)
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

if (import.meta.main) {
  const started = Date.now()
  if (ensureFreshBundle() === 'rebuilt') {
    console.error(
      `dist/ was older than src/: rebuilt it (${((Date.now() - started) / 1000).toFixed(1)} s). Commit dist/ with src/.`
    )
  }
}
