/*
 * The test PostgreSQL's processes (server.ts): its tools run to their end, and the server itself
 * under its watchdog (watchdog.mjs), which stops it when told, or when whoever started it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'

const READY = 'database system is ready to accept connections'
/** The server's tools and the server itself speak English, whatever the machine's locale. */
export const SERVER_ENV = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' }
const START_LIMIT_MS = 60_000

/** Runs `bin` to its end as the server's user; rejects with the end of what it printed. */
export function runToEnd(bin: string, args: string[], options: Parameters<typeof spawn>[2]) {
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
export function startServer(
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
export function stopServer(child: ChildProcess): Promise<void> {
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
