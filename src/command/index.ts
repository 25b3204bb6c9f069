#!/usr/bin/env node
import { runCommand } from './main.js'

process.exitCode = await runCommand(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  signals: process
})
// A request cut short by a signal may still hold a socket open; whoever sent it wants us gone now.
if (process.exitCode >= 128) process.exit()
