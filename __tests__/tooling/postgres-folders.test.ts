/**
 * The test PostgreSQL leaves no folder behind when its starter dies: the watchdog
 * (support/postgres/watchdog.mjs), once its standard input ends, stops the server and removes every
 * folder it was given (the binaries' and the data's in memory), and the next start removes what a
 * starter killed before its watchdog ran left. A stand-in server here, a process that waits to be
 * told to stop, so that no PostgreSQL is started for it.
 */
import { afterEach, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { folderPrefix, removeAbandonedFolders } from '../support/postgres/folders.ts'

const WATCHDOG = join(import.meta.dirname, '..', 'support', 'postgres', 'watchdog.mjs')

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

it('stops the server and removes both folders when its starter is gone', async () => {
  folders.push(mkdtempSync(join(tmpdir(), 'watchdog-server-')))
  folders.push(mkdtempSync(join(tmpdir(), 'watchdog-data-')))
  for (const folder of folders) writeFileSync(join(folder, 'file'), 'data')
  // Says it runs on standard error (the watchdog passes the server's log on), then waits for a
  // signal to end it.
  const server = "process.stderr.write('ready'); setInterval(() => {}, 1e6)"
  const spec = JSON.stringify({ bin: process.execPath, args: ['-e', server] })
  const watchdog = spawn(process.execPath, [WATCHDOG, spec, ...folders], {
    stdio: ['pipe', 'ignore', 'pipe']
  })
  const exited = new Promise<number | null>((resolve) => watchdog.on('exit', resolve))
  await new Promise((resolve) => watchdog.stderr.once('data', resolve))
  // The starter's end, as the watchdog sees one killed with SIGKILL: its standard input closes.
  watchdog.stdin.end()
  expect(await exited).toBe(0)
  expect(folders.filter((folder) => existsSync(folder))).toEqual([])
}, 30_000)

it("a start removes the folders of a server whose starter is gone, and keeps a live one's", async () => {
  const gone = spawn(process.execPath, ['-e', '0'])
  await new Promise((resolve) => gone.on('exit', resolve))
  const abandoned = [
    mkdtempSync(join(tmpdir(), folderPrefix('server', gone.pid))),
    mkdtempSync(join(tmpdir(), folderPrefix('data', gone.pid)))
  ]
  const live = mkdtempSync(join(tmpdir(), folderPrefix('data', process.pid)))
  folders.push(...abandoned, live)
  removeAbandonedFolders()
  expect([...abandoned, live].map(existsSync)).toEqual([false, false, true])
})
