/*
 * Runs the bundles as they are run for real: the action the way the runner does (`node
 * dist/index.js` with INPUT_<NAME> variables, action.yml's defaults for those not given, and the files named by GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY), and the command the way a user or a CI job does (`node
 * dist/command/index.js` with flags, an environment and standard input). Used by the demo,
 * run-local, the benchmarks and the end-to-end tests (@github/local-action does not support
 * @actions/core 3).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import YAML from 'yaml'

export const BUNDLE = join(import.meta.dirname, '..', '..', '..', 'dist', 'index.js')
export const COMMAND_BUNDLE = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'dist',
  'command',
  'index.js'
)

/**
 * action.yml's defaults, which the runner sets for every input the workflow does not give (and only
 * for those); an expression's (`${{ github.token }}`) is the runner's to evaluate, and left out.
 */
export const ACTION_DEFAULTS: Record<string, string> = Object.fromEntries(
  Object.entries(
    (
      YAML.parse(readFileSync(join(BUNDLE, '..', '..', 'action.yml'), 'utf8')) as {
        inputs: Record<string, { default?: unknown }>
      }
    ).inputs
  )
    .filter(([, input]) => input.default !== undefined && !String(input.default).includes('${{'))
    .map(([name, input]) => [name, String(input.default)])
)

export interface BundleRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  /** From the spawn to the exit: start-up included. */
  durationMs: number
  /** When the process ended (Date.now()), before anything was read of it. */
  endedAt: number
  /**
   * From the action's first output (its start, once Node has loaded the bundle) to the exit: what
   * its deadline bounds, without the start-up a loaded machine stretches.
   */
  runningMs: number
}

export interface RunOptions {
  /** Called with the child once it runs, e.g. to send it a signal. */
  onStart?: (child: ChildProcess) => void
  /** Called with each chunk of the child's standard output. */
  onStdout?: (chunk: string) => void
  /** The child is killed after this long. */
  killAfterMs?: number
  /** Node binary; the one running this script by default. */
  node?: string
  /** More environment variables for the child (HTTPS_PROXY, NODE_EXTRA_CA_CERTS, GITHUB_*). */
  env?: Record<string, string>
}

/** Loaded before the bundle when the suite counts coverage (coverage-preload.mjs says why). */
const COVERAGE_PRELOAD = join(import.meta.dirname, 'coverage-preload.mjs')

/** Bundles still running: a test that ends (or times out) while one runs kills it. */
const running = new Set<ChildProcess>()

/** Kills every bundle still running (and a program's whole group); the e2e fixtures call it after each test. */
export function killRunningBundles(): void {
  for (const child of running) kill(child)
  running.clear()
}

/** Programs that lead a process group of their own (`program`). */
const groupLeaders = new WeakSet<ChildProcess>()

function kill(child: ChildProcess): void {
  try {
    // A program of its own group: the group, with whatever it started.
    if (groupLeaders.has(child) && child.pid) process.kill(-child.pid, 'SIGKILL')
    else child.kill('SIGKILL')
  } catch {
    // Already gone.
  }
}

/** Parses the GITHUB_OUTPUT file format: `name<<DELIMITER\nvalue\nDELIMITER`. */
function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  for (const match of text.matchAll(/^([^\n<]+)<<(\S+)\n([\s\S]*?)\n?\2$/gm)) {
    outputs[match[1]] = match[3]
  }
  return outputs
}

export async function runBundle(
  inputs: Record<string, string>,
  options: RunOptions = {}
): Promise<BundleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-run-'))
  const outputFile = join(dir, 'output')
  const summaryFile = join(dir, 'summary')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: dir,
    // Set by the test suite's global setup: where coverage-preload.mjs writes the bundle's coverage
    // (script/build/coverage.ts reads it).
    ...(process.env.BUNDLE_V8_COVERAGE
      ? { BUNDLE_V8_COVERAGE: process.env.BUNDLE_V8_COVERAGE }
      : {}),
    ...options.env
  }
  for (const [name, value] of Object.entries({ ...ACTION_DEFAULTS, ...inputs })) {
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
  }
  try {
    const run = await spawnBundle(nodeWith(BUNDLE, options), env, options)
    return {
      ...run,
      outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
      summary: readFileSync(summaryFile, 'utf8')
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface CommandRunOptions extends RunOptions {
  /** What the command reads on standard input; none (closed) by default. */
  stdin?: string
  /**
   * Instead of Node and the bundle: a program that runs them itself, with its arguments (script(1),
   * to give the command a terminal; gitlab-ci-local, terraform). It runs in a process group of its
   * own, killed whole with it.
   */
  program?: string[]
  cwd?: string
}

export type CommandRun = Omit<BundleRun, 'outputs' | 'summary'>

/**
 * Runs the command bundle with `args` and exactly `env` (plus PATH and HOME), as a CI job runs it:
 * standard output and error apart, standard input as given.
 */
export async function runCommandBundle(
  args: string[],
  env: Record<string, string>,
  options: CommandRunOptions = {}
): Promise<CommandRun> {
  const all: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.BUNDLE_V8_COVERAGE
      ? { BUNDLE_V8_COVERAGE: process.env.BUNDLE_V8_COVERAGE }
      : {}),
    ...env,
    ...options.env
  }
  return spawnBundle(
    options.program ?? [...nodeWith(COMMAND_BUNDLE, options), ...args],
    all,
    options
  )
}

/** Node, with the coverage preload when the suite counts coverage, and the bundle. */
export function nodeWith(bundle: string, options: RunOptions): string[] {
  const preload = process.env.BUNDLE_V8_COVERAGE ? ['--import', COVERAGE_PRELOAD] : []
  return [options.node ?? process.execPath, ...preload, bundle]
}

/** One bundle run (`argv`) to its end: killed when its test ends, or after `killAfterMs`. */
async function spawnBundle(
  [program, ...args]: string[],
  env: NodeJS.ProcessEnv,
  options: CommandRunOptions
): Promise<CommandRun> {
  const started = Date.now()
  const child = spawn(program, args, {
    env,
    cwd: options.cwd,
    detached: options.program !== undefined,
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']
  })
  if (options.program) groupLeaders.add(child)
  child.stdin?.end(options.stdin)
  let stdout = ''
  let stderr = ''
  let firstOutputAt: number | undefined
  child.stdout!.on('data', (chunk: Buffer) => {
    firstOutputAt ??= Date.now()
    stdout += chunk
    options.onStdout?.(String(chunk))
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    firstOutputAt ??= Date.now()
    stderr += chunk
  })
  running.add(child)
  options.onStart?.(child)
  const killer = setTimeout(() => kill(child), options.killAfterMs ?? 120_000)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]))
  )
  clearTimeout(killer)
  running.delete(child)
  // Whatever a program left running in its group goes with it.
  if (options.program) kill(child)
  const ended = Date.now()
  return {
    code,
    signal,
    stdout,
    stderr,
    durationMs: ended - started,
    endedAt: ended,
    runningMs: ended - (firstOutputAt ?? started)
  }
}
