/*
 * The command as a user or a CI job runs it: the bundle with flags and an environment of its own
 * (the key in NEON_API_KEY, the project in NEON_PROJECT_ID), against the local API server; on a
 * pipe, or with standard error on a pseudo-terminal (util-linux's `script`, as a person at a
 * terminal would see it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  COMMAND_BUNDLE,
  type CommandRun,
  type CommandRunOptions,
  nodeWith,
  runCommandBundle
} from './run-bundle.ts'
import type { World } from '../neon/world.ts'
import { withDefaultFlags } from './default-flags.ts'
import { KEYS, PROJECT } from '../neon/ids.js'
import { operationIn } from '../neon/scenarios.ts'

import { serve } from './action.js'

export { secretForms } from './action.js'

export interface GateCommandOptions extends CommandRunOptions {
  /** Leave NEON_PROJECT_ID unset. */
  noProject?: boolean
  /** Standard error on a pseudo-terminal 120 columns wide; standard output still apart. */
  terminal?: boolean
}

/** A control code of a terminal: ESC, and the rest of C0 and C1 but for the new line. */
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/

export const FAILING_BRANCH = 'br-preview-pr-7'
export const START_ERROR = 'compute failed to start: out of capacity'

/**
 * A preview branch (ready) whose start_compute is running at the first read and in `error` at the
 * second: one poll of waiting.
 */
export function failingBranch(world: World, error = START_ERROR) {
  world.addBranch(PROJECT, { id: FAILING_BRANCH, name: 'preview/pr-7' })
  return operationIn(world, 'running', {
    action: 'start_compute',
    then: 'error',
    branchId: FAILING_BRANCH,
    endpointId: 'ep-preview-pr-7',
    error
  })
}

/** A new branch whose create_branch and start_compute are running at the first read, finished at the second. */
export function finishingBranch(world: World) {
  const branchId = 'br-preview-pr-8'
  world.addBranch(PROJECT, { id: branchId, name: 'preview/pr-8' })
  return ['create_branch', 'start_compute'].map((action) =>
    operationIn(world, 'running', { action: action, then: 'finished', branchId })
  )
}

/** A folder of the test's own, removed after `use` whatever happens. */
export async function inTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'gate-command-'))
  try {
    return await use(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const quoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

/**
 * `neon-gate --api-host <server> --interval 1s ...args` with the organization key, the demo project
 * (unless `noProject`) and `env` on top.
 */
export async function gateCommand(
  server: { apiHost: string },
  args: string[],
  options: GateCommandOptions = {}
): Promise<CommandRun> {
  const env: Record<string, string> = {
    NEON_API_KEY: KEYS.organization,
    ...(options.noProject ? {} : { NEON_PROJECT_ID: PROJECT }),
    ...options.env
  }
  const all = withDefaultFlags(
    [
      ['--api-host', server.apiHost],
      ['--interval', '1s']
    ],
    args
  )
  if (!options.terminal) return runCommandBundle(all, env, { ...options, env: undefined })
  return inTempDir(async (dir) => {
    const stdoutFile = join(dir, 'stdout')
    const command = [...nodeWith(COMMAND_BUNDLE, options), ...all].map(quoted).join(' ')
    // script(1) gives the command a terminal; its output is what the terminal showed: stderr.
    const run = await runScript(
      `stty cols 120; exec ${command} > ${quoted(stdoutFile)}`,
      env,
      options
    )
    return { ...run, stdout: readFileSync(stdoutFile, 'utf8'), stderr: run.stdout }
  })
}

/**
 * The command's usual set-up: a fresh demo world, `scenario` run on it, and its server. What
 * `scenario` gave (`made`), the world and the server, and `gate`: gateCommand against the server.
 */
export async function commandOn<T = void>(scenario?: (world: World) => T) {
  const { world, server } = await serve()
  const made = scenario?.(world) as T
  const gate = (args: string[], options?: GateCommandOptions) => gateCommand(server, args, options)
  return { world, server, made, gate }
}

/** `script -qec <shell command> /dev/null`, through the same tracked spawn as every bundle. */
function runScript(
  shellCommand: string,
  env: Record<string, string>,
  options: CommandRunOptions
): Promise<CommandRun> {
  return runCommandBundle([], env, {
    ...options,
    env: undefined,
    program: ['script', '-qec', shellCommand, '/dev/null']
  })
}
