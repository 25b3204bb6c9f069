// Before the tiers that run dist/ (e2e and tooling): rebuild dist/ if its build stamp is not src/'s
// (script/build/fresh-bundle.ts), collect V8 coverage of every bundle run (script/build/coverage.ts),
// and the shared PostgreSQL (global-setup-postgres.mjs).
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import sharedPostgres from './global-setup-postgres.mjs'

const root = join(import.meta.dirname, '..')

export default async function globalSetup(globalConfig) {
  execFileSync(process.execPath, [join(root, 'script', 'build', 'fresh-bundle.ts')], {
    stdio: 'inherit'
  })
  await sharedPostgres()
  if (globalConfig.collectCoverage) {
    const dir = join(root, 'coverage', 'bundle-v8')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    // Inherited by the test workers; support/bundles/run-bundle.ts hands it to each bundle it spawns.
    process.env.BUNDLE_V8_COVERAGE = dir
  }
}
