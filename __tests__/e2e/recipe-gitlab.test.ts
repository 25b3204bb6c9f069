/*
 * The GitLab recipe as GitLab would run it: examples/command/gitlab-ci.yml under gitlab-ci-local
 * (npm) and its shell executor, in a repository that holds the component (templates/gate.yml), as
 * a merge-request pipeline, then its review environment's stop job. The one change to the recipe:
 * its `<full commit SHA>` is the checked-out commit, and its `include: remote` (the component from
 * GitHub at that commit) is served from gitlab-ci-local's include cache, where the test puts
 * templates/gate.yml under that URL; the command comes from the packed tarball
 * (`--input version=file:…`). All of it offline. Neon's CLI is the real one (the devDependency
 * `neon`, as NEON_CLI), faked only at the HTTP level: NEON_API_HOST points it at the local API
 * server behind a front that creates and deletes branches and answers the endpoints, databases and
 * role password it builds a connection string from (support/neon/writes.ts, held to Neon's OpenAPI
 * document). The database is the suite's real PostgreSQL, over TLS (its CA through
 * NODE_EXTRA_CA_CERTS). The CLI runs through a wrapper that writes down its command lines, to show
 * that the key is never on one.
 */
import { afterAll, describe, expect, it } from '@jest/globals'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parse, parseAllDocuments, type Tags } from 'yaml'
import { inTempDir } from '../support/bundles/command.js'
import { secretForms, serve } from '../support/bundles/action.js'
import { startWritingFront, type WritingFront } from '../support/neon/writes.js'
import type { World } from '../support/neon/world.js'
import { freshDatabase } from '../support/postgres/databases.js'
import {
  branches,
  deployment,
  imageProblem,
  migration,
  migrations,
  onPath,
  root
} from '../support/bundles/recipes.js'
import {
  gitlabPipeline,
  gitRepository,
  packedForTheseTests,
  PIPELINE_CEILING
} from '../support/bundles/recipe-tools.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

const RECIPE = join(root, 'examples', 'command', 'gitlab-ci.yml')
const COMPONENT = join(root, 'templates', 'gate.yml')
/** The recipe's placeholder for the commit it pins, and its include of the component at it. */
const SHA = '<full commit SHA>'
const REMOTE = `https://raw.githubusercontent.com/OWNER/neon-operations-gate/${SHA}/templates/gate.yml`
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string
}

const tarball = packedForTheseTests()

const fronts: WritingFront[] = []
afterAll(async () => {
  await Promise.all(fronts.map((front) => front.close()))
})

const [componentSpec, componentJobs] = parseAllDocuments(readFileSync(COMPONENT, 'utf8')).map(
  (document) => document.toJS()
)
type Input = { type?: string; default?: string; options?: string[]; description?: string }
const inputs = componentSpec.spec.inputs as Record<string, Input>

/** GitLab's `!reference [job, key]`, read as the list it names (enough to look at the recipe). */
const referenceTag: Tags[number] = {
  tag: '!reference',
  collection: 'seq',
  resolve: (value) => value
}

/**
 * A git repository with the component committed and `recipe` as its .gitlab-ci.yml, the component
 * also where gitlab-ci-local keeps its remote includes.
 */
function repository(dir: string, recipe: string): string {
  const { repo, git } = gitRepository(
    dir,
    { 'templates/gate.yml': COMPONENT },
    {
      message: 'the component',
      remote: 'https://gitlab.example.invalid/OWNER/neon-operations-gate.git'
    }
  )
  const text = readFileSync(recipe, 'utf8')
  const commit = git('rev-parse', 'HEAD')
  const local = text.replaceAll(SHA, commit)
  expect(local).not.toBe(text)
  writeFileSync(join(repo, '.gitlab-ci.yml'), local)
  // What GitLab would fetch from the remote include's URL: the component at that commit, put
  // where gitlab-ci-local keeps what it downloaded (it downloads only what it lacks).
  const cached = join(repo, '.gitlab-ci-local', 'includes', REMOTE.replace(SHA, commit).slice(8))
  mkdirSync(dirname(cached), { recursive: true })
  writeFileSync(cached, git('show', `${commit}:templates/gate.yml`) + '\n')
  return repo
}

/**
 * A pipeline of `recipe` with these `variables`, as GitLab would run it: its jobs on this machine's
 * shell, the command from the packed tarball, offline; its output, every job's log, the dotenv
 * reports and every command line Neon's CLI was given. `jobs` names the jobs to run (a manual one
 * included), instead of the whole pipeline; a second run in the same `dir` uses the same
 * repository, as GitLab runs the stop job of a pipeline that ran earlier.
 */
async function runPipeline(
  dir: string,
  recipe: string,
  variables: Record<string, string>,
  jobs: string[] = []
) {
  const repo = existsSync(join(dir, 'repo')) ? join(dir, 'repo') : repository(dir, recipe)
  const run = await gitlabPipeline(dir, repo, {
    variables,
    // What GitLab sets for a merge-request pipeline, set here by hand.
    predefined: ['CI_PIPELINE_SOURCE', 'CI_MERGE_REQUEST_IID'],
    jobs,
    flags: ['--input', `version=file:${tarball()}`],
    // The suite's PostgreSQL serves a certificate of this CA: the URL's sslmode=require holds.
    env: { NODE_EXTRA_CA_CERTS: join(root, '__tests__', 'support', 'tls', 'postgres-ca.pem') }
  })
  const state = join(repo, '.gitlab-ci-local')
  const logs = readdirSync(join(state, 'output'))
    .map((file) => readFileSync(join(state, 'output', file), 'utf8'))
    .join('\n')
  const artifacts = join(state, 'artifacts')
  const dotenv = (
    existsSync(artifacts) ? readdirSync(artifacts, { recursive: true, encoding: 'utf8' }) : []
  )
    .filter((file) => file.endsWith('.env'))
    .map((file) => readFileSync(join(state, 'artifacts', file), 'utf8'))
    .join('\n')
  return { ...run, logs, dotenv }
}

/** The recipe's NEON_DATABASE and NEON_ROLE: the names of the database the front points at. */
const databaseNames = (front: WritingFront) => {
  const url = new URL(front.databaseUrl)
  return {
    NEON_DATABASE: decodeURIComponent(url.pathname.slice(1)),
    NEON_ROLE: decodeURIComponent(url.username)
  }
}

/**
 * A job's exit code, as gitlab-ci-local reports it (`FAIL 1`, or `WARN 1` for a job that may fail,
 * `allow_failure: true`); undefined when it did not run.
 */
const jobExit = (output: string, job: string) => {
  const match = new RegExp(`^${job}\\s+finished in .*?(?:(?:FAIL|WARN) (\\d+))?\\s*$`, 'm').exec(
    output
  )
  return match ? (match[1] ?? '0') : undefined
}

describe('the component, templates/gate.yml', () => {
  it('takes typed inputs: the branch and the version (required), the rest with defaults', () => {
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

  it('asks for the version plainly (nothing resolves before the first release), on an image that can fetch what works today', () => {
    // No default that cannot install: GitLab refuses an include without it, naming the input.
    expect(inputs.version.default).toBeUndefined()
    expect(inputs.version.description).toContain(
      'github:OWNER/neon-operations-gate#<full commit SHA>'
    )
    expect(inputs.version.description).toContain(
      `After the first release, a version on npm: ${version}`
    )
    // The default image fetches both (npm fetches a github: spec with git, which -slim lacks).
    const github = 'neon-operations-gate@github:OWNER/neon-operations-gate#0123456789abcdef'
    expect(imageProblem(inputs.image.default!, github)).toBeUndefined()
    expect(imageProblem(inputs.image.default!, `neon-operations-gate@${version}`)).toBeUndefined()
    expect(imageProblem('node:24-slim', github)).toMatch(/has no git/)
    expect(imageProblem('node:22', `neon-operations-gate@${version}`)).toBeUndefined()
    expect(imageProblem('node:18', `neon-operations-gate@${version}`)).toMatch(
      /no Node that engines names \(22, 24\)/
    )
    expect(imageProblem('node:20', `neon-operations-gate@${version}`)).toMatch(
      /no Node that engines names/
    )
    const script = (Object.values(componentJobs)[0] as { script: string[] }).script.join('\n')
    expect(script).toContain('npx --yes "neon-operations-gate@$NEON_GATE_VERSION" "$@"')
    expect(script).toContain(
      'if [ -n "$NEON_GATE_BEFORE" ]; then set -- "$@" --before "$NEON_GATE_BEFORE"; fi'
    )
  })
})

describe('GitLab CI: examples/command/gitlab-ci.yml, a preview branch per merge request, to its end', () => {
  type Job = Record<string, unknown> & { environment?: Record<string, string> }
  const recipe = parse(readFileSync(RECIPE, 'utf8'), { customTags: [referenceTag] }) as Record<
    string,
    Job
  >

  it('rsync is installed (gitlab-ci-local copies the repository with it; .ci/run installs it)', () => {
    expect(onPath('rsync')).toBe(true)
  })

  it("as written: one pipeline; the component as the gate, and again before the delete in the review environment's stop job", () => {
    const includes = recipe.include as unknown as {
      remote: string
      inputs: Record<string, string>
    }[]
    // What works before the first release: the component and the command from GitHub, both at
    // the same commit (the catalog's gate@X.Y.Z and npm's X.Y.Z come with the first release).
    expect(includes.map((include) => Object.keys(include).sort())).toEqual([
      ['inputs', 'remote'],
      ['inputs', 'remote']
    ])
    expect(includes.map((include) => include.remote)).toEqual([REMOTE, REMOTE])
    expect(existsSync(join(root, REMOTE.split(`/${SHA}/`)[1]))).toBe(true)
    const [gate, beforeDelete] = includes.map((include) => include.inputs)
    expect(gate.version).toBe(`github:OWNER/neon-operations-gate#${SHA}`)
    expect(beforeDelete).toMatchObject({
      version: gate.version,
      'job-name': '.neon-gate-before-delete',
      before: 'delete',
      branch: gate.branch
    })
    // Every job runs on node:24 (npx, node, git): the component's default image too, which has
    // the git that npm needs for a github: version.
    for (const include of [gate, beforeDelete]) expect(include.image).toBeUndefined()
    expect(
      imageProblem(inputs.image.default!, `neon-operations-gate@${gate.version}`)
    ).toBeUndefined()
    for (const job of ['create-branch', 'migrate', 'deploy', 'gate-failed'])
      expect([job, recipe[job].image]).toEqual([job, 'node:24'])
    expect(recipe['neon-gate'].needs).toEqual(['create-branch'])
    // The review environment starts with the branch (a gate that never passes still leaves a
    // stop job), the deploy deploys to it, and one job stops it.
    expect(recipe['create-branch'].environment).toEqual({
      name: 'preview/mr-$CI_MERGE_REQUEST_IID',
      on_stop: 'stop-preview'
    })
    expect(recipe.deploy.environment).toEqual({ name: 'preview/mr-$CI_MERGE_REQUEST_IID' })
    expect(recipe['stop-preview']).toMatchObject({
      extends: '.neon-gate-before-delete',
      environment: { name: recipe.deploy.environment!.name, action: 'stop' },
      rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"', when: 'manual' }]
    })
  })

  /** Every distinct shell script of a parsed pipeline: script and before_script entries. */
  const shellOf = (pipeline: Record<string, Job>) => [
    ...new Set(
      Object.values(pipeline).flatMap((job) =>
        typeof job === 'object' && job !== null
          ? (['before_script', 'script'] as const).flatMap((key) =>
              Array.isArray(job[key])
                ? (job[key] as unknown[]).filter((item) => typeof item === 'string')
                : []
            )
          : []
      )
    )
  ]

  it("uses Neon's CLI for every call to Neon's API (no HTTP written by hand), in at most 60 lines of shell", () => {
    const scripts = shellOf(recipe) as string[]
    const lines = scripts
      .flatMap((script) => script.split('\n'))
      .filter((line) => line.trim() !== '')
    expect(lines.length).toBeLessThanOrEqual(60)
    expect(lines.length).toBeGreaterThan(20)
    const text = readFileSync(RECIPE, 'utf8')
    expect(text).not.toMatch(/\bcurl\b|\bwget\b|fetch\(|\/api\/v2\/projects|connection_uri/)
    expect(recipe.variables).toMatchObject({ NEON_CLI: 'npx --yes neon@6.2.3' })
    // The version NEON_CLI runs is the one the suite runs.
    const devDependencies = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>
      }
    ).devDependencies
    expect(recipe.variables).toMatchObject({ NEON_CLI: `npx --yes neon@${devDependencies.neon}` })
    for (const command of [
      'branches get',
      'branches create',
      'branches delete',
      'connection-string'
    ])
      expect([
        command,
        text.includes(`neon_unless_gone ${command}`) || text.includes(`neon ${command}`)
      ]).toEqual([command, true])
    // The key reaches the CLI from the environment only.
    expect(text).not.toMatch(/--api-key/)
  })

  it('one pipeline per merge request at a time: each job that changes the branch or its database takes its resource_group; GitLab 17.0 or later', () => {
    for (const job of ['create-branch', 'migrate', 'deploy', 'stop-preview'])
      expect([job, recipe[job].resource_group]).toEqual([job, 'preview/mr-$CI_MERGE_REQUEST_IID'])
    expect(readFileSync(RECIPE, 'utf8')).toContain(
      'Needs GitLab 17.0 or later (include: with inputs)'
    )
  })

  it('the mirror form is the same pipeline, whole: only the component, the command and their comments differ', () => {
    const mirrorText = readFileSync(
      join(root, 'examples', 'command', 'gitlab-ci-mirror.yml'),
      'utf8'
    )
    const mirror = parse(mirrorText, { customTags: [referenceTag] }) as Record<string, Job>
    const includes = mirror.include as unknown as {
      project: string
      ref: string
      file: string
      inputs: Record<string, string>
    }[]
    expect(includes.map(({ project, ref, file }) => [project, ref, file])).toEqual([
      ['your-group/neon-operations-gate', SHA, 'templates/gate.yml'],
      ['your-group/neon-operations-gate', SHA, 'templates/gate.yml']
    ])
    expect(includes.map((include) => include.inputs.version)).toEqual([
      'file:neon-operations-gate.tgz',
      'file:neon-operations-gate.tgz'
    ])
    // Each job that runs the gate fetches the tarball first, with the job token off its command line.
    const fetch = (mirror['.neon-gate-tarball'].script as string[])[0]
    expect(fetch).toContain('printf \'header = "JOB-TOKEN: %s"\\n\' "$CI_JOB_TOKEN" |')
    expect(fetch).toContain('--output neon-operations-gate.tgz')
    expect((mirror['neon-gate'].before_script as string[])[0]).toBe(fetch)
    expect((mirror['stop-preview'].script as string[])[0]).toBe(fetch)
    // Everything else is the recipe's.
    const withoutSources = (pipeline: Record<string, Job>) => {
      const copy = structuredClone(pipeline)
      delete copy.include
      delete copy['.neon-gate-tarball']
      delete (copy.variables as Record<string, string>).NEON_GATE_TARBALL_URL
      copy['neon-gate'].before_script = (copy['neon-gate'].before_script as string[]).filter(
        (item) => item !== fetch
      )
      copy['stop-preview'].script = (copy['stop-preview'].script as unknown[]).filter(
        (item) => item !== fetch
      )
      return copy
    }
    expect(withoutSources(mirror)).toEqual(withoutSources(recipe))
  })

  /** A merge-request pipeline of the recipe for !`mr`, as GitLab would run it (or only `jobs`). */
  const pipeline = (dir: string, front: WritingFront, mr: number, jobs: string[] = []) => {
    mkdirSync(dir, { recursive: true })
    return runPipeline(
      dir,
      RECIPE,
      {
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_MERGE_REQUEST_IID: String(mr),
        NEON_API_KEY: KEYS.organization,
        NEON_PROJECT_ID: PROJECT,
        NEON_API_HOST: front.apiHost,
        ...databaseNames(front),
        MIGRATE: migration(dir),
        DEPLOY: deployment(dir)
      },
      jobs
    )
  }

  /**
   * The stop job alone for !`mr`, on a project with `branches` added, its deletes meeting
   * `faults`, the key checked to be nowhere; with the world and the front, to read what it left.
   */
  const stopJob = async (
    mr: number,
    branches: Parameters<World['addBranch']>[1][],
    faults: Pick<Parameters<typeof startWritingFront>[2], 'deletedElsewhere'> = {}
  ) => {
    const { world, server } = await serve()
    for (const branch of branches) world.addBranch(PROJECT, branch)
    const database = await freshDatabase('unused-password')
    const front = await startWritingFront(world, server, { databaseUrl: database.url(), ...faults })
    fronts.push(front)
    const run = await inTempDir((dir) => pipeline(dir, front, mr, ['stop-preview']))
    // The key is on no command line, in no log, output or dotenv report.
    for (const secret of secretForms(KEYS.organization)) {
      expect(run.output + run.logs + run.dotenv + run.neonArgv).not.toContain(secret)
    }
    return { world, front, run }
  }

  it(
    'a merge request from its first push to its end: created, gated, migrated, deployed with its database; found again on every page; deleted by the stop job after a 423; gone the second time',
    async () => {
      const { world, server } = await branches()
      // Branches whose names hold the merge request's: only the exact name counts.
      for (const name of ['preview/mr-120', 'preview/mr-121'])
        world.addBranch(PROJECT, {
          id: `br-${name.slice(8)}-000001`,
          name,
          createdAt: world.now() - 60_000
        })
      const password = 'preview-database-password'
      const database = await freshDatabase(password)
      const front = await startWritingFront(world, server, {
        databaseUrl: database.url(),
        lockedDeletes: 1
      })
      fronts.push(front)
      await inTempDir(async (dir) => {
        const first = await pipeline(join(dir, 'first'), front, 12)
        expect(
          ['create-branch', 'neon-gate', 'migrate', 'deploy', 'gate-failed', 'stop-preview'].map(
            (job) => [job, jobExit(first.output, job)]
          )
        ).toEqual([
          ['create-branch', '0'],
          ['neon-gate', '0'],
          ['migrate', '0'],
          ['deploy', '0'],
          ['gate-failed', undefined],
          ['stop-preview', undefined]
        ])
        expect(first.code).toBe(0)
        const created = world
          .branchesOf(PROJECT)
          .filter((branch) => branch.name === 'preview/mr-12')
        expect(created).toHaveLength(1)
        expect(first.output).toContain('branch preview/mr-12: created')
        expect(first.output).toMatch(/^migrate\s+> gate success, branch ready, database ready$/m)
        expect(first.output).toMatch(/^migrate\s+> migrated$/m)
        // The deploy got the database URL, and the database had been migrated.
        expect(first.output).toMatch(/^deploy\s+> deployed on a database migrated 1 times$/m)
        expect(await migrations(database.url())).toBe(1)

        // The next push, after a newer branch whose name holds this one's, one branch a page: found
        // on a later page. (Only now: `neon branches create` looks for the parent, the default
        // branch, on the first page alone; docs/recipes.md says so.)
        world.branchesPageCap = 1
        world.addBranch(PROJECT, {
          id: 'br-123-000001',
          name: 'preview/mr-123',
          createdAt: world.now() + 60_000
        })
        const second = await pipeline(join(dir, 'second'), front, 12)
        expect([second.code, jobExit(second.output, 'deploy')]).toEqual([0, '0'])
        expect(second.output).toContain('branch preview/mr-12: found')
        expect(front.answered.filter((call) => call.startsWith('POST'))).toEqual([
          `POST /projects/${PROJECT}/branches`
        ])
        expect(await migrations(database.url())).toBe(2)

        // The merge request is merged: GitLab runs the environment's stop job. The delete meets
        // 423 Locked once (work started after the check), and Neon's CLI tries it again.
        const stop = await pipeline(join(dir, 'second'), front, 12, ['stop-preview'])
        expect([stop.code, jobExit(stop.output, 'stop-preview')]).toEqual([0, '0'])
        expect(stop.output).toMatch(/^stop-preview\s+> .*success/m)
        expect(stop.output).toContain('branch preview/mr-12 deleted')
        expect(stop.dotenv).toContain('GATE_PREFLIGHT=clear')
        expect(world.branchesOf(PROJECT).some((branch) => branch.name === 'preview/mr-12')).toBe(
          false
        )
        expect(front.answered.filter((call) => call.startsWith('DELETE'))).toEqual([
          `DELETE /projects/${PROJECT}/branches/${created[0].id}`,
          `DELETE /projects/${PROJECT}/branches/${created[0].id}`
        ])

        // Stopped again (a retry, a second close): the branch is gone, nothing to delete.
        const again = await pipeline(join(dir, 'again'), front, 12, ['stop-preview'])
        expect([again.code, jobExit(again.output, 'stop-preview')]).toEqual([0, '0'])
        expect(again.output).toContain('branch preview/mr-12 is gone: nothing to delete')
        expect(again.dotenv).toContain('GATE_PREFLIGHT=gone')
        expect(front.answered.filter((call) => call.startsWith('DELETE'))).toHaveLength(2)

        expect(front.violations).toEqual([])
        // The key is on no command line (Neon's CLI read it from NEON_API_KEY); the key and the
        // database password reach no log, no output and no dotenv report.
        expect(first.neonArgv).toContain('branches create --name preview/mr-12')
        // The id the gate checked, never the name again.
        expect(stop.dotenv).toContain(`GATE_PREFLIGHT_BRANCH_ID=${created[0].id}\n`)
        expect(stop.neonArgv).toContain(`branches delete ${created[0].id}`)
        expect(stop.neonArgv).not.toContain('branches delete preview/mr-12')
        for (const run of [first, second, stop, again]) {
          for (const secret of secretForms(KEYS.organization)) {
            expect(run.neonArgv).not.toContain(secret)
          }
          for (const secret of [KEYS.organization, password].flatMap(secretForms)) {
            expect(run.output + run.logs + run.dotenv).not.toContain(secret)
          }
        }
      })
    },
    PIPELINE_CEILING
  )

  it(
    'a branch whose compute failed: the gate exits 1, nothing migrates or deploys, gate-failed says why',
    async () => {
      const { world, server } = await branches('out of capacity; see $NEON_API_KEY')
      // The merge request's branch, made by an earlier pipeline; its compute failed to start.
      world.branchesOf(PROJECT).find((branch) => branch.id === 'br-preview-pr-7')!.name =
        'preview/mr-7'
      const database = await freshDatabase('unused-password')
      const front = await startWritingFront(world, server, { databaseUrl: database.url() })
      fronts.push(front)
      await inTempDir(async (dir) => {
        const run = await pipeline(dir, front, 7)
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
          expect(run.output + run.logs + run.dotenv + run.neonArgv).not.toContain(secret)
        }
      })
    },
    PIPELINE_CEILING
  )

  it(
    'the stop job on a branch with a child: the gate exits 1 with what blocks it, and nothing is deleted',
    async () => {
      const { world, front, run } = await stopJob(8, [
        { id: 'br-preview-mr-8', name: 'preview/mr-8' },
        { id: 'br-preview-mr-8-a', name: 'preview/mr-8-a', parentId: 'br-preview-mr-8' }
      ])
      // The job fails; a stop job may fail (allow_failure), so that it never blocks the pipeline.
      expect([run.code, jobExit(run.output, 'stop-preview')]).toEqual([0, '1'])
      expect(run.output).toMatch(/^stop-preview\s+finished in .* WARN 1\s*$/m)
      expect(run.output).toMatch(
        /^stop-preview\s+> .*Branch preview\/mr-8 \(br-preview-mr-8\) cannot be deleted: it has 1 child branch, to delete first: preview\/mr-8-a \(br-preview-mr-8-a\)/m
      )
      expect(run.dotenv).toContain('GATE_PREFLIGHT=blocked')
      expect(front.answered.filter((call) => call.startsWith('DELETE'))).toEqual([])
      expect(world.branchesOf(PROJECT).map((branch) => branch.id)).toContain('br-preview-mr-8')
    },
    PIPELINE_CEILING
  )

  it(
    'the stop job on a branch someone else deletes between the check and the delete: nothing to delete, and the job passes',
    async () => {
      const { front, run } = await stopJob(
        10,
        [{ id: 'br-preview-mr-10', name: 'preview/mr-10' }],
        { deletedElsewhere: ['br-preview-mr-10'] }
      )
      expect([run.code, jobExit(run.output, 'stop-preview')]).toEqual([0, '0'])
      expect(run.dotenv).toContain('GATE_PREFLIGHT=clear')
      expect(front.answered.filter((call) => call.startsWith('DELETE'))).toEqual([
        `DELETE /projects/${PROJECT}/branches/br-preview-mr-10`
      ])
      expect(run.output).toContain('branch preview/mr-10 is gone: nothing to delete')
      expect(run.output).not.toContain('branch preview/mr-10 deleted')
    },
    PIPELINE_CEILING
  )
})

describe('GitLab CI: the delete after the check, as many times as docs/teardown.md says', () => {
  /** "makes up to N delete attempts, S s apart": what the docs promise of the recipe. */
  const [attempts, pause] = (
    /makes up to (\d+) delete attempts, (\d+) s apart/.exec(
      readFileSync(join(root, 'docs', 'teardown.md'), 'utf8').replace(/\s+/g, ' ')
    ) ?? []
  )
    .slice(1)
    .map(Number)

  it(
    'a project that stays locked: exactly that many DELETEs, that far apart, then the stop job fails and the branch stays',
    async () => {
      expect(attempts).toBeGreaterThan(1)
      const { world, server } = await serve()
      world.addBranch(PROJECT, { id: 'br-preview-mr-9', name: 'preview/mr-9' })
      const database = await freshDatabase('unused-password')
      const front = await startWritingFront(world, server, {
        databaseUrl: database.url(),
        lockedDeletes: attempts + 5
      })
      fronts.push(front)
      await inTempDir(async (dir) => {
        const started = Date.now()
        const run = await runPipeline(
          dir,
          RECIPE,
          {
            CI_PIPELINE_SOURCE: 'merge_request_event',
            CI_MERGE_REQUEST_IID: '9',
            NEON_API_KEY: KEYS.organization,
            NEON_PROJECT_ID: PROJECT,
            NEON_API_HOST: front.apiHost,
            ...databaseNames(front)
          },
          ['stop-preview']
        )
        expect([run.code, jobExit(run.output, 'stop-preview')]).toEqual([0, '1'])
        expect(front.answered).toEqual(
          Array(attempts).fill(`DELETE /projects/${PROJECT}/branches/br-preview-mr-9`)
        )
        // The pauses: a floor only (the wall clock may be slow, never fast).
        expect(Date.now() - started).toBeGreaterThanOrEqual((attempts - 1) * pause * 1000)
        expect(world.branchesOf(PROJECT).map((branch) => branch.id)).toContain('br-preview-mr-9')
        for (const secret of secretForms(KEYS.organization)) {
          expect(run.output + run.logs + run.dotenv + run.neonArgv).not.toContain(secret)
        }
      })
    },
    PIPELINE_CEILING
  )
})

describe('GitLab CI: the component with inputs given as variables that are empty when the job runs', () => {
  /** Three gates on the ready branch: a database file and a project given as unset variables, and neither given. */
  const recipe = (dir: string) => {
    const gate = (job: string, more: string[]) =>
      [
        `  - remote: ${REMOTE}`,
        '    inputs:',
        `      version: github:OWNER/neon-operations-gate#${SHA}`,
        `      job-name: ${job}`,
        '      branch: ready',
        `      dotenv: ${job}.env`,
        '      api-host: $NEON_API_HOST',
        ...more.map((line) => `      ${line}`)
      ].join('\n')
    const file = join(dir, 'recipe.yml')
    writeFileSync(
      file,
      [
        'include:',
        gate('gate-url-file', ['database-url-file: $DB_URL_FILE']),
        gate('gate-project', ['project: $OTHER_PROJECT_ID']),
        gate('gate-plain', [])
      ].join('\n') + '\n'
    )
    return file
  }

  it(
    'a database-url-file or a project given as an empty variable fails the job (exit code 2); not given, no check and the job passes',
    async () => {
      const { server } = await branches()
      await inTempDir(async (dir) => {
        const run = await runPipeline(dir, recipe(dir), {
          NEON_API_KEY: KEYS.organization,
          NEON_PROJECT_ID: PROJECT,
          NEON_API_HOST: server.apiHost
        })
        expect(
          ['gate-url-file', 'gate-project', 'gate-plain'].map((job) => [
            job,
            jobExit(run.output, job)
          ])
        ).toEqual([
          ['gate-url-file', '2'],
          ['gate-project', '2'],
          ['gate-plain', '0']
        ])
        expect(run.output).toMatch(
          /^gate-url-file\s+> error: --database-url-file: an empty value \(an unset variable\?\)/m
        )
        expect(run.output).toMatch(/^gate-project\s+> error: --project-id: an empty value/m)
        expect(run.output).toMatch(/^gate-plain\s+> .*no database query/m)
        for (const secret of secretForms(KEYS.organization)) {
          expect(run.output + run.logs + run.dotenv).not.toContain(secret)
        }
      })
    },
    PIPELINE_CEILING
  )
})
