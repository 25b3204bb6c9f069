// Keeps the test PostgreSQL (support/postgres/server.ts) from outliving whoever started it: runs
// the server (as its own user when given one), passes its log on, and when its standard input ends
// (the starter closed it, or died however it died) shuts the server down and removes its folders.
// So a run that crashes or is killed leaves no server and no folder behind, as one that ends well.
//
//   node watchdog.mjs '{"bin": …, "args": […], "uid": …, "gid": …}' FOLDER [DATA_FOLDER]
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { setTimeout } from 'node:timers'

const [spec, ...folders] = process.argv.slice(2)
const { bin, args, uid, gid } = JSON.parse(spec)
const server = spawn(bin, args, {
  cwd: folders[0],
  stdio: ['ignore', 'ignore', 'inherit'],
  ...(uid === undefined ? {} : { uid, gid })
})

let stopping = false
function stop() {
  if (stopping) return
  stopping = true
  // A fast shutdown; a server that does not end within 10 s is killed.
  server.kill('SIGINT')
  setTimeout(() => server.kill('SIGKILL'), 10_000).unref()
}

process.stdin.on('end', stop)
process.stdin.on('error', stop)
process.stdin.resume()
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop)

server.on('exit', (code, signal) => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
  process.exitCode = stopping ? 0 : (code ?? (signal ? 1 : 0))
  process.stdin.destroy()
})
