/*
 * What the recipes' suites share: the command as a recipe runs it (pointed at the local API
 * server), a world with a ready branch and a failing one, the package as npm would install it,
 * and the check that an image can run a package spec.
 */
import { it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { COMMAND_BUNDLE, nodeWith } from './run-bundle.ts'
import { FAILING_BRANCH, failingBranch } from './command.js'
import { serve } from './action.js'
import { PROJECT } from '../neon/ids.js'

export const root = join(import.meta.dirname, '..', '..', '..')

/** The command as a recipe runs it, pointed at the local API server. */
export const gateCommandLine = (server: { apiHost: string }): string =>
  [...nodeWith(COMMAND_BUNDLE, {}), '--api-host', server.apiHost, '--interval', '1s'].join(' ')

/**
 * A branch whose operations finished, and one whose start_compute failed a moment ago, with the
 * API's `error` text.
 */
export async function branches(error?: string) {
  const { world, server } = await serve()
  world.addBranch(PROJECT, { id: 'br-ready-000007', name: 'ready' })
  world.addOperation(PROJECT, {
    action: 'create_branch',
    branchId: 'br-ready-000007',
    createdAt: world.now() - 60_000,
    timeline: [{ status: 'running', ms: 2000 }, { status: 'finished' }]
  })
  failingBranch(world, error)
  return { world, server, ready: 'br-ready-000007', failing: FAILING_BRANCH }
}

export const onPath = (program: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/**
 * `it` for the tests that run `program`. Where it is not on the PATH, they fail under `CI=true`
 * (GitHub's runners set it; CI must install every tool a recipe test runs), and are skipped
 * elsewhere, with a note that says so.
 */
export function itWith(
  program: string
): (name: string, fn: () => Promise<void>, ms?: number) => void {
  if (onPath(program)) return (name, fn, ms) => it(name, fn, ms)
  if (process.env.CI === 'true') {
    return (name) =>
      it(name, () => {
        throw new Error(`${program} is not on the PATH, and under CI=true this test must run`)
      })
  }
  console.log(`${program} is not on the PATH: its tests are skipped here (under CI=true they fail)`)
  return (name, fn, ms) => it.skip(name, fn, ms)
}

/**
 * `npm pack` of the repository into a folder of its own: the tarball's path, for `npm_config_*`
 * offline installs (`npx neon-operations-gate@file:<tarball>`). `remove` deletes the folder.
 */
export function packedTarball(): { tarball: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'packed-'))
  execFileSync('npm', ['pack', '--pack-destination', dir, '--loglevel=error'], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, npm_config_cache: join(dir, 'cache') }
  })
  const [name] = readdirSync(dir).filter((file) => file.endsWith('.tgz'))
  return { tarball: join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The Node majors that package.json's `engines` names (22, 24). */
const engineMajors = [
  ...(
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
  ).engines.node.matchAll(/\^(\d+)\./g)
].map((match) => Number(match[1]))

/**
 * Why `image` cannot run `npx <spec>` for the command, or undefined when it can: the command needs
 * a Node that `engines` names (22.22.2+ or 24.15+), and npm fetches a git spec (`github:…`,
 * `git+…`) with git, which the official node images have in their Debian form (`node:24`,
 * `node:24-bookworm`) and not in `-slim` or `-alpine`.
 */
export function imageProblem(image: string, spec: string): string | undefined {
  const match = /^node:(\d+)(?:\.[\d.]+)?(?:-([a-z]+))?$/.exec(image)
  if (!match) return `${image} is not an official node image`
  if (!engineMajors.includes(Number(match[1])))
    return `${image} has no Node that engines names (${engineMajors.join(', ')})`
  const gitSpec = /(^|@)(github:|gitlab:|bitbucket:|git\+|git:\/\/|[\w.-]+\/[\w.-]+(#|$))/.test(
    spec
  )
  const withGit = match[2] === undefined || ['bookworm', 'bullseye', 'trixie'].includes(match[2])
  return gitSpec && !withGit ? `${image} has no git, which npm needs for ${spec}` : undefined
}

/**
 * A script at `dir/name` on the database at DATABASE_URL, through pg: `first` (before it connects),
 * then `queries` on a client, then `last` once the client is closed. Its path.
 */
function databaseScript(
  dir: string,
  name: string,
  { first = [], queries, last }: { first?: string[]; queries: string[]; last: string }
): string {
  const file = join(dir, name)
  writeFileSync(
    file,
    [
      `import pg from ${JSON.stringify(join(root, 'node_modules', 'pg', 'lib', 'index.js'))}`,
      ...first,
      'const client = new pg.Client({ connectionString: process.env.DATABASE_URL, ssl: false })',
      'await client.connect()',
      ...queries,
      'await client.end()',
      last
    ].join('\n')
  )
  return file
}

/**
 * A migration that really migrates, as a shell command line with a quoted argument (as `psql
 * "$DATABASE_URL" -c '…'` has): a row in a table on the database at DATABASE_URL, and `migrated` on
 * standard output. Run without a shell (its words split on spaces), it fails and migrates nothing.
 */
export function migration(dir: string): string {
  const file = databaseScript(dir, 'migrate.mjs', {
    first: [
      "if (process.argv[2] !== 'preview migrated') {",
      '  console.error(`not run by a shell: ${JSON.stringify(process.argv.slice(2))}`)',
      '  process.exit(1)',
      '}'
    ],
    queries: [
      "await client.query('CREATE TABLE IF NOT EXISTS preview_migrated (at timestamptz)')",
      "await client.query('INSERT INTO preview_migrated VALUES (now())')"
    ],
    last: "console.log('migrated')"
  })
  return `node ${file} 'preview migrated'`
}

/**
 * A deploy that needs the database, as a shell command line: it connects to DATABASE_URL, counts
 * the migrations, and says `deployed on a database migrated N times`.
 */
export function deployment(dir: string): string {
  const file = databaseScript(dir, 'deploy.mjs', {
    queries: [
      "const { rows } = await client.query('SELECT count(*)::int AS n FROM preview_migrated')"
    ],
    last: 'console.log(`deployed on a database migrated ${rows[0].n} times`)'
  })
  return `node ${file} --preview "$CI_MERGE_REQUEST_IID"`
}

/** How many times the migration ran on the database at `url`. */
export async function migrations(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, ssl: false })
  await client.connect()
  try {
    const result = await client.query('SELECT count(*)::int AS n FROM preview_migrated')
    return (result.rows[0] as { n: number }).n
  } catch {
    return 0
  } finally {
    await client.end()
  }
}

/**
 * A recipe's `${{ a.b.c }}` expressions replaced from `context` (a property path each; anything
 * else is an error, so that a recipe cannot hold what its test does not evaluate).
 */
export function evaluate(text: string, context: Record<string, unknown>): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_match, expression: string) => {
    if (!/^[a-z_]+(\.[\w-]+)+$/i.test(expression)) throw new Error(`cannot evaluate ${expression}`)
    const value = expression
      .split('.')
      .reduce<unknown>((object, key) => (object as Record<string, unknown>)?.[key], context)
    if (value === undefined) throw new Error(`${expression} is not in the context`)
    return String(value)
  })
}
