/*
 * Before a teardown (`before`), over both bundles at once against the local API server: the action
 * as the runner runs it (INPUT_BEFORE, the outputs, the summary, the annotations) and the command
 * as a CI job runs it (--before, standard output and error, the dotenv file, the exit code). Each
 * case of the contract's section, one world a case, the two runs side by side. The rules and the
 * timing are proven in process: teardown.test.ts, simulated/teardown.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import type { World } from '../support/neon/world.ts'
import { CONTROL, secretForms } from '../support/bundles/command.js'
import { type Both, bothBundles, dotenvValue } from '../support/bundles/both-bundles.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { runnerCommands } from '../support/github/runner-commands.js'
import { operationIn } from '../support/neon/scenarios.js'

const TARGET = 'br-preview-pr-7'
/** Text a server could send to take over a log, a summary or a terminal. */
const HOSTILE =
  '<img src=x onerror=alert(1)> **bold** @team\n::error::pwned ##[set-output name=preflight;]clear \u001b[31m'

/** The project's main branch made protected, with these restrictions. */
function protectMain(world: World, restrictions: { name: string; reason: string }[]) {
  Object.assign(world.branchesOf(PROJECT)[0], { protected: true, restrictedActions: restrictions })
}

/** The command's flags for the action's inputs (the project comes from NEON_PROJECT_ID). */
function flagsOf(inputs: Record<string, string>): string[] {
  return Object.entries(inputs).flatMap(([name, value]) => {
    if (name === 'project_id') return []
    if (name === 'wait') return value === 'false' ? ['--no-wait'] : []
    if (name === 'fail_fast') return value === 'true' ? ['--fail-fast'] : []
    return [`--${name.replace(/_/g, '-')}`, value]
  })
}

/** The action and the command with the same inputs (the project: NEON_PROJECT_ID for the command). */
const both = (
  setup: (world: World) => void,
  inputs: Record<string, string>,
  extraFlags: string[] = []
) => bothBundles(setup, { project_id: PROJECT, ...inputs }, [...flagsOf(inputs), ...extraFlags])

/** A preview branch to delete, a child of main, and (a few) others beside it. */
function previewBranch(world: World, fields: Parameters<World['addBranch']>[1] = { id: TARGET }) {
  world.addBranch(PROJECT, { name: 'preview/pr-7', ...fields, id: TARGET })
}

/** Only our own workflow commands in the log; no `##[`, no escape code anywhere. */
function expectNoInjection({ action, command, dotenv }: Both): void {
  const ours = /^(add-mask|debug|warning|error|notice)$/
  for (const found of runnerCommands(action.stdout)) expect(found.name).toMatch(ours)
  for (const text of [action.stdout, command.stdout, command.stderr, dotenv]) {
    expect(text).not.toContain('##[')
    expect(text).not.toMatch(CONTROL)
  }
  for (const text of [command.stdout, command.stderr, dotenv]) expect(text).not.toMatch(/^\s*::/m)
}

describe('before: delete, over both bundles', () => {
  it('clear: exit 0, preflight clear, blockers []; database_url and fail_fast warned about and ignored', async () => {
    const run = await both(previewBranch, {
      branch_id: 'preview/pr-7',
      before: 'delete',
      fail_fast: 'true',
      database_url: 'postgresql://app:Db-Pw-7x@127.0.0.1:1/app?sslmode=disable'
    })
    const headline =
      'branch preview/pr-7 (br-preview-pr-7) can be deleted now: nothing blocks it; the project is idle: no operation in flight'
    expect(run.action.code).toBe(0)
    expect(run.action.outputs).toMatchObject({
      outcome: 'success',
      preflight: 'clear',
      blockers: '[]'
    })
    expect(run.action.outputs.database_state).toBeUndefined()
    expect(run.action.summary).toContain('<p><b>✅ success</b>: branch <code>preview/pr-7</code>')
    expect(run.action.summary).toContain('<h3>Before a delete: clear</h3>')
    expect(run.action.stdout).toContain(
      '::warning::database_url is ignored with before: a branch about to be deleted or reset is not queried'
    )
    expect(run.action.stdout).toContain('::warning::fail_fast is ignored with before')
    expect(run.command.code).toBe(0)
    expect(run.command.stdout.split('\n')[0]).toBe(`✅ success: ${headline}`)
    expect(run.command.stderr).toContain(
      'warning: --database-url is ignored with --before: a branch about to be deleted or reset is not queried'
    )
    expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBe('clear')
    expect(dotenvValue(run.dotenv, 'BLOCKERS')).toBe('[]')
    const written = [run.action.summary, ...Object.values(run.action.outputs)]
    expect(
      written.concat(run.command.stdout, run.command.stderr, run.dotenv).join('\n')
    ).not.toContain('Db-Pw-7x')
  })

  it('gone (a name shaped like an id that no branch has): passes with a notice, nothing to delete', async () => {
    const run = await both(() => undefined, { branch_id: 'br-hotfix-7', before: 'delete' })
    expect(run.action.code).toBe(0)
    expect(run.action.outputs).toMatchObject({
      outcome: 'success',
      preflight: 'gone',
      blockers: '[]'
    })
    expect(run.action.stdout).toContain('::notice::branch br-hotfix-7 is gone: nothing to delete')
    expect(run.command.code).toBe(0)
    expect(run.command.stdout.split('\n')[0]).toBe(
      '✅ success: branch br-hotfix-7 is gone: nothing to delete'
    )
    expect(run.command.stderr).toContain('notice: branch br-hotfix-7 is gone: nothing to delete')
    expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBe('gone')
    // A run that started says how long it took, gone included.
    expect(run.action.outputs.elapsed_ms).toMatch(/^\d+$/)
    expect(dotenvValue(run.dotenv, 'ELAPSED_MS')).toMatch(/^\d+$/)
    // No error happened, and no operation was left to read: neither is claimed.
    expect(run.action.summary).not.toContain('Nothing could be read')
    expect(run.command.stdout).not.toContain('Nothing could be read')
    // Read by id, searched as a name, then every branch of the project (it answers, and no
    // branch is near the name); no operation read.
    for (const server of run.servers) {
      expect(server.requests.map((request) => request.route)).toEqual([
        'branch',
        'branches',
        'branches'
      ])
    }
  })

  it('a name that matches only with case set aside (Preview/PR-7): an input error naming the branch, never gone', async () => {
    const run = await both(previewBranch, { branch_id: 'Preview/PR-7', before: 'delete' })
    const why = `project "${PROJECT}" has no branch named "Preview/PR-7", but has preview/pr-7 (br-preview-pr-7): names are exact but for spaces around them (case, spaces within, quotes and separators count); give that name or the branch id`
    expect(run.action.code).toBe(1)
    expect(run.action.stdout).toContain(`::error::input "branch_id": ${why}`)
    expect(run.command.code).toBe(2)
    expect(run.command.stderr).toContain(`error: --branch-id: ${why}`)
    for (const preflight of [run.action.outputs.preflight, dotenvValue(run.dotenv, 'PREFLIGHT')]) {
      expect(preflight).toBeUndefined()
    }
    expect(run.action.stdout).not.toContain('is gone')
    expect(run.command.stdout + run.command.stderr).not.toContain('is gone')
  })

  it('spaces around a name are trimmed, on both front ends: the exact name within them is found, and said so', async () => {
    const found = await both(previewBranch, { branch_id: '  preview/pr-7 ', before: 'delete' })
    // The id checked, for the delete after the gate: a tool that reads the name again would look
    // for the spaces too (review L6).
    expect(found.action.outputs).toMatchObject({
      outcome: 'success',
      preflight: 'clear',
      preflight_branch_id: 'br-preview-pr-7'
    })
    expect(dotenvValue(found.dotenv, 'PREFLIGHT')).toBe('clear')
    expect(dotenvValue(found.dotenv, 'PREFLIGHT_BRANCH_ID')).toBe('br-preview-pr-7')
    const near = await both(previewBranch, { branch_id: ' Preview/PR-7  ', before: 'delete' })
    const why = `has no branch named "Preview/PR-7", but has preview/pr-7 (br-preview-pr-7): names are exact but for spaces around them (case, spaces within, quotes and separators count); give that name or the branch id`
    expect(near.action.stdout).toContain(why)
    expect(near.command.stderr).toContain(why)
  })

  // Two of each kind through the bundles (a name near the branch, one a template left unfinished);
  // more spellings, the same assertions, in process: NEAR_NAMES in simulated/teardown.test.ts
  // (the action's words) and command-bad-input.test.ts (the command's words and exit code).
  it.each([
    [
      'a backslash and a Unicode hyphen',
      'preview\\pr\u20107',
      'but has preview/pr-7 (br-preview-pr-7): names are exact'
    ],
    [
      'a Windows variable never expanded',
      'preview/pr-%CI_MR%',
      'and the name looks unfinished (it holds "%CI_MR%", a variable that was not expanded)'
    ]
  ])(
    'a name that is not the branch but near it (%s): an input error, never gone',
    async (_case, branchId, why) => {
      const run = await both(previewBranch, { branch_id: branchId, before: 'delete' })
      const found = `project "${PROJECT}" has no branch named "${branchId}", ${why}`
      expect(run.action.code).toBe(1)
      // The runner's commands write % as %25.
      expect(run.action.stdout).toContain(
        `::error::input "branch_id": ${found}`.replaceAll('%', '%25')
      )
      expect(run.command.code).toBe(2)
      expect(run.command.stderr).toContain(`error: --branch-id: ${found}`)
      expect(run.action.outputs.preflight).toBeUndefined()
      expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBeUndefined()
    }
  )

  /** preview/pr-12 (issue 65), the branch a near miss of its name means. */
  const pr12 = (world: World) => previewBranch(world, { id: TARGET, name: 'preview/pr-12' })

  it.each([['a part more in front of the path', 'team/preview/pr-12']])(
    'a near miss of preview/pr-12 (%s): an input error naming the branch found, never gone',
    async (_case, branchId) => {
      const run = await both(pr12, { branch_id: branchId, before: 'delete' })
      const found = `project "${PROJECT}" has no branch named "${branchId}", but has preview/pr-12 (br-preview-pr-7)`
      expect(run.action.code).toBe(1)
      expect(run.action.stdout).toContain(`::error::input "branch_id": ${found}`)
      expect(run.command.code).toBe(2)
      expect(run.command.stderr).toContain(`error: --branch-id: ${found}`)
      expect(run.action.outputs.preflight).toBeUndefined()
      expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBeUndefined()
      expect(run.action.stdout + run.command.stdout + run.command.stderr).not.toContain('is gone')
    }
  )

  it.each(['delete', 'reset'])(
    'a project of more branches than the list reads (5,000): %s is clear, with a warning naming what was not read',
    async (before) => {
      const manyBranches = (world: World) => {
        previewBranch(world)
        for (let i = 0; i < 5100; i++)
          world.addBranch(PROJECT, { id: `br-other-${i}`, name: `other/${i}` })
      }
      const run = await bothBundles(
        manyBranches,
        { project_id: PROJECT, branch_id: TARGET, before },
        ['--branch-id', TARGET, '--before', before],
        {},
        { limits: { perSecondPerRoute: Infinity } }
      )
      const refused =
        before === 'delete'
          ? 'the API refuses to delete a branch that has children, so at worst the delete is refused, never a wrong one'
          : 'the API refuses to reset a branch that has children without preserve_under_name, so at worst the reset is refused'
      const warning = `Branch preview/pr-7 (br-preview-pr-7): the project's branch list stopped (50 pages) before its end, so its children among the branches beyond it were not read; ${refused}`
      expect(run.action.code).toBe(0)
      expect(run.action.outputs).toMatchObject({ outcome: 'success', preflight: 'clear' })
      expect(run.action.stdout).toContain(`::warning::${warning}`)
      expect(run.action.summary).toContain(
        'before its end, so its children among the branches beyond it were not read'
      )
      expect(run.command.code).toBe(0)
      expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBe('clear')
      expect(run.command.stderr).toContain(`warning: ${warning}`)
    },
    // 51 pages of 100 branches a bundle: over Jest's 30 s on a busy machine (a fresh-clone CI run).
    120_000
  )

  it('a reset of a branch still being created (init): blocked by its state on both front ends; a delete is clear', async () => {
    const inInit = (world: World) =>
      previewBranch(world, { id: TARGET, state: { current: 'init' } })
    const reset = await both(inInit, { branch_id: TARGET, before: 'reset' })
    const detail =
      "it is init, not ready: Neon's API resets (restores) a branch once it is ready, not while it is still being created or reset; wait until it is ready, then reset it"
    expect(reset.action.code).toBe(1)
    expect(reset.action.outputs).toMatchObject({ outcome: 'failure', preflight: 'blocked' })
    expect(JSON.parse(reset.action.outputs.blockers)).toEqual([{ reason: 'state', detail }])
    expect(reset.action.stdout).toContain(`cannot be reset: ${detail}`)
    expect(reset.command.code).toBe(1)
    expect(dotenvValue(reset.dotenv, 'PREFLIGHT')).toBe('blocked')
    expect(reset.command.stderr).toContain(`cannot be reset: ${detail}`)
    const remove = await both(inInit, { branch_id: TARGET, before: 'delete' })
    expect(remove.action.outputs).toMatchObject({ outcome: 'success', preflight: 'clear' })
    expect(remove.command.code).toBe(0)
  })

  it('a different number (preview/pr-13 beside preview/pr-12) is a different branch: gone', async () => {
    const run = await both(pr12, { branch_id: 'preview/pr-13', before: 'delete' })
    expect(run.action.code).toBe(0)
    expect(run.action.outputs).toMatchObject({ outcome: 'success', preflight: 'gone' })
    expect(run.command.code).toBe(0)
    expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBe('gone')
  })

  it('a project the API does not know: an error (the command exits 3), never gone', async () => {
    const run = await both(
      previewBranch,
      { project_id: 'no-such-project', branch_id: 'preview/pr-7', before: 'delete' },
      ['--project-id', 'no-such-project']
    )
    expect(run.action.code).toBe(1)
    expect(run.action.stdout).toMatch(/::error::.*"no-such-project".*HTTP 404/)
    expect(run.command.code).toBe(3)
    expect(run.command.stderr).toMatch(/error: .*"no-such-project".*HTTP 404/)
    expect(run.action.outputs.preflight).toBeUndefined()
    expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBeUndefined()
  })

  it('an older answer, primary: true without default: the default branch, blocked', async () => {
    const run = await both(
      (world) => {
        Object.assign(world.branchesOf(PROJECT)[0], { primaryOnly: true, parentId: 'br-root-0' })
      },
      { branch_id: 'main', before: 'delete' }
    )
    for (const code of [run.action.code, run.command.code]) expect(code).toBe(1)
    const reasons = (text: string) =>
      (JSON.parse(text) as { reason: string }[]).map((blocker) => blocker.reason)
    expect(reasons(run.action.outputs.blockers)).toEqual(['default'])
    expect(reasons(dotenvValue(run.dotenv, 'BLOCKERS') ?? '[]')).toEqual(['default'])
  })

  it('every blocker at once (main: root, default, protected, children, restricted), API text made safe in every sink', async () => {
    const run = await both(
      (world) => {
        protectMain(world, [
          { name: 'delete-rw-endpoint', reason: `${HOSTILE} ${'x'.repeat(300_000)}` },
          // A server that echoes the key: redacted from every sink of both bundles.
          { name: 'restore', reason: `${HOSTILE} ${KEYS.organization}` }
        ])
        previewBranch(world, { id: TARGET, name: HOSTILE })
      },
      { branch_id: 'main', before: 'delete' }
    )
    // The child's name cut at 80 characters, then made safe for the log.
    const why =
      /^Branch main \(br-main-000001\) cannot be deleted: it is a root branch \(it has no parent_id\), which the API does not delete; it is the project's default branch; make another branch the default first; it is protected; remove its protection first; it has 1 child branch, to delete first: <img src=x onerror=alert\(1\)> \*\*bold\*\* @team\\n::error::pwned ##\\u005bset-output name=.*\(br-preview-pr-7\); its restricted_actions refuse a delete: delete-rw-endpoint: "<img/
    expect(run.action.code).toBe(1)
    expect(run.action.outputs.outcome).toBe('failure')
    expect(run.action.outputs.preflight).toBe('blocked')
    const blockers = JSON.parse(run.action.outputs.blockers) as { reason: string; detail: string }[]
    expect(blockers.map((blocker) => blocker.reason)).toEqual([
      'root',
      'default',
      'protected',
      'children',
      'restricted'
    ])
    expect(blockers[4].detail).toMatch(/… \[\d+ more characters\]"$/)
    const error = runnerCommands(run.action.stdout).filter((found) => found.name === 'error')
    // The step's failure is its annotation: once, titled.
    expect(error.map((found) => found.properties)).toEqual([
      'title=cannot delete branch main%3A root%2C default%2C protected%2C children%2C restricted'
    ])
    for (const found of error) expect(found.data).toMatch(why)
    expect(run.action.stdout).toContain(
      '::notice::Branch main (br-main-000001) lists restricted actions that do not stop a delete: restore: "<img'
    )
    expect(run.action.summary).toMatch(
      /^<h2>Neon operations gate<\/h2>\n<p><b>❌ failure<\/b>: branch <code>main<\/code> \(<code>br-main-000001<\/code>\) cannot be deleted: it is a root branch/
    )
    expect(run.action.summary).not.toContain('<img')
    expect(run.action.summary.length).toBeLessThan(64 * 1024)
    expect(run.command.code).toBe(1)
    expect(run.command.stdout.split('\n')[0]).toMatch(
      /^❌ failure: branch main \(br-main-000001\) cannot be deleted: it is a root branch/
    )
    expect(run.command.stderr).toMatch(/^error: Branch main \(br-main-000001\) cannot be deleted/m)
    expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBe('blocked')
    expect(dotenvValue(run.dotenv, 'BLOCKERS')).toMatch(/^\[\{"reason":"root","detail":/)
    expect(Buffer.byteLength(run.dotenv)).toBeLessThanOrEqual(5 * 1024)
    expectNoInjection(run)
    expect(run.action.stdout).toContain('restore: "<img src=x')
    for (const form of secretForms(KEYS.organization)) {
      expect(run.command.stdout + run.command.stderr + run.dotenv).not.toContain(form)
    }
    expect(run.command.stderr).toMatch(/notice: .*restore: "<img src=x.* \*\*\*"/)
  })

  it("children found only on a later page; another branch's operation delays the check; the branch stuck in init does not; a recent error is a warning", async () => {
    const run = await both(
      (world) => {
        const now = world.now()
        previewBranch(world, { id: TARGET, state: { current: 'init' }, createdAt: now - 60_000 })
        // The child is the oldest branch but one: the last page of the newest-first list.
        world.addBranch(PROJECT, {
          id: 'br-child-000001',
          name: 'preview/pr-7-child',
          parentId: TARGET,
          createdAt: now - 50_000
        })
        for (let i = 0; i < 120; i++) {
          world.addBranch(PROJECT, { id: `br-other-${String(i).padStart(6, '0')}` })
        }
        world.addOperation(PROJECT, {
          action: 'start_compute',
          branchId: TARGET,
          createdAt: now - 30_000,
          error: 'compute quota exceeded',
          timeline: [{ status: 'running', ms: 5000 }, { status: 'error' }]
        })
        world.addOperation(PROJECT, {
          action: 'apply_config',
          branchId: 'br-other-000001',
          timeline: [{ status: 'running', reads: 1 }, { status: 'finished' }]
        })
      },
      { branch_id: 'preview/pr-7', before: 'delete', timeout: '1m' }
    )
    for (const result of [run.action, run.command]) expect(result.code).toBe(1)
    expect(run.action.outputs).toMatchObject({
      outcome: 'failure',
      preflight: 'blocked',
      branch_state: 'init',
      blockers: JSON.stringify([
        {
          reason: 'children',
          detail: 'it has 1 child branch, to delete first: preview/pr-7-child (br-child-000001)'
        }
      ])
    })
    for (const log of [run.action.stdout, run.command.stderr]) {
      expect(log).toMatch(
        /warning:? ?:?Ended in failure before the gate started: start_compute \S+ on br-preview-pr-7, error [\d.]+ s before the gate started: "compute quota exceeded"; before a delete, a failure is no reason to stop/
      )
    }
    for (const server of run.servers) {
      const routes = server.requests.map((request) => request.route)
      // The search, the first read (two pages), one poll until apply_config was final, then the
      // project's state (its computes, and its branches on two pages), then the branch and its
      // project's branches on two pages.
      expect(routes).toEqual([
        'branches',
        'operations',
        'operations',
        'operations',
        'project-computes',
        'branches',
        'branches',
        'branch',
        'branches',
        'branches'
      ])
    }
    expect(run.command.stdout.split('\n')[0]).toBe(
      '❌ failure: branch preview/pr-7 (br-preview-pr-7) cannot be deleted: it has 1 child branch, to delete first: preview/pr-7-child (br-child-000001)'
    )
    // The step's failure is its annotation: one line in the log, titled, not a line and its copy.
    expect(
      run.action.stdout.split('\n').filter((line) => line.includes('cannot be deleted'))
    ).toEqual([
      '::error title=cannot delete branch preview/pr-7%3A children::Branch preview/pr-7 (br-preview-pr-7) cannot be deleted: it has 1 child branch, to delete first: preview/pr-7-child (br-child-000001)'
    ])
  })

  it('wait: false while something is in flight: pending, preflight busy with a 423 warning, no blockers; the command exits 75', async () => {
    const run = await both(
      (world) => {
        previewBranch(world)
        operationIn(world, 'running', { action: 'suspend_compute' })
      },
      { branch_id: TARGET, before: 'delete', wait: 'false' }
    )
    const warning =
      'Branch preview/pr-7 (br-preview-pr-7) was not checked: the project still has work in flight, so a delete now would meet 423 Locked; let the gate wait until the project is idle, or retry the delete on 423'
    expect(run.action.code).toBe(0)
    expect(run.action.outputs.outcome).toBe('pending')
    expect(run.action.outputs.preflight).toBe('busy')
    expect(run.action.outputs.blockers).toBeUndefined()
    expect(run.action.outputs.elapsed_ms).toMatch(/^\d+$/)
    expect(run.action.stdout).toContain(`::warning::${warning}`)
    expect(run.action.summary).toContain('<h3>Before a delete: busy</h3>')
    expect(run.command.code).toBe(75)
    expect(run.command.stderr).toContain(`warning: ${warning}`)
    expect(dotenvValue(run.dotenv, 'PREFLIGHT')).toBe('busy')
    expect(dotenvValue(run.dotenv, 'BLOCKERS')).toBeUndefined()
    for (const server of run.servers) {
      expect(server.requests.filter((request) => request.route === 'branch')).toHaveLength(1)
    }
  })
})

describe('before: reset, over both bundles', () => {
  it('main: root, protected and restore blocked; its children a warning (preserve_under_name), a delete restriction a notice; --output json', async () => {
    const run = await both(
      (world) => {
        protectMain(world, [
          { name: 'restore', reason: 'a restore is running' },
          { name: 'delete-rw-endpoint', reason: 'the production endpoint' }
        ])
        previewBranch(world)
      },
      { branch_id: 'main', before: 'reset' },
      ['--output', 'json']
    )
    expect(run.action.code).toBe(1)
    expect(run.command.code).toBe(1)
    const blockers = [
      {
        reason: 'root',
        detail: 'it is a root branch (it has no parent_id): there is no parent to reset it to'
      },
      { reason: 'protected', detail: 'it is protected; remove its protection first' },
      {
        reason: 'restricted',
        detail: 'its restricted_actions refuse a reset: restore: "a restore is running"'
      }
    ]
    expect(JSON.parse(run.action.outputs.blockers)).toEqual(blockers)
    expect(JSON.parse(run.command.stdout)).toMatchObject({
      outcome: 'failure',
      preflight: 'blocked',
      blockers
    })
    const warning =
      'Branch main (br-main-000001) has 1 child branch (preview/pr-7 (br-preview-pr-7)): the reset must keep its current state under another name (preserve_under_name), where the children move'
    expect(run.action.stdout).toContain(`::warning::${warning}`)
    expect(run.command.stderr).toContain(`warning: ${warning}`)
    const notice =
      'Branch main (br-main-000001) lists restricted actions that do not stop a reset: delete-rw-endpoint: "the production endpoint"'
    expect(run.action.stdout).toContain(`::notice::${notice}`)
    expect(run.command.stderr).toContain(`notice: ${notice}`)
    expect(run.command.stderr).toContain('error: Branch main (br-main-000001) cannot be reset')
  })
})

describe('before: the input errors, over both bundles', () => {
  it.each([
    [
      'without branch_id, with operation_id',
      { before: 'delete', operation_id: '0b2e9d1c-1a2b-4c3d-8e4f-5a6b7c8d9e0f' },
      [
        'Invalid input: input "branch_id": required with before delete; give the branch to check (an id, br-…, or its name); input "operation_id": cannot be combined with before delete, which waits until the whole project is idle; leave it out',
        'Invalid input: --branch-id: required with --before delete; give the branch to check (an id, br-…, or its name); --operation-id: cannot be combined with --before delete, which waits until the whole project is idle; leave it out'
      ]
    ],
    [
      'a value that is neither delete nor reset',
      { before: 'destroy', branch_id: TARGET },
      [
        'Invalid input: input "before": "destroy" is not one of delete, reset',
        'Invalid input: --before: "destroy" is not one of delete, reset'
      ]
    ],
    [
      'reset of a branch that does not exist',
      { before: 'reset', branch_id: 'preview/gone' },
      [
        `input "branch_id": project "${PROJECT}" has no branch named "preview/gone"; give a branch id (br-…) or the exact name of one branch of the project`,
        `--branch-id: project "${PROJECT}" has no branch named "preview/gone"; give a branch id (br-…) or the exact name of one branch of the project`
      ]
    ]
  ])('%s', async (_case, inputs, [actionError, commandError]) => {
    const run = await both(() => undefined, inputs)
    expect(run.action.code).toBe(1)
    expect(run.action.outputs.outcome).toBeUndefined()
    expect(run.action.stdout).toContain(`::error::${actionError}`)
    expect(run.command.code).toBe(2)
    expect(run.command.stderr).toContain(`error: ${commandError}`)
    expect(dotenvValue(run.dotenv, 'EXIT_CODE')).toBe('2')
  })
})
