// Before any suite runs dist/index.js: rebuild dist/ if it is older than src/
// (script/fresh-bundle.ts), and collect V8 coverage of every bundle run (script/coverage.ts).
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')

export default function globalSetup(globalConfig) {
  execFileSync(process.execPath, [join(root, 'script', 'fresh-bundle.ts')], { stdio: 'inherit' })
  if (globalConfig.collectCoverage) {
    const dir = join(root, 'coverage', 'bundle-v8')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    // Inherited by the test workers; script/run-bundle.ts hands it to each bundle it spawns.
    process.env.BUNDLE_V8_COVERAGE = dir
  }
}
