// Rebuilds the bundle into a temporary folder and fails if the committed dist/ differs from it.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const fresh = mkdtempSync(join(tmpdir(), 'check-dist-'))
try {
  execFileSync(
    'npx',
    ['ncc', 'build', 'src/index.ts', '-o', fresh, '--source-map', '--license', 'licenses.txt'],
    { stdio: ['ignore', 'ignore', 'inherit'] }
  )
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
  console.log('dist/ is the bundle of src/')
} finally {
  rmSync(fresh, { recursive: true, force: true })
}
