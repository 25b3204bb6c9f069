/*
 * The command's recipes, run for real against the local API server: the README's shell script,
 * the GitLab CI pipelines of examples/command/ (gitlab-ci-local and its shell executor, as GitLab's
 * runner would run it), and the Terraform configuration (with the `terraform` binary, when one is on
 * the PATH). Each passes on a branch whose operations finished and fails on one whose start_compute
 * failed, with the gate's exit code; the teardown pipeline deletes a branch that is clear, skips
 * one that is gone and stops at one that is blocked. The GitHub teardown workflow's shape too.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { COMMAND_BUNDLE, nodeWith, runCommandBundle } from '../../script/runner/run-bundle.ts'
import type { ApiServer } from '../../script/servers/neon-api/server.ts'
import { FAILING_BRANCH, failingBranch, inTempDir, secretForms } from '../fixtures/command.js'
import { KEYS, PROJECT, serve } from '../fixtures/e2e.js'

const root = join(import.meta.dirname, '..', '..')
const GITLAB_CI_LOCAL = join(root, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js')

/** The command as a recipe runs it, pointed at the local API server. */
const gateCommandLine = (server: ApiServer): string =>
  [...nodeWith(COMMAND_BUNDLE, {}), '--api-host', server.apiHost, '--interval', '1s'].join(' ')

/**
 * A branch whose operations finished, and one whose start_compute failed a moment ago, with the
 * API's `error` text.
 */
async function branches(error?: string) {
  const { world, server } = await serve()
  world.addBranch(PROJECT, { id: 'br-ready-000007', name: 'ready' })
  world.addOperation(PROJECT, {
    action: 'create_branch',
    branchId: 'br-ready-000007',
    createdAt: world.now() - 60_000,
    timeline: [{ status: 'running', ms: 2000 }, { status: 'finished' }]
  })
  failingBranch(world, error)
  return { server, ready: 'br-ready-000007', failing: FAILING_BRANCH }
}

const onPath = (program: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe("the README's shell script: gate, then migrate", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const script = /Gate, then migrate, in a script:\n\n```sh\n([\s\S]*?)```/.exec(readme)![1]

  it.each([
    ['ready', 0, true],
    ['failing', 1, false]
  ] as const)('a %s branch: exit %d, migrated: %s', async (which, code, migrated) => {
    const { server, ...branch } = await branches()
    await inTempDir(async (dir) => {
      const bin = join(dir, 'bin')
      mkdirSync(bin)
      // neon-gate as an install would put it on the PATH, here pointed at the local server.
      writeFileSync(join(bin, 'neon-gate'), `#!/bin/sh\nexec ${gateCommandLine(server)} "$@"\n`)
      writeFileSync(join(dir, 'migrate'), '#!/bin/sh\necho migrated > migrated.txt\n')
      writeFileSync(join(dir, 'gate-then-migrate.sh'), script)
      for (const file of ['bin/neon-gate', 'migrate']) chmodSync(join(dir, file), 0o755)
      const run = await runCommandBundle(
        [],
        {
          PATH: `${bin}:${process.env.PATH}`,
          NEON_API_KEY: KEYS.organization,
          NEON_PROJECT_ID: PROJECT,
          BRANCH_ID: branch[which]
        },
        { program: ['bash', 'gate-then-migrate.sh'], cwd: dir }
      )
      expect([run.code, run.stderr.includes('error:')]).toEqual([code, code !== 0])
      expect(existsSync(join(dir, 'migrated.txt'))).toBe(migrated)
    })
  })
})

/** A git repository holding `example` as its .gitlab-ci.yml, as gitlab-ci-local needs one. */
async function repository(dir: string, example: string): Promise<string> {
  const repo = join(dir, 'repo')
  mkdirSync(repo)
  copyFileSync(join(root, 'examples', 'command', example), join(repo, '.gitlab-ci.yml'))
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null'
      },
      stdio: 'ignore'
    })
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'recipe')
  git('config', 'user.email', 'recipe@example.invalid')
  git('add', '.gitlab-ci.yml')
  git('commit', '-q', '-m', 'recipe')
  git('remote', 'add', 'origin', 'https://gitlab.example.invalid/acme/app.git')
  git('update-ref', 'refs/remotes/origin/main', 'HEAD')
  git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main')
  return repo
}

/**
 * A pipeline of the recipe `example` with these `variables`, as GitLab would run it with `env` from
 * the runner, the gate pointed at `server`; with the log of its job `gateJob`.
 */
async function gitlabPipeline(
  example: string,
  variables: Record<string, string>,
  server: ApiServer,
  env: Record<string, string>,
  gateJob: string
) {
  return inTempDir(async (dir) => {
    const repo = await repository(dir, example)
    mkdirSync(join(dir, 'home'))
    const run = await runCommandBundle(
      [],
      { HOME: join(dir, 'home'), ...env },
      {
        program: [
          process.execPath,
          GITLAB_CI_LOCAL,
          '--no-color',
          // The example's jobs name an image; run them on this machine's shell instead.
          '--force-shell-executor',
          ...Object.entries({
            NEON_GATE: gateCommandLine(server),
            NEON_PROJECT_ID: PROJECT,
            ...variables
          }).flatMap(([name, value]) => ['--variable', `${name}=${value}`])
        ],
        cwd: repo
      }
    )
    const logs = join(repo, '.gitlab-ci-local', 'output')
    return {
      ...run,
      output: run.stdout + run.stderr,
      gateLog: readFileSync(join(logs, `${gateJob}.log`), 'utf8')
    }
  })
}

/** A job's exit code, as gitlab-ci-local reports it. */
const jobExit = (job: string, output: string) =>
  new RegExp(`^${job}\\s+finished in .*?(?:FAIL (\\d+))?\\s*$`, 'm').exec(output)?.[1] ?? '0'

describe('GitLab CI: examples/command/gitlab-ci.yml under gitlab-ci-local', () => {
  it('rsync is installed (gitlab-ci-local copies the repository with it; .ci/run installs it)', () => {
    expect(onPath('rsync')).toBe(true)
  })

  it('as written, its gate job names an image that can fetch its package spec', () => {
    const recipe = parse(readFileSync(join(root, 'examples', 'command', 'gitlab-ci.yml'), 'utf8'))
    const spec = /npx --yes (\S+)/.exec(recipe.variables.NEON_GATE)![1]
    expect(recipe.gate.script.join('\n')).toContain('$NEON_GATE ')
    expect(imageProblem(recipe.gate.image, spec)).toBeUndefined()
    // What the check tells apart (docs/toolchain facts: npm fetches a github: spec with git).
    expect(imageProblem('node:24-slim', spec)).toMatch(/has no git/)
    expect(imageProblem('node:24-alpine', spec)).toMatch(/has no git/)
    expect(imageProblem('node:22', spec)).toMatch(/Node 24/)
    expect(imageProblem('node:24-slim', 'neon-operations-gate@0')).toBeUndefined()
  })

  /** A pipeline of the recipe on a branch, as GitLab would run it with `env` from the runner. */
  const pipeline = (branchId: string, server: ApiServer, env: Record<string, string>) =>
    gitlabPipeline('gitlab-ci.yml', { NEON_BRANCH_ID: branchId }, server, env, 'gate')

  const gateExit = (output: string) => jobExit('gate', output)

  it.each([
    ['ready', 0, 'migrate', 'success'],
    ['failing', 1, 'gate-failed', 'failure']
  ] as const)(
    'a %s branch: the gate exits %d, %s runs with the outcome from the dotenv report',
    async (which, code, nextJob, outcome) => {
      // API text naming a variable: GitLab expands dotenv values in the jobs that read them.
      const { server, ...branch } = await branches('out of capacity; see $NEON_API_KEY')
      // The runner's environment reaches shell jobs: the key goes as GitLab would put it there.
      const run = await pipeline(branch[which], server, { NEON_API_KEY: KEYS.organization })
      expect(run.code).toBe(code === 0 ? 0 : 1)
      expect(gateExit(run.output)).toBe(String(code))
      expect(run.output).toMatch(new RegExp(`^${nextJob}\\s+> gate ${outcome}`, 'm'))
      if (code !== 0) {
        expect(run.output).toMatch(
          /^gate-failed\s+> gate failure, exit code 1, An operation ended in failure: .*see \$NEON_API_KEY/m
        )
      }
      for (const form of secretForms(KEYS.organization)) {
        expect(run.output + run.gateLog).not.toContain(form)
      }
    },
    60_000
  )

  it('a protected key on a branch that is not protected (empty): the gate exits 2, gate-failed says why', async () => {
    const { server, ready } = await branches()
    const run = await pipeline(ready, server, { NEON_API_KEY: '' })
    expect(run.code).toBe(1)
    expect(gateExit(run.output)).toBe('2')
    expect(run.output).toMatch(
      /^gate-failed\s+> gate error, exit code 2, NEON_API_KEY is not set: export the API key/m
    )
  }, 60_000)
})

describe('GitLab CI: examples/command/gitlab-teardown.yml under gitlab-ci-local', () => {
  /** A branch that nothing blocks, one with a child branch; preview/pr-1 is gone. */
  async function previews() {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-preview-pr-7', name: 'preview/pr-7' })
    world.addBranch(PROJECT, { id: 'br-preview-pr-8', name: 'preview/pr-8' })
    world.addBranch(PROJECT, {
      id: 'br-preview-pr-8-a',
      name: 'preview/pr-8-a',
      parentId: 'br-preview-pr-8'
    })
    return server
  }

  it.each([
    [
      'preview/pr-7',
      'clear',
      0,
      /^delete-branch\s+> neonctl branches delete preview\/pr-7 --project-id demo-project-000001$/m
    ],
    [
      'preview/pr-1',
      'gone',
      0,
      /^delete-branch\s+> branch preview\/pr-1 is gone: nothing to delete$/m
    ],
    [
      'preview/pr-8',
      'blocked',
      1,
      /^teardown-blocked\s+> gate failure, exit code 1, Branch preview\/pr-8 \(br-preview-pr-8\) cannot be deleted: it has 1 child branch, to delete first: preview\/pr-8-a \(br-preview-pr-8-a\)$/m
    ]
  ] as const)(
    '%s is %s: the gate exits %d, and the next job acts on GATE_PREFLIGHT',
    async (branch, preflight, code, next) => {
      const run = await gitlabPipeline(
        'gitlab-teardown.yml',
        // neonctl as the recipe runs it, here a stand-in that says what it was asked.
        { NEON_BRANCH: branch, NEONCTL: 'echo neonctl' },
        await previews(),
        { NEON_API_KEY: KEYS.organization },
        'teardown-gate'
      )
      expect(run.code).toBe(code)
      expect(jobExit('teardown-gate', run.output)).toBe(String(code))
      expect(run.output).toMatch(next)
      expect(run.gateLog).toContain(preflight === 'gone' ? 'notice: ' : 'Before a delete of branch')
      if (preflight !== 'clear') expect(run.output).not.toContain('neonctl branches delete')
      for (const form of secretForms(KEYS.organization)) {
        expect(run.output + run.gateLog).not.toContain(form)
      }
    },
    60_000
  )
})

describe('GitHub: examples/teardown.yml', () => {
  it('on a closed pull request, the gate before the delete, which runs only when the branch is clear, pinned to a commit', () => {
    const recipe = parse(readFileSync(join(root, 'examples', 'teardown.yml'), 'utf8'))
    expect(recipe.on).toEqual({ pull_request: { types: ['closed'] } })
    const [gate, remove] = recipe.jobs.teardown.steps
    expect(gate).toMatchObject({ id: 'gate', with: { before: 'delete' } })
    expect(remove.if).toBe("steps.gate.outputs.preflight == 'clear'")
    expect(remove.uses).toMatch(/^neondatabase\/delete-branch-action@[0-9a-f]{40}$/)
    expect(remove.with.branch).toBe(gate.with.branch_id)
  })
})

/**
 * Why `image` cannot run `npx <spec>` for the command, or undefined when it can: the command needs
 * Node 24, and npm fetches a git spec (`github:…`, `git+…`) with git, which the official node
 * images have in their Debian form (`node:24`, `node:24-bookworm`) and not in `-slim` or `-alpine`.
 */
function imageProblem(image: string, spec: string): string | undefined {
  const match = /^node:(\d+)(?:\.[\d.]+)?(?:-([a-z]+))?$/.exec(image)
  if (!match) return `${image} is not an official node image`
  if (Number(match[1]) < 24) return `${image} has no Node 24`
  const gitSpec = /^(github:|gitlab:|bitbucket:|git\+|git:\/\/|[\w.-]+\/[\w.-]+(#|$))/.test(spec)
  const withGit = match[2] === undefined || ['bookworm', 'bullseye', 'trixie'].includes(match[2])
  return gitSpec && !withGit ? `${image} has no git, which npm needs for ${spec}` : undefined
}

describe('Terraform: examples/command/terraform/main.tf', () => {
  const terraform = onPath('terraform')
  if (!terraform) {
    console.log('terraform is not on the PATH: the Terraform recipe is not run here')
  }

  ;(terraform ? it.each : it.skip.each)([
    ['ready', 0],
    ['failing', 1]
  ] as const)(
    'a %s branch: the gate exits %d, and terraform apply goes with it',
    async (which, code) => {
      const { server, ...branch } = await branches()
      await inTempDir(async (dir) => {
        const work = join(dir, 'work')
        mkdirSync(work)
        copyFileSync(
          join(root, 'examples', 'command', 'terraform', 'main.tf'),
          join(work, 'main.tf')
        )
        const env = {
          HOME: dir,
          // No configuration file, no hints for people, no call home to HashiCorp.
          TF_CLI_CONFIG_FILE: '/dev/null',
          TF_IN_AUTOMATION: '1',
          CHECKPOINT_DISABLE: '1',
          TF_VAR_neon_gate: gateCommandLine(server),
          TF_VAR_project_id: PROJECT,
          TF_VAR_branch_id: branch[which],
          NEON_API_KEY: KEYS.organization
        }
        const terraformRun = (...args: string[]) =>
          runCommandBundle([], env, {
            program: ['terraform', ...args, '-input=false', '-no-color'],
            cwd: work
          })
        const init = await terraformRun('init')
        expect(init.code).toBe(0)
        const apply = await terraformRun('apply', '-auto-approve')
        expect(apply.code).toBe(code === 0 ? 0 : 1)
        if (code !== 0) {
          expect(apply.stderr.replace(/\s+/g, ' ')).toContain(`exit status ${code}`)
        }
        const state = readFileSync(join(work, 'terraform.tfstate'), 'utf8')
        for (const form of secretForms(KEYS.organization)) {
          expect(apply.stdout + apply.stderr + state).not.toContain(form)
        }
      })
    },
    60_000
  )
})
