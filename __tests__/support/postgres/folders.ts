/*
 * The test PostgreSQL's folders (server.ts): fresh ones in a temp root, named by the pid of the
 * process that started the server, the data in memory when there is room, the binaries linked in
 * for a server that runs as another user; and the folders whose starter is gone, removed.
 */
import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

/** Where the server's folders may go. */
export const folderRoots = () => [...new Set([tmpdir(), '/tmp', '/var/tmp', '/dev/shm'])]

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

/** Whether every user may enter `dir` and each folder above it. */
export function enterableByAll(dir: string): boolean {
  for (let path = resolve(dir); ; path = dirname(path)) {
    try {
      if ((statSync(path).mode & 0o001) === 0) return false
    } catch {
      return false
    }
    if (dirname(path) === path) return true
  }
}

/** A new folder of this process's server in `root`, that every user may enter. */
export function freshFolder(root: string, kind: 'server' | 'data'): string {
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
export function memoryFolder(user: { uid: number } | undefined): string | undefined {
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
export function linkTree(from: string, to: string): void {
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
