// Rebuilds the bundles (the action's and the command's) into a temporary folder, with the ncc
// arguments of `npm run bundle`, and fails if the committed dist/ differs from them in any file, or
// if its committed build stamp is not the tree's.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { isBundleFresh, ROOT } from './fresh-bundle.ts'

const fresh = mkdtempSync(join(tmpdir(), 'check-dist-'))
// Each ncc build of `npm run bundle`, its -o dist… moved into the temporary folder.
const builds = JSON.parse(readFileSync('package.json', 'utf8'))
  .scripts.bundle.split(' && ')
  .filter((command) => command.startsWith('ncc '))
  .map((command) => command.split(' '))
  .map((args) =>
    args.map((arg, index) => (args[index - 1] === '-o' ? join(fresh, relative('dist', arg)) : arg))
  )
const filesIn = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
let problem
try {
  for (const args of builds) execFileSync('npx', args, { stdio: ['ignore', 'ignore', 'inherit'] })
  const names = new Set([...filesIn('dist'), ...filesIn(fresh)])
  names.delete('build-stamp')
  const stale = [...names].filter((name) => {
    try {
      return !readFileSync(join('dist', name)).equals(readFileSync(join(fresh, name)))
    } catch {
      return true
    }
  })
  if (stale.length > 0) {
    problem = `dist/ is stale (differs in ${stale.join(', ')}): run "npm run bundle" and commit dist/`
  } else if (!isBundleFresh(ROOT)) {
    problem =
      'dist/build-stamp is not the stamp of this tree: run "npm run bundle" and commit dist/'
  }
} finally {
  // Before any exit: the rebuilt bundle is left nowhere, passed or failed.
  rmSync(fresh, { recursive: true, force: true })
}
if (problem) {
  console.error(problem)
  process.exit(1)
}
console.log('dist/ is the bundle of src/')
