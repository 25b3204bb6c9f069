/*
 * The package as npm would publish it. `npm publish --dry-run` is clean (offline, with a stand-in
 * token: it uploads nothing and asks the registry nothing). `npm pack`, then an install of the
 * tarball into an empty folder (offline: the package ships a bundle and depends on nothing), then
 * the installed `neon-gate` on every Node version that `engines` names, each a binary of this
 * machine (the project's own Node 24, and the Node 22 that `npm ci` nests in
 * __tests__/support/node22): `--version`, and a real gate against the local API server and
 * PostgreSQL, passed and failed. A version line that engines names and this machine lacks fails the
 * suite: engines says only what is tested. On each of those binaries, `npm ci --dry-run` of the
 * repository's lock file prints no `EBADENGINE` warning.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { runCommandBundle } from '../support/bundles/run-bundle.ts'
import { FAILING_BRANCH, failingBranch, finishingBranch } from '../support/bundles/command.js'
import { secretForms, serve } from '../support/bundles/action.js'
import { freshDatabase } from '../support/postgres/databases.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

const root = join(import.meta.dirname, '..', '..')
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string
  version: string
  private?: boolean
  bin: Record<string, string>
  files: string[]
  engines: { node: string }
  repository: { type: string; url: string }
}

const dir = mkdtempSync(join(tmpdir(), 'package-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** npm with a cache and a configuration of the test's own: nothing from the developer's. */
function npm(args: string[], cwd = root) {
  return spawnSync('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_cache: join(dir, 'cache'),
      npm_config_userconfig: join(dir, 'npmrc'),
      npm_config_update_notifier: 'false',
      npm_config_loglevel: 'warn'
    }
  })
}

/**
 * The disjuncts of an engines range written as `^X.Y.Z || ^X.Y.Z`, the only form this package
 * uses (a version line each, from a tested release on): `[major, minor, patch]` each.
 */
function versionLines(range: string): number[][] {
  return range.split('||').map((part) => {
    const match = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(part)
    if (!match) throw new Error(`engines.node: "${part.trim()}" is not ^X.Y.Z`)
    return match.slice(1).map(Number)
  })
}

/**
 * The project's Node 22: a dependency of __tests__/support/node22, nested there so that its `node`
 * never takes the place of node_modules/.bin/node (Node 24). Missing off Linux x64 (it is optional).
 */
const node22 = join(root, '__tests__', 'support', 'node22', 'node_modules', '.bin', 'node')

/**
 * Every Node binary of this machine: the one running the suite, each `node` on the PATH, and the
 * project's Node 22. Found once for the file (a shell and each binary's `--version`), not at each
 * look-up: the file's tests look 13 times.
 */
let binaries: { path: string; version: number[] }[] | undefined
const nodeBinaries = () => (binaries ??= findNodeBinaries())

function findNodeBinaries(): { path: string; version: number[] }[] {
  const onPath = execFileSync('sh', ['-c', 'which -a node || true'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
  const found = [process.execPath, ...onPath, ...(existsSync(node22) ? [node22] : [])]
  const paths = [...new Set(found.map((path) => realpathSync(path)))]
  return paths.map((path) => ({
    path,
    version: execFileSync(path, ['--version'], { encoding: 'utf8' })
      .trim()
      .slice(1)
      .split('.')
      .map(Number)
  }))
}

/** The binary of this machine in a version line `^X.Y.Z`: that major, that release or later. */
const binaryFor = ([major, minor, patch]: number[]) =>
  nodeBinaries().find(
    ({ version: [m, n, p] }) => m === major && (n > minor || (n === minor && p >= patch))
  )?.path

describe('package.json can be published', () => {
  it('is not private, has its command as the only bin, a file list, engines and its repository', () => {
    expect(manifest.private).toBeUndefined()
    expect(manifest.bin).toEqual({ 'neon-gate': 'dist/command/index.js' })
    expect(manifest.files).toEqual(['dist/command/', 'docs/*.md'])
    // npm publish --provenance checks that repository.url is the repository that builds it.
    expect(manifest.repository.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/)
  })

  it('engines names version lines, each one a Node binary of this machine runs', () => {
    expect(versionLines('^22.22.2 || ^24.15.0')).toEqual([
      [22, 22, 2],
      [24, 15, 0]
    ])
    expect(() => versionLines('>=20')).toThrow('is not ^X.Y.Z')
    expect(binaryFor([process.versions.node.split('.').map(Number)[0], 0, 0])).toBe(
      realpathSync(process.execPath)
    )
    expect(binaryFor([7, 0, 0])).toBeUndefined()
    // The Node 22 is nested: node_modules/.bin/node, which every npm script runs, stays Node 24.
    const projectNode = join(root, 'node_modules', '.bin', 'node')
    expect(execFileSync(projectNode, ['--version'], { encoding: 'utf8' })).toMatch(/^v24\./)
    const lines = versionLines(manifest.engines.node)
    expect(lines.map((line) => [line.join('.'), binaryFor(line) !== undefined])).toEqual(
      lines.map((line) => [line.join('.'), true])
    )
  })

  it('names Node 22 and 24 only: Node 20 reached its end of life on 2026-04-30', () => {
    expect(versionLines(manifest.engines.node).map(([major]) => major)).toEqual([22, 24])
  })

  /**
   * `npm ci --dry-run` of the repository (package.json, its lock file and the nested Node 22's
   * package) in a folder of its own, with `node` first on the PATH: npm checks every locked
   * package's `engines` against it, and installs nothing.
   */
  const dryInstall = (node: string) => {
    const copy = join(dir, `dry-install-${basename(node)}-${Math.random().toString(36).slice(2)}`)
    mkdirSync(join(copy, '__tests__', 'support', 'node22'), { recursive: true })
    for (const file of [
      'package.json',
      'package-lock.json',
      '__tests__/support/node22/package.json'
    ])
      copyFileSync(join(root, file), join(copy, file))
    const run = spawnSync('npm', ['ci', '--dry-run', '--offline', '--no-audit', '--no-fund'], {
      cwd: copy,
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${dirname(node)}:${process.env.PATH}`,
        npm_config_cache: join(dir, 'cache'),
        npm_config_userconfig: join(dir, 'npmrc-dry'),
        npm_config_update_notifier: 'false'
      }
    })
    return {
      status: run.status,
      warned: (run.stderr.match(/EBADENGINE Unsupported engine/g) ?? []).length
    }
  }

  it('npm ci on a Node of each engines line prints no engine warning; on Node 20 it would', () => {
    for (const line of versionLines(manifest.engines.node)) {
      expect([line.join('.'), dryInstall(binaryFor(line)!)]).toEqual([
        line.join('.'),
        { status: 0, warned: 0 }
      ])
    }
    // The check sees warnings when there are some: the system's Node 20, where there is one.
    const node20 = nodeBinaries().find(({ version: [major] }) => major === 20)
    if (node20) expect(dryInstall(node20.path).warned).toBeGreaterThan(0)
  }, 60_000)

  it('npm publish --dry-run is clean: no warning, no field npm would have to correct', () => {
    // A stand-in token: without one, the dry run warns that a real one would need a login.
    writeFileSync(join(dir, 'npmrc'), '//registry.npmjs.org/:_authToken=dry-run-not-a-token\n')
    const run = npm(['publish', '--dry-run', '--offline', '--provenance', '--access', 'public'])
    const complaints = run.stderr.split('\n').filter((line) => /^npm (warn|error)/i.test(line))
    expect([run.status, complaints]).toEqual([0, []])
    expect(run.stdout).toContain(`+ ${manifest.name}@${manifest.version}`)
  }, 60_000)
})

/**
 * A folder with what npm packs from the repository (package.json, README.md, LICENSE), and its
 * bundle when `withCommand`.
 */
function packable(name: string, withCommand: boolean): string {
  const folder = join(dir, name)
  mkdirSync(folder, { recursive: true })
  for (const file of ['package.json', 'README.md', 'LICENSE'])
    copyFileSync(join(root, file), join(folder, file))
  if (withCommand)
    cpSync(join(root, 'dist', 'command'), join(folder, 'dist', 'command'), { recursive: true })
  return folder
}

describe('npm pack makes a package with its command, or none', () => {
  const tarball = `${manifest.name}-${manifest.version}.tgz`

  it('without dist/command/index.js (the bundle), fails, says what to run, and leaves no tarball', () => {
    const folder = packable('without-bundle', false)
    mkdirSync(join(folder, 'out'))
    const bare = npm(['pack', '--pack-destination', 'out'], folder)
    expect(bare.status).not.toBe(0)
    expect(bare.stderr).toContain(
      'npm pack: no neon-gate command (dist/command/index.js is missing): run npm run bundle, then pack again.'
    )
    expect(readdirSync(join(folder, 'out'))).toEqual([])
    // The same folder with the bundle packs, and the tarball holds the command.
    cpSync(join(root, 'dist', 'command'), join(folder, 'dist', 'command'), { recursive: true })
    const built = npm(['pack', '--json', '--pack-destination', 'out'], folder)
    expect([built.status, readdirSync(join(folder, 'out'))]).toEqual([0, [tarball]])
    const [packed] = JSON.parse(built.stdout) as { files: { path: string }[] }[]
    expect(packed.files.map((file) => file.path)).toContain('dist/command/index.js')
  }, 60_000)

  it('from a git repository as it is: no script makes npm install the dev dependencies first', () => {
    // npm (pacote) runs `npm install --force --include=dev` in a git clone whose package.json has
    // a prepack, prepare, build or install script, before it packs: `npx github:…#<SHA>` would then
    // download every dev dependency. Hence the guard above is a postpack, which pacote ignores.
    const repo = packable('git-repository', true)
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args],
        {
          cwd: repo,
          encoding: 'utf8'
        }
      ).trim()
    git('init', '-q')
    git('add', '.')
    git('commit', '-q', '-m', 'the package')
    const out = join(dir, 'from-git')
    mkdirSync(out)
    // Offline, with an empty cache: a dev install would fail (ENOTCACHED).
    const pack = npm(
      [
        'pack',
        `git+file://${repo}#${git('rev-parse', 'HEAD')}`,
        '--offline',
        '--pack-destination',
        out
      ],
      dir
    )
    expect([pack.status, pack.stderr]).toEqual([0, ''])
    expect(readdirSync(out)).toEqual([tarball])
  }, 60_000)
})

describe('the packed tarball, installed offline into an empty folder', () => {
  const project = join(dir, 'project')
  let files: string[] = []

  beforeAll(() => {
    const pack = npm(['pack', '--json', '--pack-destination', dir])
    expect(pack.status).toBe(0)
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[]
    files = packed.files.map((file) => file.path).sort()
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), '{"name":"uses-the-gate","private":true}\n')
    // An empty cache of its own and --offline: nothing may come from the registry.
    const install = npm(['install', '--offline', join(dir, packed.filename)], project)
    expect([install.status, install.stderr]).toEqual([0, ''])
  }, 60_000)

  it('holds the command alone and its docs', () => {
    expect(files).toContain('dist/command/index.js')
    expect(files).toContain('docs/cli.md')
    expect(
      files.filter(
        (path) =>
          !/^(dist\/command\/|docs\/[\w-]+\.md$|README\.md$|LICENSE$|package\.json$)/.test(path)
      )
    ).toEqual([])
  })

  /** The installed neon-gate, found on the PATH as a user's shell finds it, on `node`. */
  const installed = (node: string, args: string[], env: Record<string, string> = {}) =>
    runCommandBundle([], env, {
      program: ['sh', '-c', 'node --version >&2 && exec neon-gate "$@"', 'neon-gate', ...args],
      env: { PATH: `${dirname(node)}:${join(project, 'node_modules', '.bin')}:/usr/bin:/bin` }
    })

  describe.each(versionLines(manifest.engines.node).map((line) => [line.join('.'), line] as const))(
    'on Node ^%s',
    (_name, line) => {
      const node = () => binaryFor(line)!

      it('neon-gate --version', async () => {
        const run = await installed(node(), ['--version'])
        expect(run.stderr).toMatch(new RegExp(`^v${line[0]}\\.`))
        expect([run.code, run.stdout]).toEqual([0, `neon-gate ${manifest.version}\n`])
      })

      it('gates a new branch until a query answers on its database, and fails on a failed operation', async () => {
        const { world, server } = await serve()
        const [create] = finishingBranch(world)
        failingBranch(world)
        const password = 'package-test-password'
        const database = await freshDatabase(password)
        const urlFile = join(dir, `database-url-${line[0]}`)
        writeFileSync(urlFile, database.url())
        const common = ['--api-host', server.apiHost, '--interval', '1s', '--output', 'json']
        const env = { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT }

        const passed = await installed(
          node(),
          [...common, '--branch-id', create.branchId, '--database-url-file', urlFile],
          env
        )
        expect([passed.code, JSON.parse(passed.stdout)]).toMatchObject([
          0,
          { outcome: 'success', branch_state: 'ready', database_state: 'ready' }
        ])
        const failed = await installed(node(), [...common, '--branch-id', FAILING_BRANCH], env)
        expect([failed.code, JSON.parse(failed.stdout).outcome]).toEqual([1, 'failure'])
        for (const secret of [KEYS.organization, password].flatMap(secretForms)) {
          expect(passed.stdout + passed.stderr + failed.stdout + failed.stderr).not.toContain(
            secret
          )
        }
      }, 60_000)
    }
  )
})
