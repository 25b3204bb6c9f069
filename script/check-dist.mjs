// Rebuilds the bundle into a temporary folder, with the arguments of `npm run bundle`, and fails if
// the committed dist/ differs from it; when it does not, stamps dist/ as fresh.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, writeStamp } from './fresh-bundle.ts'

const fresh = mkdtempSync(join(tmpdir(), 'check-dist-'))
const bundle = JSON.parse(readFileSync('package.json', 'utf8')).scripts.bundle.split(' ')
const args = bundle.map((arg, index) => (bundle[index - 1] === '-o' ? fresh : arg))
try {
  execFileSync('npx', args, { stdio: ['ignore', 'ignore', 'inherit'] })
  const names = new Set([...readdirSync('dist'), ...readdirSync(fresh)])
  const stale = [...names].filter((name) => {
    try {
      return !readFileSync(join('dist', name)).equals(readFileSync(join(fresh, name)))
    } catch {
      return true
    }
  })
  if (stale.length > 0) {
    console.error(
      `dist/ is stale (differs in ${stale.join(', ')}): run "npm run bundle" and commit dist/`
    )
    process.exit(1)
  }
  // Proved fresh: the e2e suites need not build it again (script/fresh-bundle.ts).
  writeStamp(ROOT)
  console.log('dist/ is the bundle of src/')
} finally {
  rmSync(fresh, { recursive: true, force: true })
}
