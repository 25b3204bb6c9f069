/*
 * Runs the bundle the way the runner does: `node dist/index.js` with INPUT_<NAME> variables and the
 * files named by GITHUB_OUTPUT and GITHUB_STEP_SUMMARY. Used by the demo, run-local and the
 * end-to-end tests (@github/local-action does not support @actions/core 3).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'index.js')

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

/** Kills every bundle still running; the e2e fixtures call it after each test. */
export function killRunningBundles(): void {
  for (const child of running) child.kill('SIGKILL')
  running.clear()
}

/** Parses the GITHUB_OUTPUT file format: `name<<DELIMITER\nvalue\nDELIMITER`. */
export function parseOutputFile(text: string): Record<string, string> {
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
  for (const [name, value] of Object.entries(inputs)) {
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
  }
  const started = Date.now()
  try {
    const preload = process.env.BUNDLE_V8_COVERAGE ? ['--import', COVERAGE_PRELOAD] : []
    const child = spawn(options.node ?? process.execPath, [...preload, BUNDLE], {
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    let firstOutputAt: number | undefined
    child.stdout.on('data', (chunk: Buffer) => {
      firstOutputAt ??= Date.now()
      stdout += chunk
      options.onStdout?.(String(chunk))
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    running.add(child)
    options.onStart?.(child)
    const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 120_000)
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]))
    )
    clearTimeout(killer)
    running.delete(child)
    const ended = Date.now()
    return {
      code,
      signal,
      stdout,
      stderr,
      outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
      summary: readFileSync(summaryFile, 'utf8'),
      durationMs: ended - started,
      endedAt: ended,
      runningMs: ended - (firstOutputAt ?? started)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
