/*
 * The demo's scenarios, each a local API server with operations in flight, a local GitHub API and
 * a pull_request event, ready for the bundle to run against: `success` (a preview branch being
 * created, gated by name, then its database), `failure` (its compute cannot start while a change
 * still applies on main) and `timeout` (a compute that keeps starting), used by `npm run demo` and
 * `npm run screenshots`; and `teardown` (before: delete on a preview branch that has a child, then
 * again once the child is gone) and `sweep` (a nightly sweep of the stale preview branches, their
 * pull requests read from the local GitHub API), used by `npm run demo`. A new scenario is a name in SCENARIOS (or
 * DEMOS), a line in TITLES and a branch of withScenario.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ApiServer, startApiServer } from '../../__tests__/support/neon/server.ts'
import { addFailingPreview, demoWorld } from '../../__tests__/support/neon/scenarios.ts'
import { addStalePreviews } from '../../__tests__/support/neon/stale-branches.ts'
import pg from 'pg'
import {
  ACTIONS_BOT,
  type GitHubServer,
  startGitHubServer
} from '../../__tests__/support/github/server.ts'
import { type LocalPostgres, startPostgres } from '../../__tests__/support/postgres/server.ts'
import { KEYS, PROJECT } from '../../__tests__/support/neon/ids.ts'

/** The outcomes, each pictured by `npm run screenshots`. */
export const SCENARIOS = ['success', 'failure', 'timeout'] as const
/** What `npm run demo` can show: the outcomes, and the check before a teardown. */
export const DEMOS = [...SCENARIOS, 'teardown', 'sweep'] as const
export type ScenarioName = (typeof DEMOS)[number]

/** What `npm run demo` shows when no scenario is named: the gate green, then red. */
export const DEFAULT_SCENARIOS: readonly ScenarioName[] = ['success', 'failure']

/** Each scenario in a line, for people. */
export const TITLES: Record<ScenarioName, string> = {
  success: 'a preview branch is created; the gate waits until it and its database are ready',
  failure: "a preview branch's compute fails to start; the gate fails the step and says why",
  timeout: "a preview branch's compute keeps starting; the gate gives up at its timeout",
  teardown:
    'the pull request closed: before its branch is deleted, the gate checks nothing blocks that',
  sweep:
    'a nightly sweep lists the preview branches a teardown missed: quiet too long, or their pull request closed'
}

export interface Scenario {
  server: ApiServer
  github: GitHubServer
  /** The step's inputs (`INPUT_<NAME>`). */
  inputs: Record<string, string>
  /** The runner's environment of a pull_request run. */
  env: Record<string, string>
  /** What is in flight, for people. */
  intro: string[]
  /** Which gate the inputs ask for, for people: the branch gate, the project gate. */
  gate: string
  /** A second run after a change to the world (`teardown`): what changed, for people, and the change. */
  next?: { intro: string[]; change: () => void }
}

const GITHUB_TOKEN = 'ghs_local_demo_token_not_a_secret'

/** The pull request of each scenario: the number in its branch (preview/pr-N) and in its event. */
export const PULL_REQUESTS: Record<ScenarioName, number> = {
  success: 42,
  failure: 7,
  timeout: 9,
  teardown: 42,
  sweep: 8
}
const DATABASE_PASSWORD = 'local-demo-password-not-a-secret'

/** Sets up `name`, hands it to `use`, and closes everything after. */
export async function withScenario<T>(
  name: ScenarioName,
  use: (scenario: Scenario) => Promise<T>
): Promise<T> {
  const world = demoWorld({ history: 120 })
  const server = await startApiServer(world)
  const github = await startGitHubServer()
  github.tokens.set(GITHUB_TOKEN, { user: ACTIONS_BOT, canWrite: true })
  const number = PULL_REQUESTS[name]
  const head = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
  // The pull request as GitHub knows it: the comment reads its head before writing.
  github.pulls.set(`octo/app#${number}`, head)
  const eventDir = mkdtempSync(join(tmpdir(), 'demo-event-'))
  writeFileSync(
    join(eventDir, 'event.json'),
    JSON.stringify({
      number,
      pull_request: {
        number,
        html_url: `https://github.com/octo/app/pull/${number}`,
        head: { sha: head, repo: { full_name: 'octo/app' } }
      }
    })
  )
  const env = {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: join(eventDir, 'event.json'),
    GITHUB_REPOSITORY: 'octo/app',
    GITHUB_SHA: 'ffffffffffffffffffffffffffffffffffffffff',
    GITHUB_WORKFLOW: 'Preview',
    GITHUB_JOB: 'gate',
    GITHUB_RUN_ID: `${number}000`,
    GITHUB_API_URL: github.apiUrl
  }
  const inputs: Record<string, string> = {
    api_key: KEYS.organization,
    project_id: PROJECT,
    interval: '1s',
    timeout: '1m',
    api_host: server.apiHost,
    pr_comment: 'always',
    github_token: GITHUB_TOKEN
  }
  const intro: string[] = []
  let gate = 'the project gate (every operation of the project)'
  let next: Scenario['next']
  let postgres: LocalPostgres | undefined
  if (name === 'success') {
    // The gate ends with a query on the new branch's database: a real PostgreSQL on 127.0.0.1.
    postgres = await startPostgres()
    const client = new pg.Client({ connectionString: postgres.adminUrl(), ssl: false })
    await client.connect()
    await client.query(`CREATE ROLE preview_app LOGIN PASSWORD '${DATABASE_PASSWORD}'`)
    await client.query('CREATE DATABASE preview_app OWNER preview_app')
    await client.end()
    inputs.database_url = `postgresql://preview_app:${DATABASE_PASSWORD}@127.0.0.1:${postgres.port}/preview_app?sslmode=disable`
    intro.push(`Its database: a local PostgreSQL on 127.0.0.1:${postgres.port}, role preview_app`)
    const [create, start] = world.createBranch(PROJECT, {
      branchId: 'br-preview-pr-42',
      branchName: 'preview/pr-42',
      endpointId: 'ep-preview-pr-42',
      createMs: 3000,
      startMs: 2500
    })
    // By name, as people know it; the action resolves it to br-preview-pr-42 before the first poll.
    inputs.branch_id = 'preview/pr-42'
    gate = 'the branch gate on preview/pr-42, then its database'
    intro.push(
      `Branch preview/pr-42 (br-preview-pr-42) is being created: ${create.id} (create_branch, running)`,
      `                                       and ${start.id} (start_compute, scheduling)`
    )
  } else if (name === 'failure') {
    const { apply, create, start } = addFailingPreview(world)
    intro.push(
      `Branch preview/pr-7 is being created (${create.id}), its compute will fail to start (${start.id}),`,
      `and a change is still applying on main (${apply.id})`
    )
  } else if (name === 'teardown') {
    world.addBranch(PROJECT, { id: 'br-preview-pr-42', name: 'preview/pr-42' })
    const child = world.addBranch(PROJECT, {
      id: 'br-preview-pr-42-debug',
      name: 'preview/pr-42-debug',
      parentId: 'br-preview-pr-42'
    })
    const apply = world.addOperation(PROJECT, {
      action: 'apply_config',
      endpointId: 'ep-main-000001',
      startOnFirstRead: true,
      timeline: [{ status: 'running', ms: 1500 }, { status: 'finished' }]
    })
    Object.assign(inputs, { branch_id: 'preview/pr-42', before: 'delete' })
    gate = 'the check before a delete of preview/pr-42 (the whole project idle, then the branch)'
    intro.push(
      `A change still applies on main (${apply.id}), and preview/pr-42-debug was`,
      'branched from preview/pr-42: the API would refuse to delete preview/pr-42 now'
    )
    next = {
      intro: ['preview/pr-42-debug is deleted; the same gate runs again'],
      change: () => {
        const branches = world.branchesOf(PROJECT)
        branches.splice(branches.indexOf(child), 1)
      }
    }
  } else if (name === 'sweep') {
    gate = sweepScenario(world, github, inputs, env, intro)
  } else {
    world.createBranch(PROJECT, {
      branchId: 'br-preview-pr-9',
      branchName: 'preview/pr-9',
      endpointId: 'ep-preview-pr-9',
      createMs: 1500,
      startMs: 3_600_000,
      startOnFirstRead: true
    })
    Object.assign(inputs, { branch_id: 'preview/pr-9', timeout: '6s' })
    gate = 'the branch gate on preview/pr-9'
    intro.push('Branch preview/pr-9 is created, but its compute keeps starting past timeout: 6s')
  }
  try {
    return await use({ server, github, inputs, env, intro, gate, next })
  } finally {
    await server.close()
    await github.close()
    await postgres?.stop()
    rmSync(eventDir, { recursive: true, force: true })
  }
}

/**
 * The sweep: the demo's stale previews (addStalePreviews), pull request #8 closed and #5 open on
 * the local GitHub API, in a scheduled run with no comment; returns the gate, for people.
 */
function sweepScenario(
  world: ReturnType<typeof demoWorld>,
  github: GitHubServer,
  inputs: Record<string, string>,
  env: Record<string, string>,
  intro: string[]
): string {
  addStalePreviews(world)
  for (const [number, state] of [
    [8, 'closed'],
    [5, 'open']
  ] as const) {
    github.pullStates.push({ repository: 'octo/app', number, state, merged: false })
  }
  Object.assign(inputs, { sweep: 'preview/pr-{pr}', pr_comment: 'off' })
  Object.assign(env, { GITHUB_EVENT_NAME: 'schedule' })
  writeFileSync(env.GITHUB_EVENT_PATH, JSON.stringify({ schedule: '0 3 * * *' }))
  intro.push(
    'Preview branches preview/pr-3 to pr-10: some quiet for 8 to 90 days, pr-5 with a compute active',
    'yesterday, pr-8 changed 2 days ago but its pull request closed; pr-9 protected, pr-10 a root'
  )
  return 'a sweep of preview/pr-{pr} (older_than 7d, the default)'
}
