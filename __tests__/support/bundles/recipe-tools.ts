/*
 * The tools the recipes' tests run on this machine, offline: the package packed once for a file's
 * tests, gitlab-ci-local (a pipeline on the shell executor, in a git repository of the test's own),
 * Neon's real CLI (the devDependency `neon`) behind a wrapper that writes down its command lines,
 * and Terraform without a configuration file or calls home.
 */
import { afterAll, beforeAll } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { packedTarball, root } from './recipes.js'
import { runCommandBundle } from './run-bundle.ts'

/**
 * A ceiling only: a pipeline takes 3 to 35 s alone here, and five times that and more among the
 * suite's 8 workers on 2 cores (CI saw the first test pass 180 s).
 */
export const PIPELINE_CEILING = 600_000

/** Neon's CLI (the devDependency `neon`): a branch is an id or a name to it as to neonctl. */
export const NEON_CLI = join(root, 'node_modules', 'neon', 'dist', 'cli.js')

const GITLAB_CI_LOCAL = join(root, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js')

/**
 * `npm pack` of the repository once for the file's tests (beforeAll), removed after them: the
 * tarball's path, once they run.
 */
export function packedForTheseTests(): () => string {
  let packed: ReturnType<typeof packedTarball> | undefined
  beforeAll(() => {
    packed = packedTarball()
  }, 60_000)
  afterAll(() => packed?.remove())
  return () => packed!.tarball
}

/**
 * A git repository at `dir`/repo on branch main, with `files` (its path → the file copied there)
 * committed as `message`, and `origin` at `remote` (its main the commit): `git` runs git in it
 * (no system or global configuration, HOME `dir`) and gives its output, trimmed.
 */
export function gitRepository(
  dir: string,
  files: Record<string, string>,
  { message, remote }: { message: string; remote: string }
) {
  const repo = join(dir, 'repo')
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true })
    copyFileSync(source, join(repo, path))
  }
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null'
      }
    }).trim()
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'recipe')
  git('config', 'user.email', 'recipe@example.invalid')
  git('add', ...Object.keys(files))
  git('commit', '-q', '-m', message)
  git('remote', 'add', 'origin', remote)
  git('update-ref', 'refs/remotes/origin/main', 'HEAD')
  git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main')
  return { repo, git }
}

/**
 * Node's compile cache for Neon's CLI, one folder for the file's pipelines (removed after them):
 * its modules are compiled at its first run only, which takes a fifth off each later run's
 * CPU time (0.61 to 0.49 s, 2026-11-30). The cache keeps V8's code, checked against each source.
 */
let neonCompileCache: string | undefined
afterAll(() => {
  if (neonCompileCache) rmSync(neonCompileCache, { recursive: true, force: true })
})

/**
 * Neon's CLI as NEON_CLI runs it (on this Node), through a wrapper at `dir`/neon-cli that writes
 * its command line into `dir`/neon-argv.log first.
 */
function recordingNeonCli(dir: string): { cli: string; log: string } {
  const cli = join(dir, 'neon-cli')
  const log = join(dir, 'neon-argv.log')
  neonCompileCache ??= mkdtempSync(join(tmpdir(), 'neon-cli-compile-cache-'))
  writeFileSync(
    cli,
    `#!/bin/sh\nprintf '%s\\n' "$*" >> ${JSON.stringify(log)}\nexport NODE_COMPILE_CACHE=${JSON.stringify(neonCompileCache)}\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(NEON_CLI)} "$@"\n`
  )
  chmodSync(cli, 0o755)
  if (!existsSync(log)) writeFileSync(log, '')
  return { cli, log }
}

export interface GitLabPipeline {
  /** GitLab's variables (`--variable`), the recipe's and the schedule's or merge request's. */
  variables: Record<string, string>
  /** Variables GitLab sets itself, set by hand here (`--ignore-predefined-vars`). */
  predefined: string[]
  /** gitlab-ci-local's arguments before its flags: the jobs to run (a manual one included). */
  jobs?: string[]
  /** More of its flags (`--input`). */
  flags?: string[]
  /** More of its environment. */
  env?: Record<string, string>
}

/**
 * The pipeline of the repository `repo` under gitlab-ci-local, its jobs on this machine's shell
 * (not the images they name), HOME and npm's cache in `dir`, npm offline (npx installs a packed
 * tarball, nothing from the registry), NEON_CLI Neon's CLI recording into `dir`: the run, its
 * output (both streams), and every command line Neon's CLI was given.
 */
export async function gitlabPipeline(dir: string, repo: string, pipeline: GitLabPipeline) {
  mkdirSync(join(dir, 'home'), { recursive: true })
  const neon = recordingNeonCli(dir)
  const variables = {
    NEON_CLI: neon.cli,
    ...pipeline.variables,
    npm_config_offline: 'true',
    npm_config_cache: join(dir, 'npm-cache')
  }
  const run = await runCommandBundle(
    [],
    { HOME: join(dir, 'home'), ...pipeline.env },
    {
      program: [
        process.execPath,
        GITLAB_CI_LOCAL,
        ...(pipeline.jobs ?? []),
        '--no-color',
        '--force-shell-executor',
        '--ignore-predefined-vars',
        pipeline.predefined.join(','),
        ...(pipeline.flags ?? []),
        ...Object.entries(variables).flatMap(([name, value]) => ['--variable', `${name}=${value}`])
      ],
      cwd: repo
    }
  )
  return { ...run, output: run.stdout + run.stderr, neonArgv: readFileSync(neon.log, 'utf8') }
}

/**
 * `terraform <args> -no-color` in `cwd` with HOME `dir` and `env`: no configuration file, no hints
 * for people, no call home to HashiCorp.
 */
export const terraform = (dir: string, cwd: string, env: Record<string, string>, args: string[]) =>
  runCommandBundle(
    [],
    {
      HOME: dir,
      TF_CLI_CONFIG_FILE: '/dev/null',
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
      ...env
    },
    { program: ['terraform', ...args, '-no-color'], cwd }
  )
