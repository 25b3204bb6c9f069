/*
 * Which gate ran, and the inputs that would have weakened it (issue 58), over both bundles at once
 * against the local API server: the action as the runner runs it (INPUT_*, the outputs, the log)
 * and the command as a CI job runs it (flags, standard output and error, the dotenv file, the exit
 * code). The combinations are held in process by simulated/input-properties.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { World } from '../support/neon/world.ts'
import { type Both, bothBundles, dotenvValue } from '../support/bundles/both-bundles.js'
import { gateCommand, inTempDir } from '../support/bundles/command.js'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const BRANCH = { id: 'br-preview-pr-7', name: 'preview/pr-7' }

/** The action with `inputs`, and the command with `flags` and `--output json`. */
const both = (
  setup: (world: World) => void,
  inputs: Record<string, string>,
  flags: string[],
  options: { noProject?: boolean } = {}
) => bothBundles(setup, inputs, [...flags, '--output', 'json'], options)

/** A preview branch whose start_compute failed a moment ago, beside an idle project. */
function failedStart(world: World): void {
  world.addBranch(PROJECT, BRANCH)
  operationIn(world, 'error', { action: 'start_compute', branchId: BRANCH.id })
}

/** Input errors: exit 1 (the action) and 2 (the command), no request, no outcome, no gate. */
function expectInputError(run: Both, actionError: string, commandError: string): void {
  expect(run.action.code).toBe(1)
  expect(run.action.stdout).toContain(`::error::Invalid input: ${actionError}`)
  expect(run.action.outputs.outcome).toBeUndefined()
  expect(run.action.outputs.gate).toBeUndefined()
  expect(run.command.code).toBe(2)
  expect(run.command.stderr).toContain(`error: Invalid input: ${commandError}`)
  expect(run.command.stdout).toBe('')
  expect(dotenvValue(run.dotenv, 'EXIT_CODE')).toBe('2')
  expect(dotenvValue(run.dotenv, 'GATE')).toBeUndefined()
  expect(dotenvValue(run.dotenv, 'OUTCOME')).toBeUndefined()
  for (const server of run.servers) expect(server.requests).toHaveLength(0)
}

describe('the gate ran is named: the gate output and the line after the banner', () => {
  it('a branch: gate branch, and the line says no database is queried', async () => {
    const run = await both(
      (world) => world.addBranch(PROJECT, BRANCH),
      { project_id: PROJECT, branch_id: BRANCH.name, wait: 'false' },
      ['--branch-id', BRANCH.name, '--no-wait']
    )
    expect(run.action.code).toBe(0)
    expect(run.action.outputs.gate).toBe('branch')
    const line = `Gate: branch ${BRANCH.name} of project ${PROJECT}, its operations and then its readiness; no database query`
    const actionLines = run.action.stdout.split('\n')
    const banner = actionLines.findIndex((text) => text.startsWith('Neon operations gate '))
    expect(actionLines[banner + 1]).toBe(line)
    expect(run.command.code).toBe(0)
    expect(JSON.parse(run.command.stdout)).toMatchObject({ outcome: 'success', gate: 'branch' })
    expect(dotenvValue(run.dotenv, 'GATE')).toBe('branch')
    const commandLines = run.command.stderr.split('\n')
    const commandBanner = commandLines.findIndex((text) => text.startsWith('Neon operations gate'))
    expect(commandLines[commandBanner + 1]).toBe(line)
  })

  it("branch_id not given: action.yml's default stands for it, and the project gate runs", async () => {
    // The harness sets every default action.yml declares, as the runner does.
    const action = await runAction((await serve()).server, { project_id: PROJECT })
    expect(action.code).toBe(0)
    expect(action.outputs.gate).toBe('project')
    expect(action.stdout).toContain(
      `Gate: the whole project ${PROJECT}, every operation in flight on any branch (no branch_id); no database query`
    )
  })

  it('listing alone: gate projects', async () => {
    const run = await both(() => undefined, { list_projects: 'true' }, ['--list-projects'], {
      noProject: true
    })
    expect(run.action.outputs.gate).toBe('projects')
    expect(JSON.parse(run.command.stdout)).toMatchObject({ gate: 'projects', project_count: 3 })
    expect(run.command.stderr).toContain(
      'Gate: none, only a list of the projects the key can see; no database query'
    )
  })
})

describe('inputs that would weaken the gate are input errors (they passed before)', () => {
  it.each([',', ' , , ', ',\n, '])(
    'operation_id %j holds no id: never the project gate, which passed over the failed start',
    async (value) => {
      const run = await both(failedStart, { project_id: PROJECT, operation_id: value }, [
        '--operation-id',
        value
      ])
      const problem =
        'holds no operation id, only separators (commas, spaces or new lines): an unset step output?'
      expectInputError(run, `input "operation_id": ${problem}`, `--operation-id: ${problem}`)
    }
  )

  it('branch_id with operation_id: the branch would go unchecked', async () => {
    const operation = '0b2e9d1c-1a2b-4c3d-8e4f-5a6b7c8d9e0f'
    const run = await both(
      failedStart,
      { project_id: PROJECT, branch_id: BRANCH.name, operation_id: operation },
      ['--branch-id', BRANCH.name, '--operation-id', operation]
    )
    expectInputError(
      run,
      'input "branch_id": cannot be combined with operation_id: only the listed operations would be waited for',
      '--branch-id: cannot be combined with --operation-id: only the listed operations would be waited for'
    )
  })

  it('branch_id with list_projects and no project: exit 0 as a listing before', async () => {
    const run = await both(
      failedStart,
      { list_projects: 'true', branch_id: BRANCH.name },
      ['--list-projects', '--branch-id', BRANCH.name],
      { noProject: true }
    )
    expectInputError(
      run,
      'input "branch_id": needs project_id: with list_projects: true and no project, only the projects are listed and the branch would never be checked',
      '--branch-id: needs --project-id: with --list-projects and no project, only the projects are listed and the branch would never be checked'
    )
  })
})

describe('given empty is not "not given" (issue 65): an input error, never another gate', () => {
  /** What an expression that comes out empty gives, in the action's words. */
  const whereFrom =
    'what an expression gives for an unset variable or a step output that does not exist'

  it.each([
    ['branch_id from an unset variable', 'branch_id', '', 'is empty'],
    ['branch_id of white space', 'branch_id', ' \n', 'holds only white space'],
    ['database_url from a step output that does not exist', 'database_url', '', 'is empty'],
    ['database_url of white space', 'database_url', ' \t ', 'holds only white space'],
    ['before of white space', 'before', '  ', 'holds only white space'],
    ['before from an unset variable', 'before', '', 'is empty'],
    ['operation_id from a step output that does not exist', 'operation_id', '', 'is empty']
  ])(
    "action: %s is an input error that names it; the branch's error is never passed over",
    async (_case, name, value, emptiness) => {
      const { world, server } = await serve()
      failedStart(world)
      const inputs: Record<string, string> = { project_id: PROJECT, [name]: value }
      if (name === 'before') inputs.branch_id = BRANCH.name
      const action = await runAction(server, inputs)
      expect(action.code).toBe(1)
      expect(action.stdout).toContain(
        `::error::Invalid input: input "${name}": ${emptiness}, ${whereFrom}`
      )
      expect(action.outputs.outcome).toBeUndefined()
      expect(action.outputs.gate).toBeUndefined()
      expect(server.requests).toHaveLength(0)
    }
  )

  it('action: project_id from an unset variable beside list_projects: true is an input error, never a list in place of the gate', async () => {
    const { world, server } = await serve()
    failedStart(world)
    const action = await runAction(server, { project_id: '', list_projects: 'true' })
    expect(action.code).toBe(1)
    expect(action.stdout).toContain(
      `::error::Invalid input: input "project_id": is empty, ${whereFrom}; give a value, or leave project_id out with list_projects: true to only list the projects`
    )
    expect(action.outputs.outcome).toBeUndefined()
    expect(server.requests).toHaveLength(0)
  })

  it.each(['$DATABASE_URL', '${DATABASE_URL}', ' ${{ secrets.DATABASE_URL }}', '%DATABASE_URL%'])(
    'database_url %j, an unexpanded variable: an input error on both front ends, never "not given" nor a bad URL',
    async (value) => {
      const problem = 'is a variable that was not expanded'
      const flag = await both(failedStart, { project_id: PROJECT, database_url: value }, [
        `--database-url=${value}`
      ])
      expectInputError(flag, `input "database_url": ${problem}`, `--database-url: ${problem}`)
      const fromFile = await inTempDir(async (dir) => {
        const file = join(dir, 'url')
        writeFileSync(file, `${value}\n`)
        const { server } = await serve()
        return gateCommand(server, ['--database-url-file', file])
      })
      expect(fromFile.code).toBe(2)
      expect(fromFile.stderr).toContain(`error: Invalid input: --database-url-file: ${problem}`)
    }
  )
})
