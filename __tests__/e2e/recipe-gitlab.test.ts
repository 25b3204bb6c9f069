/*
 * The GitLab recipe as GitLab would run it: examples/command/gitlab-ci.yml under gitlab-ci-local
 * (npm) and its shell executor, in a repository that holds the component (templates/gate.yml), as
 * a merge-request pipeline. The one change to the recipe: its include names the component at the
 * checked-out commit (`…/gate@<SHA>`, which gitlab-ci-local reads from the repository, as GitLab's
 * own docs test a component in its project) instead of the release `@0.1.0`, and the command comes
 * from the packed tarball (`--input version=file:…`), offline. Neon's API is the local API server
 * behind a front that creates branches and answers the connection URI (support/neon/writes.ts,
 * held to Neon's OpenAPI document); the database is the suite's real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, parseAllDocuments } from 'yaml'
import { runCommandBundle } from '../support/bundles/run-bundle.ts'
import { inTempDir } from '../support/bundles/command.js'
import { secretForms, serve } from '../support/bundles/action.js'
import { startWritingFront, type WritingFront } from '../support/neon/writes.js'
import { freshDatabase } from '../support/postgres/databases.js'
import {
  branches,
  imageProblem,
  migration,
  migrations,
  onPath,
  packedTarball,
  root
} from '../support/bundles/recipes.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

const GITLAB_CI_LOCAL = join(root, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js')
const RECIPE = join(root, 'examples', 'command', 'gitlab-ci.yml')
const COMPONENT = join(root, 'templates', 'gate.yml')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string
}

let packed: ReturnType<typeof packedTarball>
beforeAll(() => {
  packed = packedTarball()
}, 60_000)
afterAll(() => packed?.remove())

const fronts: WritingFront[] = []
afterAll(async () => {
  await Promise.all(fronts.map((front) => front.close()))
})

const [componentSpec, componentJobs] = parseAllDocuments(readFileSync(COMPONENT, 'utf8')).map(
  (document) => document.toJS()
)
type Input = { type?: string; default?: string; options?: string[]; description?: string }
const inputs = componentSpec.spec.inputs as Record<string, Input>

/** A git repository with the component committed and `recipe` as its .gitlab-ci.yml. */
function repository(dir: string, recipe: string): string {
  const repo = join(dir, 'repo')
  mkdirSync(join(repo, 'templates'), { recursive: true })
  copyFileSync(COMPONENT, join(repo, 'templates', 'gate.yml'))
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
  git('add', 'templates')
  git('commit', '-q', '-m', 'the component')
  git('remote', 'add', 'origin', 'https://gitlab.example.invalid/OWNER/neon-operations-gate.git')
  git('update-ref', 'refs/remotes/origin/main', 'HEAD')
  git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main')
  const text = readFileSync(recipe, 'utf8')
  const local = text.replace(
    `/OWNER/neon-operations-gate/gate@${version}`,
    `/OWNER/neon-operations-gate/gate@${git('rev-parse', 'HEAD')}`
  )
  expect(local).not.toBe(text)
  writeFileSync(join(repo, '.gitlab-ci.yml'), local)
  return repo
}

/**
 * A pipeline of `recipe` with these `variables`, as GitLab would run it: its jobs on this machine's
 * shell, the command from the packed tarball, offline; its output, every job's log and the dotenv
 * reports.
 */
async function runPipeline(dir: string, recipe: string, variables: Record<string, string>) {
  const repo = repository(dir, recipe)
  mkdirSync(join(dir, 'home'))
  const all = {
    ...variables,
    // npx installs the packed tarball, and nothing from the registry.
    npm_config_offline: 'true',
    npm_config_cache: join(dir, 'npm-cache')
  }
  const run = await runCommandBundle(
    [],
    { HOME: join(dir, 'home') },
    {
      program: [
        process.execPath,
        GITLAB_CI_LOCAL,
        '--no-color',
        // The recipe's jobs name images; run them on this machine's shell instead.
        '--force-shell-executor',
        // What GitLab sets for a merge-request pipeline, set here by hand.
        '--ignore-predefined-vars',
        'CI_PIPELINE_SOURCE,CI_MERGE_REQUEST_IID',
        '--input',
        `version=file:${packed.tarball}`,
        ...Object.entries(all).flatMap(([name, value]) => ['--variable', `${name}=${value}`])
      ],
      cwd: repo
    }
  )
  const state = join(repo, '.gitlab-ci-local')
  const logs = readdirSync(join(state, 'output'))
    .map((file) => readFileSync(join(state, 'output', file), 'utf8'))
    .join('\n')
  const dotenv = readdirSync(join(state, 'artifacts'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.env'))
    .map((file) => readFileSync(join(state, 'artifacts', file), 'utf8'))
    .join('\n')
  return { ...run, output: run.stdout + run.stderr, logs, dotenv }
}

/** A job's exit code, as gitlab-ci-local reports it; undefined when it did not run. */
const jobExit = (output: string, job: string) => {
  const match = new RegExp(`^${job}\\s+finished in .*?(?:FAIL (\\d+))?\\s*$`, 'm').exec(output)
  return match ? (match[1] ?? '0') : undefined
}

describe('the component, templates/gate.yml', () => {
  it('takes typed inputs: the branch (required), the rest with defaults', () => {
    expect(Object.keys(inputs).sort()).toEqual(
      [
        'api-host',
        'before',
        'branch',
        'database-url-file',
        'dotenv',
        'image',
        'job-name',
        'project',
        'stage',
        'timeout',
        'version'
      ].sort()
    )
    for (const [name, input] of Object.entries(inputs)) {
      expect([name, input.type, typeof input.description]).toEqual([name, 'string', 'string'])
    }
    expect(inputs.branch.default).toBeUndefined()
    expect(inputs.before).toMatchObject({ default: '', options: ['', 'delete', 'reset'] })
    expect(inputs.timeout.default).toBe('10m')
  })

  it("runs this release's command on an image that can fetch it, and passes --before only when set", () => {
    expect(inputs.version.default).toBe(version)
    expect(imageProblem(inputs.image.default!, `neon-operations-gate@${version}`)).toBeUndefined()
    // What the check tells apart (npm fetches a github: spec with git, which -slim lacks).
    const github = 'neon-operations-gate@github:OWNER/neon-operations-gate#0123456789abcdef'
    expect(imageProblem('node:24-slim', github)).toMatch(/has no git/)
    expect(imageProblem('node:24', github)).toBeUndefined()
    expect(imageProblem('node:22', `neon-operations-gate@${version}`)).toMatch(/no Node 20 or 24/)
    const script = (Object.values(componentJobs)[0] as { script: string[] }).script.join('\n')
    expect(script).toContain('npx --yes "neon-operations-gate@$NEON_GATE_VERSION" "$@"')
    expect(script).toContain(
      'if [ -n "$NEON_GATE_BEFORE" ]; then set -- "$@" --before "$NEON_GATE_BEFORE"; fi'
    )
  })
})

describe('GitLab CI: examples/command/gitlab-ci.yml, a preview branch per merge request', () => {
  it('rsync is installed (gitlab-ci-local copies the repository with it; .ci/run installs it)', () => {
    expect(onPath('rsync')).toBe(true)
  })

  it('as written, every job names an image that can run what it runs', () => {
    const recipe = parse(readFileSync(RECIPE, 'utf8'))
    const [include] = recipe.include as { component: string; inputs: Record<string, string> }[]
    expect(include.component).toBe(`$CI_SERVER_FQDN/OWNER/neon-operations-gate/gate@${version}`)
    // The gate's job writes the database URL file with curl: node:24 has it, -slim has not.
    expect(include.inputs.image).toBe('node:24')
    expect(imageProblem(include.inputs.image, `neon-operations-gate@${version}`)).toBeUndefined()
    for (const job of ['create-branch', 'migrate']) expect(recipe[job].image).toBe('node:24')
    expect(recipe['neon-gate'].needs).toEqual(['create-branch'])
  })

  /** A merge-request pipeline of the recipe for !`mr`, as GitLab would run it. */
  const pipeline = (dir: string, front: WritingFront, mr: number, migrate: string) =>
    runPipeline(dir, RECIPE, {
      CI_PIPELINE_SOURCE: 'merge_request_event',
      CI_MERGE_REQUEST_IID: String(mr),
      NEON_API_KEY: KEYS.organization,
      NEON_PROJECT_ID: PROJECT,
      NEON_API_HOST: front.apiHost,
      MIGRATE: migrate
    })

  it('a new merge request: the branch is created, gated until a query answers, migrated, deployed; a second pipeline finds it again', async () => {
    const { world, server } = await branches()
    const password = 'preview-database-password'
    const database = await freshDatabase(password)
    const front = await startWritingFront(world, server, { databaseUrl: database.url() })
    fronts.push(front)
    await inTempDir(async (dir) => {
      const first = await pipeline(dir, front, 12, migration(dir))
      expect(
        ['create-branch', 'neon-gate', 'migrate', 'deploy', 'gate-failed'].map((job) => [
          job,
          jobExit(first.output, job)
        ])
      ).toEqual([
        ['create-branch', '0'],
        ['neon-gate', '0'],
        ['migrate', '0'],
        ['deploy', '0'],
        ['gate-failed', undefined]
      ])
      expect(first.code).toBe(0)
      const created = world.branchesOf(PROJECT).find((branch) => branch.name === 'preview/mr-12')
      expect(created).toBeDefined()
      expect(first.output).toContain(`branch preview/mr-12: ${created!.id}`)
      expect(first.output).toMatch(/^migrate\s+> gate success, branch ready, database ready$/m)
      expect(first.output).toMatch(/^migrate\s+> migrated$/m)
      expect(await migrations(database.url())).toBe(1)

      // The next push to the merge request: the same branch, no second one.
      const second = await pipeline(join(dir, 'again'), front, 12, migration(dir))
      expect([second.code, jobExit(second.output, 'migrate')]).toEqual([0, '0'])
      expect(front.answered.filter((call) => call.startsWith('POST'))).toEqual([
        `POST /projects/${PROJECT}/branches`
      ])
      expect(front.answered.filter((call) => call.endsWith('/connection_uri'))).toHaveLength(4)
      expect(await migrations(database.url())).toBe(2)
      expect(front.violations).toEqual([])
      // The key and the database password reach no log, no output and no dotenv report.
      for (const run of [first, second]) {
        for (const secret of [KEYS.organization, password].flatMap(secretForms)) {
          expect(run.output + run.logs + run.dotenv).not.toContain(secret)
        }
      }
    })
  }, 120_000)

  it('a branch whose compute failed: the gate exits 1, nothing migrates, gate-failed says why', async () => {
    const { world, server } = await branches('out of capacity; see $NEON_API_KEY')
    // The merge request's branch, made by an earlier pipeline; its compute failed to start.
    world.branchesOf(PROJECT).find((branch) => branch.id === 'br-preview-pr-7')!.name =
      'preview/mr-7'
    const database = await freshDatabase('unused-password')
    const front = await startWritingFront(world, server, { databaseUrl: database.url() })
    fronts.push(front)
    await inTempDir(async (dir) => {
      const run = await pipeline(dir, front, 7, migration(dir))
      expect(run.code).toBe(1)
      expect(
        ['create-branch', 'neon-gate', 'migrate', 'deploy', 'gate-failed'].map((job) =>
          jobExit(run.output, job)
        )
      ).toEqual(['0', '1', undefined, undefined, '0'])
      // API text that names a variable stays text: GitLab expands dotenv values ($ is written $$).
      expect(run.output).toMatch(
        /^gate-failed\s+> gate failure, exit code 1, An operation ended in failure: .*see \$NEON_API_KEY/m
      )
      expect(front.answered.filter((call) => call.startsWith('POST'))).toEqual([])
      expect(await migrations(database.url())).toBe(0)
      for (const secret of secretForms(KEYS.organization)) {
        expect(run.output + run.logs + run.dotenv).not.toContain(secret)
      }
    })
  }, 120_000)
})

describe('GitLab CI: examples/command/gitlab-teardown.yml, the component before a delete', () => {
  const TEARDOWN = join(root, 'examples', 'command', 'gitlab-teardown.yml')

  it('as written: the component with before: delete, the delete after it, a job that says why', () => {
    const recipe = parse(readFileSync(TEARDOWN, 'utf8'))
    const [include] = recipe.include as { component: string; inputs: Record<string, string> }[]
    expect(include.component).toBe(`$CI_SERVER_FQDN/OWNER/neon-operations-gate/gate@${version}`)
    expect(include.inputs).toMatchObject({ branch: '$NEON_BRANCH', before: 'delete' })
    expect(recipe['delete-branch'].needs).toEqual(['neon-gate'])
    expect(recipe['teardown-blocked']).toMatchObject({ needs: ['neon-gate'], when: 'on_failure' })
  })

  it.each([
    [
      'preview/mr-7',
      'clear',
      0,
      /^delete-branch\s+> neonctl branches delete preview\/mr-7 --project-id demo-project-000001$/m
    ],
    [
      'preview/mr-1',
      'gone',
      0,
      /^delete-branch\s+> branch preview\/mr-1 is gone: nothing to delete$/m
    ],
    [
      'preview/mr-8',
      'blocked',
      1,
      /^teardown-blocked\s+> gate failure, exit code 1, Branch preview\/mr-8 \(br-preview-mr-8\) cannot be deleted: it has 1 child branch, to delete first: preview\/mr-8-a \(br-preview-mr-8-a\)$/m
    ]
  ] as const)(
    '%s is %s: the gate exits %d, and the next job acts on GATE_PREFLIGHT',
    async (branch, preflight, code, next) => {
      const { world, server } = await serve()
      world.addBranch(PROJECT, { id: 'br-preview-mr-7', name: 'preview/mr-7' })
      world.addBranch(PROJECT, { id: 'br-preview-mr-8', name: 'preview/mr-8' })
      world.addBranch(PROJECT, {
        id: 'br-preview-mr-8-a',
        name: 'preview/mr-8-a',
        parentId: 'br-preview-mr-8'
      })
      await inTempDir(async (dir) => {
        const run = await runPipeline(dir, TEARDOWN, {
          NEON_BRANCH: branch,
          NEON_API_KEY: KEYS.organization,
          NEON_PROJECT_ID: PROJECT,
          NEON_API_HOST: server.apiHost,
          // neonctl as the recipe runs it, here a stand-in that says what it was asked.
          NEONCTL: 'echo neonctl'
        })
        expect(run.code).toBe(code)
        expect(jobExit(run.output, 'neon-gate')).toBe(String(code))
        expect(run.output).toMatch(next)
        expect(run.dotenv).toContain(`GATE_PREFLIGHT=${preflight}`)
        if (preflight !== 'clear') expect(run.output).not.toContain('neonctl branches delete')
        for (const secret of secretForms(KEYS.organization)) {
          expect(run.output + run.logs + run.dotenv).not.toContain(secret)
        }
      })
    },
    120_000
  )
})
