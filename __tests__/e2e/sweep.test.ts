/*
 * The sweep (`sweep`, issue 69), over both bundles against the local API server: the action as the
 * runner runs it (INPUT_SWEEP with action.yml's defaults, GITHUB_OUTPUT, the summary; with `{pr}`,
 * the pull requests from the GitHub double), and the command as a CI job runs it (`neon-gate sweep
 * --match`, standard output as JSON, the exit code). The rules are proven in process:
 * sweep.test.ts, sweep-properties.test.ts, sweep-reads.test.ts.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CONTROL, gateCommand } from '../support/bundles/command.js'
import { runAction, serve } from '../support/bundles/action.js'
import { withDefaultFlags } from '../support/bundles/default-flags.ts'
import { type CommandRun, runCommandBundle } from '../support/bundles/run-bundle.ts'
import { ACTIONS_BOT, type GitHubServer, startGitHubServer } from '../support/github/server.ts'
import { runnerCommands } from '../support/github/runner-commands.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { addBusyBranches, addStalePreviews } from '../support/neon/stale-branches.js'
import type { Limits } from '../support/neon/limits.ts'
import type { World } from '../support/neon/world.ts'

const DAY = 86_400_000
const REPOSITORY = 'acme/app'
const TOKEN = 'ghs_sweep-reads-pull-requests'
/** Text a server could send to take over a log, a summary or a terminal. */
const HOSTILE =
  '<img src=x onerror=alert(1)> **bold** @team\n::error::pwned ##[set-output name=stale;]x \u001b[31m'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/** `neon-gate sweep --match PATTERN …` as a CI job runs it, with the key and project in its env. */
function sweepCommand(server: { apiHost: string }, args: string[]): Promise<CommandRun> {
  return runCommandBundle(
    withDefaultFlags(
      [
        ['--api-host', server.apiHost],
        ['--interval', '1s'],
        ['--output', 'json']
      ],
      ['sweep', ...args]
    ),
    { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT }
  )
}

/** The action and the command on the same inputs, each against a world of its own. */
async function both(
  setup: (world: World) => void,
  inputs: { sweep: string; older_than?: string; fail_on_stale?: string },
  options: { limits?: Partial<Limits>; env?: Record<string, string> } = {}
) {
  const worlds = await Promise.all([
    serve({ limits: options.limits }),
    serve({ limits: options.limits })
  ])
  for (const { world } of worlds) setup(world)
  const flags = [
    '--match',
    inputs.sweep,
    ...(inputs.older_than ? ['--older-than', inputs.older_than] : []),
    ...(inputs.fail_on_stale === 'true' ? ['--fail-on-stale'] : [])
  ]
  const [action, command] = await Promise.all([
    runAction(worlds[0].server, { project_id: PROJECT, ...inputs }, { env: options.env }),
    sweepCommand(worlds[1].server, flags)
  ])
  const json = JSON.parse(command.stdout) as Record<string, unknown>
  return { action, command, json, servers: worlds.map(({ server }) => server) }
}

const ids = (list: unknown) => (list as { id: string }[]).map((item) => item.id)

describe('the sweep through both bundles', () => {
  it('lists the stale branches: activity on either side of older_than, a compute active yesterday, never default, protected or root, children a blocker', async () => {
    const run = await both(addStalePreviews, { sweep: 'preview/*' })
    // pr-6 quiet 8 days, pr-4 9 days (a child), pr-3 25 (its compute); pr-5's compute was active
    // yesterday, pr-8 changed 2 days ago; pr-9 protected, pr-10 a root; main the default.
    const expected = ['br-preview-pr-6', 'br-preview-pr-4', 'br-preview-pr-3']
    const stale = JSON.parse(run.action.outputs.stale) as {
      id: string
      reason: string
      blockers: string[]
    }[]
    expect(stale.map((item) => item.id)).toEqual(expected)
    expect(stale.map((item) => item.reason)).toEqual(['inactive', 'inactive', 'inactive'])
    expect(stale[1].blockers).toEqual(['children'])
    expect(run.action.outputs).toMatchObject({
      gate: 'sweep',
      outcome: 'success',
      stale_count: '3'
    })
    expect(run.action.code).toBe(0)
    expect(run.action.summary).toContain('Stale branches: 3')
    expect(run.action.summary).toContain('<table>')
    expect(run.command.code).toBe(0)
    expect(run.json).toMatchObject({ gate: 'sweep', outcome: 'success', stale_count: 3 })
    expect(ids(run.json.stale)).toEqual(expected)
    // pr-6 restricts deletes, pr-4 has a child: each blocked so, in both.
    const blockers = (list: unknown) => (list as { blockers: string[] }[]).map((b) => b.blockers)
    expect(blockers(run.json.stale)).toEqual([['restricted'], ['children'], []])
    expect(blockers(stale)).toEqual([['restricted'], ['children'], []])
    // It reads, never writes.
    for (const server of run.servers) {
      expect(server.requests.filter((request) => request.method !== 'GET')).toEqual([])
    }
  })

  it('the default branch never, however long idle, though it matches and is no root (default, or primary in an older answer)', async () => {
    for (const primaryOnly of [false, true]) {
      const run = await both(
        (world) => {
          addStalePreviews(world)
          // The project's default moved from main to a preview, idle 30 days.
          world.branchesOf(PROJECT)[0].default = false
          world.addBranch(PROJECT, {
            id: 'br-preview-pr-30',
            name: 'preview/pr-30',
            default: true,
            primaryOnly,
            createdAt: world.now() - 31 * DAY,
            updatedAt: world.now() - 30 * DAY
          })
        },
        { sweep: 'preview/*' }
      )
      const expected = ['br-preview-pr-6', 'br-preview-pr-4', 'br-preview-pr-3']
      expect(ids(JSON.parse(run.action.outputs.stale))).toEqual(expected)
      expect(ids(run.json.stale)).toEqual(expected)
    }
  })

  it('a compute in use now keeps its branch, whatever its last_active: active, or idle with a start pending', async () => {
    const run = await both(
      (world) => {
        addStalePreviews(world)
        // pr-6 (quiet 8 days) running now, never suspended; pr-3's compute (25 days) starting.
        world.addCompute(PROJECT, {
          id: 'ep-preview-pr-6',
          branchId: 'br-preview-pr-6',
          current: 'active'
        })
        world.addCompute(PROJECT, {
          id: 'ep-preview-pr-3',
          branchId: 'br-preview-pr-3',
          lastActive: world.now() - 25 * 24 * 3_600_000,
          pending: 'active'
        })
      },
      { sweep: 'preview/*' }
    )
    expect(ids(JSON.parse(run.action.outputs.stale))).toEqual(['br-preview-pr-4'])
    expect(ids(run.json.stale)).toEqual(['br-preview-pr-4'])
  })

  it('under fail_on_stale a stale branch fails the run: outcome failure, exit 1', async () => {
    const run = await both(addStalePreviews, { sweep: 'preview/pr-*', fail_on_stale: 'true' })
    expect(run.action.outputs.outcome).toBe('failure')
    expect(run.action.code).toBe(1)
    expect(run.action.stdout).toMatch(/::error::3 stale branches among \d+ that match/)
    expect(run.command.code).toBe(1)
    expect(run.json).toMatchObject({ outcome: 'failure', stale_count: 3 })
    // Older than 40 days: none stale, and nothing unread: a pass.
    const none = await both(addStalePreviews, {
      sweep: 'preview/pr-*',
      older_than: '40d',
      fail_on_stale: 'true'
    })
    expect(none.action.outputs).toMatchObject({ outcome: 'success', stale_count: '0', stale: '[]' })
    expect(none.command.code).toBe(0)
  })

  it('with {pr}: a closed, a merged, an open and an unreadable pull request (the action reads GitHub; the command judges by age)', async () => {
    const github = await startGitHubServer()
    cleanups.push(github.close)
    github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: false })
    const pull = (number: number, state: 'open' | 'closed', merged = false) =>
      github.pullStates.push({ repository: REPOSITORY, number, state, merged })
    pull(8, 'closed')
    pull(5, 'closed', true)
    pull(11, 'open')
    // pr-12 has no pull request in this repository: 404, named, never guessed.
    const setup = (world: World) => {
      addStalePreviews(world)
      for (const pr of [11, 12]) {
        world.addBranch(PROJECT, {
          id: `br-preview-pr-${pr}`,
          name: `preview/pr-${pr}`,
          updatedAt: world.now() - DAY
        })
      }
    }
    const run = await both(
      setup,
      { sweep: 'preview/pr-{pr}', fail_on_stale: 'false' },
      { env: runnerEnv(github) }
    )
    const stale = JSON.parse(run.action.outputs.stale) as { id: string; reason: string }[]
    expect(Object.fromEntries(stale.map((item) => [item.id, item.reason]))).toEqual({
      'br-preview-pr-3': 'inactive',
      'br-preview-pr-4': 'inactive',
      'br-preview-pr-5': 'pr_merged',
      'br-preview-pr-6': 'inactive',
      'br-preview-pr-8': 'pr_closed'
    })
    expect(run.action.stdout).toContain(
      '::warning::Branch "preview/pr-12" (br-preview-pr-12) was not judged: pull request #12 could not be read: HTTP 404'
    )
    expect(run.action.summary).toContain('Not judged')
    const read = github.requests
      .map((request) => request.path ?? '')
      .filter((path) => path.includes('/pulls/'))
    expect(read.sort()).toEqual([5, 8, 11, 12].map((n) => `/repos/${REPOSITORY}/pulls/${n}`).sort())
    // The command has no GitHub: only age decides, and nothing is guessed.
    expect(ids(run.json.stale).sort()).toEqual([
      'br-preview-pr-3',
      'br-preview-pr-4',
      'br-preview-pr-6'
    ])
  })

  it('with {pr} and an empty github_token: the age verdicts stand, each pull request is named unread, none guessed', async () => {
    const github = await startGitHubServer()
    cleanups.push(github.close)
    const { world, server } = await serve()
    addStalePreviews(world)
    world.addBranch(PROJECT, {
      id: 'br-preview-pr-12',
      name: 'preview/pr-12',
      updatedAt: world.now() - DAY
    })
    // A secret the run does not get (a fork's pull request, Dependabot) arrives empty.
    const env = { ...runnerEnv(github), INPUT_GITHUB_TOKEN: '' }
    const inputs = { project_id: PROJECT, sweep: 'preview/pr-{pr}' }
    const run = await runAction(server, inputs, { env })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ gate: 'sweep', outcome: 'success', stale_count: '3' })
    expect(ids(JSON.parse(run.outputs.stale))).toEqual([
      'br-preview-pr-6',
      'br-preview-pr-4',
      'br-preview-pr-3'
    ])
    // pr-5 (its compute active yesterday), pr-8 and pr-12 are young: only GitHub could say.
    for (const pr of [5, 8, 12]) {
      expect(run.stdout).toContain(
        `::warning::Branch "preview/pr-${pr}" (br-preview-pr-${pr}) was not judged: pull request #${pr} could not be read: github_token is empty`
      )
    }
    expect(run.summary).toContain('Not judged')
    expect(github.requests).toEqual([])
    // Under fail_on_stale the stale ones fail it; with none stale, what was not read is an error.
    const failing = await runAction(server, { ...inputs, fail_on_stale: 'true' }, { env })
    expect([failing.code, failing.outputs.outcome]).toEqual([1, 'failure'])
    const young = await runAction(
      server,
      { ...inputs, older_than: '40d', fail_on_stale: 'true' },
      { env }
    )
    expect([young.code, young.outputs.outcome, young.outputs.stale_count]).toEqual([
      1,
      undefined,
      '0'
    ])
    expect(young.stdout).toContain(
      '::error::Could not tell that no branch is stale: 6 matching branches could not be judged'
    )
  })

  it('with {pr} and a GitHub that never answers: the reads end at timeout, each pull request named unread, the age verdicts reported', async () => {
    const github = await startGitHubServer()
    cleanups.push(github.close)
    github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: false })
    github.silent = true
    const { world, server } = await serve()
    addStalePreviews(world)
    const inputs = { project_id: PROJECT, sweep: 'preview/pr-{pr}', timeout: '3s' }
    const run = await runAction(server, inputs, { env: runnerEnv(github) })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ gate: 'sweep', outcome: 'success', stale_count: '3' })
    expect(github.requests.length).toBeGreaterThan(0)
    for (const pr of [5, 8]) {
      expect(run.stdout).toContain(
        `::warning::Branch "preview/pr-${pr}" (br-preview-pr-${pr}) was not judged: pull request #${pr} could not be read: no answer before the timeout ran out`
      )
    }
    const failing = await runAction(
      server,
      { ...inputs, older_than: '40d', fail_on_stale: 'true' },
      { env: runnerEnv(github) }
    )
    expect([failing.code, failing.outputs.outcome, failing.outputs.stale_count]).toEqual([
      1,
      undefined,
      '0'
    ])
  }, 60_000)

  it('the command with {pr} says what it did: age alone, no pull request read', async () => {
    const { world, server } = await serve()
    addStalePreviews(world)
    const command = await runCommandBundle(
      ['sweep', '--match', 'preview/pr-{pr}', '--api-host', server.apiHost],
      { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT }
    )
    expect(command.code).toBe(0)
    const said =
      '3 stale branches among 7 that match preview/pr-{pr} (no activity for 7 days; no pull request was read, so age alone decides)'
    expect(command.stdout).toContain(`success: ${said}`)
    expect(command.stderr).toContain(said)
    for (const text of [command.stdout, command.stderr]) {
      expect(text).not.toContain('a pull request closed or merged')
    }
  })

  it('an unreadable pull request under fail_on_stale, none stale: an error, never a pass', async () => {
    const github = await startGitHubServer()
    cleanups.push(github.close)
    github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: false })
    const worlds = await serve()
    worlds.world.addBranch(PROJECT, {
      id: 'br-preview-pr-12',
      name: 'preview/pr-12',
      updatedAt: worlds.world.now() - DAY
    })
    const action = await runAction(
      worlds.server,
      { project_id: PROJECT, sweep: 'preview/pr-{pr}', fail_on_stale: 'true' },
      { env: runnerEnv(github) }
    )
    expect(action.code).toBe(1)
    // Not a pass, not `failure` (none was found stale): an error, with what was found.
    expect(action.outputs.outcome).toBeUndefined()
    expect(action.outputs).toMatchObject({ gate: 'sweep', stale_count: '0', stale: '[]' })
    expect(action.stdout).toContain(
      '::error::Could not tell that no branch is stale: 1 matching branch could not be judged'
    )
    // The command, a list cut at its page cap: exit 3, with what was not read.
    for (let i = 0; i < 5000; i++) {
      worlds.world.addBranch(PROJECT, { id: `br-fresh-${i}`, name: `fresh/${i}` })
    }
    const command = await sweepCommand(worlds.server, ['--match', 'fresh/*', '--fail-on-stale'])
    expect(command.code).toBe(3)
    expect(command.stderr).toContain(
      'Could not tell that no branch is stale: the branch list stopped (50 pages) before its end'
    )
    expect(JSON.parse(command.stdout)).toMatchObject({ gate: 'sweep', stale_count: 0 })
  }, 120_000)

  it('thousands of branches over many pages, and the stale output cut to fit 1 MB, with its count', async () => {
    const filler = 'x'.repeat(230)
    const setup = (world: World) => {
      for (let i = 1; i <= 3000; i++) {
        world.addBranch(PROJECT, {
          id: `br-pr-${String(i).padStart(6, '0')}`,
          name: `preview/${filler}-${i}`,
          updatedAt: world.now() - (i % 3 === 0 ? 2 : 8) * DAY
        })
      }
    }
    const run = await both(
      setup,
      { sweep: 'preview/*' },
      { limits: { perSecondPerRoute: Infinity } }
    )
    expect(run.action.outputs.stale_count).toBe('2000')
    const kept = JSON.parse(run.action.outputs.stale) as unknown[]
    expect(kept.length).toBeGreaterThan(500)
    expect(kept.length).toBeLessThan(2000)
    const bytes = Object.entries(run.action.outputs).reduce(
      (sum, [k, v]) => sum + 2 * (k.length + v.length),
      0
    )
    expect(bytes).toBeLessThan(1_000_000)
    expect(run.action.stdout).toContain(`::warning::`)
    expect(run.action.stdout).toContain(`${kept.length} of 2000`)
    for (const server of run.servers) {
      expect(
        server.requests.filter((request) => request.route === 'branches').length
      ).toBeGreaterThanOrEqual(30)
    }
    // The command's JSON is whole.
    expect(run.json.stale_count).toBe(2000)
    expect((run.json.stale as unknown[]).length).toBe(2000)
  }, 120_000)

  it('at the page cap, the oldest branches were read (the likeliest stale), and cut says the list was cut', async () => {
    const setup = (world: World) => {
      addBusyBranches(world, 'preview/new')
      for (const i of [1, 2, 3]) {
        world.addBranch(PROJECT, {
          id: `br-old-${i}`,
          name: `preview/old-${i}`,
          createdAt: world.now() - (40 + i) * DAY,
          updatedAt: world.now() - (30 + i) * DAY
        })
      }
    }
    const run = await both(
      setup,
      { sweep: 'preview/*' },
      { limits: { perSecondPerRoute: Infinity } }
    )
    const old = ['br-old-1', 'br-old-2', 'br-old-3']
    expect(ids(JSON.parse(run.action.outputs.stale))).toEqual(old)
    expect(run.action.outputs).toMatchObject({ outcome: 'success', stale_count: '3', cut: 'true' })
    expect(run.action.stdout).toMatch(/::warning::Read 5000 branches of project .* \(50 pages\)/)
    expect(run.json).toMatchObject({ outcome: 'success', stale_count: 3, cut: true })
    expect(ids(run.json.stale)).toEqual(old)
    // A list read to its end says so too.
    const whole = await both(addStalePreviews, { sweep: 'preview/*' })
    expect(whole.action.outputs.cut).toBe('false')
    expect(whole.json.cut).toBe(false)
  }, 120_000)

  it('hostile names: no runner command, no ##[, no control character, the HTML escaped', async () => {
    const setup = (world: World) => {
      world.addBranch(PROJECT, {
        id: 'br-hostile',
        name: `preview/${HOSTILE}`,
        updatedAt: world.now() - 9 * DAY
      })
      world.addBranch(PROJECT, {
        id: 'br-hostile-pr',
        name: `preview/pr-1${HOSTILE}`,
        updatedAt: world.now() - DAY
      })
    }
    const run = await both(setup, { sweep: 'preview/*' })
    expect(ids(JSON.parse(run.action.outputs.stale))).toEqual(['br-hostile'])
    const ours = /^(add-mask|warning|error|notice|debug|group|endgroup)$/
    for (const found of runnerCommands(run.action.stdout)) {
      expect(found.name).toMatch(ours)
      expect(found.data).not.toContain('pwned')
    }
    expect(run.action.summary).not.toContain('<img')
    expect(run.action.summary).toContain('&lt;img')
    for (const text of [run.action.stdout, run.command.stdout, run.command.stderr]) {
      expect(text).not.toContain('##[')
      expect(text).not.toMatch(CONTROL)
    }
    expect(ids(run.json.stale)).toEqual(['br-hostile'])
  })

  it('a branch id that is not a Neon id is never listed (a recipe would delete by it): named, with why', async () => {
    const hostileIds = [
      'br-evil\nbr-main-branch',
      'br-$(touch pwned)',
      'BR-UPPER-1',
      'br-' + 'a'.repeat(61)
    ]
    const setup = (world: World) => {
      hostileIds.forEach((id, index) =>
        world.addBranch(PROJECT, {
          id,
          name: `preview/hostile-${index}`,
          updatedAt: world.now() - 9 * DAY
        })
      )
      world.addBranch(PROJECT, {
        id: 'br-fine-name-123456',
        name: 'preview/fine',
        updatedAt: world.now() - 9 * DAY
      })
    }
    const run = await both(setup, { sweep: 'preview/*' })
    expect(ids(JSON.parse(run.action.outputs.stale))).toEqual(['br-fine-name-123456'])
    expect(ids(run.json.stale)).toEqual(['br-fine-name-123456'])
    expect(run.action.outputs.stale_count).toBe('1')
    for (const index of hostileIds.keys()) {
      expect(run.action.stdout).toMatch(
        new RegExp(
          `::warning::Branch "preview/hostile-${index}" \\(.*\\) was not judged: its id is not a Neon id`
        )
      )
      expect(run.command.stderr).toContain(`Branch "preview/hostile-${index}"`)
    }
    expect(run.action.summary).toContain('its id is not a Neon id')
    // Under fail_on_stale, with none listed, what was refused is no pass.
    const refused = await both(
      (world) => {
        world.addBranch(PROJECT, {
          id: hostileIds[0],
          name: 'preview/hostile',
          updatedAt: world.now() - 9 * DAY
        })
      },
      { sweep: 'preview/*', fail_on_stale: 'true' }
    )
    expect(refused.command.code).toBe(3)
    expect(refused.json).toMatchObject({ stale_count: 0, stale: [] })
    expect(refused.action.stdout).toContain(
      '::error::Could not tell that no branch is stale: 1 matching branch could not be judged'
    )
  })

  it('a pattern that matches no branch (a typo) passes with a warning that names it, never silently', async () => {
    const run = await both(addStalePreviews, { sweep: 'previews/*' })
    expect(run.action.outputs).toMatchObject({ outcome: 'success', stale_count: '0' })
    expect(run.action.stdout).toContain(
      '::warning::No branch of the project matches "previews/*": check the pattern'
    )
    expect(run.command.code).toBe(0)
    expect(run.command.stderr).toContain('No branch of the project matches "previews/*"')
    const matching = await both(addStalePreviews, { sweep: 'preview/*' })
    expect(matching.action.stdout).not.toContain('No branch of the project matches')
  })

  it('a long name is kept whole in stale, never cut: what a recipe reads is the branch', async () => {
    const name = `preview/${'long-name-'.repeat(30)}end`
    const setup = (world: World) => {
      world.addBranch(PROJECT, { id: 'br-long-name-1', name, updatedAt: world.now() - 9 * DAY })
    }
    const run = await both(setup, { sweep: 'preview/*' })
    expect(name.length).toBeGreaterThan(300)
    const [listed] = JSON.parse(run.action.outputs.stale) as { id: string; name: string }[]
    expect(listed).toMatchObject({ id: 'br-long-name-1', name })
    expect((run.json.stale as { name: string }[])[0].name).toBe(name)
  })

  it('a 429 storm: every page retried, the verdict whole', async () => {
    const setup = (world: World) => {
      addStalePreviews(world)
      for (let i = 100; i < 600; i++) {
        world.addBranch(PROJECT, {
          id: `br-old-${i}`,
          name: `old/${i}`,
          updatedAt: world.now() - 30 * DAY
        })
      }
    }
    const run = await both(
      setup,
      { sweep: 'preview/*' },
      { limits: { perSecondPerRoute: 1, retryAfter: 'seconds' } }
    )
    for (const server of run.servers) {
      expect(server.requests.filter((request) => request.status === 429).length).toBeGreaterThan(2)
    }
    expect(run.action.outputs).toMatchObject({ outcome: 'success', stale_count: '3' })
    expect(run.action.summary).toMatch(/× HTTP 429/)
    expect(run.json).toMatchObject({ outcome: 'success', stale_count: 3 })
  }, 120_000)

  it('older_than given empty or as white space (an unset variable) is an input error, never 7d; not given, it is 7d', async () => {
    const { world, server } = await serve()
    addStalePreviews(world)
    await expectEmptyRefused(server, 'older_than', '; give a value, or leave older_than out for 7d')
    const command = await sweepCommand(server, ['--match', 'preview/*', '--older-than', ''])
    expect(command.code).toBe(2)
    expect(command.stderr).toContain('--older-than: an empty value (an unset variable?)')
  }, 120_000)

  it('older_than, or fail_on_stale true, without sweep: an input error in both bundles, never another gate that passes (review L3)', async () => {
    const { world, server } = await serve()
    addStalePreviews(world)
    const before = server.requests.length
    for (const [input, value] of [
      ['older_than', '7d'],
      ['fail_on_stale', 'true']
    ]) {
      // The rest as the runner sets them: action.yml's defaults.
      const action = await runAction(server, { project_id: PROJECT, [input]: value })
      expect(action.code).toBe(1)
      expect(action.stdout).toContain(
        `::error::Invalid input: input "${input}": only a sweep reads it, and without sweep none runs`
      )
      expect(action.outputs.outcome).toBeUndefined()
    }
    const command = await gateCommand(server, ['--older-than', '7d', '--fail-on-stale'])
    expect(command.code).toBe(2)
    expect(command.stderr).toContain('--older-than: only a sweep reads it, and without --match')
    expect(command.stderr).toContain('--fail-on-stale: only a sweep reads it')
    // Refused before any request: no gate ran in the sweep's place.
    expect(server.requests.length).toBe(before)
  }, 120_000)

  it("fail_on_stale given empty or as white space (an unset variable) is an input error, never false; the command's switch takes no value", async () => {
    const { world, server } = await serve()
    addStalePreviews(world)
    await expectEmptyRefused(
      server,
      'fail_on_stale',
      '; give a value, or leave fail_on_stale out for false'
    )
    const strict = await runAction(server, {
      project_id: PROJECT,
      sweep: 'preview/*',
      fail_on_stale: 'true'
    })
    expect([strict.code, strict.outputs.outcome]).toEqual([1, 'failure'])
    for (const args of [['--fail-on-stale='], ['--fail-on-stale', '']]) {
      const command = await sweepCommand(server, ['--match', 'preview/*', ...args])
      expect(command.code).toBe(2)
      expect(command.stdout).not.toContain('"stale"')
    }
  }, 120_000)

  it('an HTML page with status 200 for the branch list: the sweep could not ask, and says so (exit 3), never waits out its timeout', async () => {
    const { world, server } = await serve()
    addStalePreviews(world)
    server.addFault({
      kind: 'malformed',
      route: 'branches',
      body: '<html><body>Sign in to continue</body></html>',
      contentType: 'text/html'
    })
    const inputs = { project_id: PROJECT, sweep: 'preview/*', timeout: '40s' }
    const [action, command] = await Promise.all([
      runAction(server, inputs),
      sweepCommand(server, ['--match', 'preview/*', '--timeout', '40s'])
    ])
    const said = `GET /projects/${PROJECT}/branches failed: no usable answer within 3.0 s (3 intervals), as long as a read without waiting tries; last error: GET /projects/${PROJECT}/branches answered with a body that is not JSON`
    expect(action.code).toBe(1)
    expect(action.outputs.outcome).toBeUndefined()
    expect(action.outputs.gate).toBe('sweep')
    expect(action.stdout).toContain(`::error::${said}`)
    expect(command.code).toBe(3)
    expect(command.stderr).toContain(said)
    expect(JSON.parse(command.stdout)).not.toHaveProperty('stale')
  }, 120_000)

  it('-q: standard error holds only warnings and errors, as for the gate; standard output the result', async () => {
    const { world, server } = await serve({
      limits: { perSecondPerRoute: 1, retryAfter: 'seconds' }
    })
    addStalePreviews(world)
    const env = { NEON_API_KEY: KEYS.organization, NEON_PROJECT_ID: PROJECT }
    // --fail-fast is ignored with a sweep: a warning, which -q keeps.
    const args = ['sweep', '--match', 'preview/*', '--api-host', server.apiHost, '--fail-fast']
    for (const quiet of ['-q', '--quiet']) {
      const run = await runCommandBundle([...args, '--interval', '1s', quiet], env)
      expect(run.code).toBe(0)
      expect(run.stderr).toBe(
        'warning: --fail-fast is ignored with --match: a sweep waits for nothing\n'
      )
      expect(run.stdout).toMatch(/^✅ success: 3 stale branches among \d+ that match preview\/\*/)
    }
    // Without it, the progress: the banner, the gate's line, the count.
    const loud = await runCommandBundle(args, env)
    expect(loud.stderr).toMatch(/^Neon operations gate .*\nGate: a sweep of project/)
  })

  it('input conflicts are input errors, in both front ends', async () => {
    const { server } = await serve()
    const action = await runAction(server, {
      project_id: PROJECT,
      sweep: 'preview/*',
      branch_id: 'main',
      before: 'delete'
    })
    expect(action.code).toBe(1)
    expect(action.stdout).toContain('input "branch_id": cannot be combined with sweep')
    expect(action.stdout).toContain('input "before": cannot be combined with sweep')
    const command = await sweepCommand(server, ['--match', 'preview/*', '--branch-id', 'main'])
    expect(command.code).toBe(2)
    expect(command.stderr).toContain('--branch-id: cannot be combined with --match')
    const noMatch = await runCommandBundle(['sweep', '--api-host', server.apiHost], {
      NEON_API_KEY: KEYS.organization,
      NEON_PROJECT_ID: PROJECT
    })
    expect(noMatch.code).toBe(2)
    expect(noMatch.stderr).toContain('neon-gate sweep needs --match PATTERN')
  })
})

/** The environment of a scheduled run in REPOSITORY, its API the GitHub double. */
function runnerEnv(github: GitHubServer): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'event-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const eventPath = join(dir, 'event.json')
  writeFileSync(eventPath, JSON.stringify({ schedule: '0 3 * * *' }))
  return {
    GITHUB_EVENT_NAME: 'schedule',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_API_URL: github.apiUrl,
    INPUT_GITHUB_TOKEN: TOKEN
  }
}

/**
 * `input` given empty, then as white space, as the runner sets it for an expression of an unset
 * variable: an input error naming it that says what leaving it out gives, no sweep run; left out,
 * action.yml's default sweeps (three stale branches).
 */
async function expectEmptyRefused(
  server: Awaited<ReturnType<typeof serve>>['server'],
  input: string,
  leaveOut: string
) {
  for (const given of ['', '  ']) {
    const action = await runAction(server, {
      project_id: PROJECT,
      sweep: 'preview/*',
      [input]: given
    })
    expect(action.code).toBe(1)
    expect(action.stdout).toContain(
      `::error::Invalid input: input "${input}": ${given ? 'holds only white space' : 'is empty'}, what an expression gives for an unset variable or a step output that does not exist${leaveOut}`
    )
    expect(action.outputs.stale).toBeUndefined()
    expect(action.outputs.outcome).toBeUndefined()
  }
  const defaulted = await runAction(server, { project_id: PROJECT, sweep: 'preview/*' })
  expect(defaulted.outputs).toMatchObject({ outcome: 'success', stale_count: '3' })
}
