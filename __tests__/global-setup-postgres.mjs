// Before the unit and simulated tiers (jest.config.js `projects`): the shared PostgreSQL alone, so
// that `npm run test:unit` never waits for a bundle it does not run. global-setup.mjs, for the
// tiers that run dist/, starts it too; whichever runs first starts it, once a run.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * One real PostgreSQL for the whole run (support/postgres/server.ts); each test makes its own
 * roles and databases on it. The workers find it through the environment. It offers TLS with a
 * certificate of a throw-away CA (support/tls/README.md), and plain connections too. The global
 * teardown stops it.
 */
export default async function sharedPostgres() {
  if (globalThis.localPostgres) return
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
}
