// Before any suite runs dist/index.js: rebuild dist/ if its build stamp is not src/'s
// (script/build/fresh-bundle.ts), and collect V8 coverage of every bundle run (script/build/coverage.ts).
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')

export default async function globalSetup(globalConfig) {
  execFileSync(process.execPath, [join(root, 'script', 'build', 'fresh-bundle.ts')], {
    stdio: 'inherit'
  })
  // One real PostgreSQL for the whole run (support/postgres/server.ts); each test makes its own
  // roles and databases on it. The workers find it through the environment. It offers TLS with a
  // certificate of a throw-away CA (support/tls/README.md), and plain connections too.
  const { startPostgres } = await import('./support/postgres/server.ts')
  const tls = join(import.meta.dirname, 'support', 'tls')
  const postgres = await startPostgres({
    tls: {
      cert: readFileSync(join(tls, 'postgres-cert.pem'), 'utf8'),
      key: readFileSync(join(tls, 'postgres-key.pem'), 'utf8')
    }
  })
  globalThis.localPostgres = postgres
  process.env.TEST_POSTGRES_ADMIN_URL = postgres.adminUrl()
  if (globalConfig.collectCoverage) {
    const dir = join(root, 'coverage', 'bundle-v8')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    // Inherited by the test workers; support/bundles/run-bundle.ts hands it to each bundle it spawns.
    process.env.BUNDLE_V8_COVERAGE = dir
  }
}
