/*
 * The project gate and the listings over the bundle: a project with nothing in flight, a failure in
 * flight, projects over several pages, a project-scoped key, and npm run local. Which pages each
 * poll reads, one branch's gate and the organizations of a personal key are in process
 * (simulated/project-gate.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { runAction, serve } from '../support/bundles/action.js'
import { gateCommand } from '../support/bundles/command.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('bundle end to end: project gate and listing', () => {
  it('a project with nothing in flight passes at once, in one poll', async () => {
    const { server } = await serve({ history: 40 })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ outcome: 'success', status: '', operations: '[]' })
    // The newest page, and the page after it (empty), since a short page does not end discovery;
    // then the project's computes and branches: a tie at the first page's end hides from the list.
    expect(server.requests.map((request) => [request.route, request.query])).toEqual([
      ['operations', { limit: '500' }],
      ['operations', { limit: '500', cursor: expect.any(String) }],
      ['project-computes', {}],
      ['branches', { limit: '100' }]
    ])
    expect(run.summary).toContain('No operation in flight.')
  })

  it('the gate fails when an operation in flight ends in error', async () => {
    const { world, server } = await serve()
    operationIn(world, 'running', {
      action: 'apply_storage_config',
      then: 'error',
      error: 'storage <unavailable>'
    })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({
      outcome: 'failure',
      status: 'error',
      error: 'storage <unavailable>'
    })
    expect(run.summary).toContain('storage &lt;unavailable&gt;')
    // Discovery (the newest page and the empty one after it), then a poll that reads the error:
    // the verdict is a failure already, so the project's state is not read (it could change none).
    expect(server.requests.map((request) => request.route)).toEqual([
      'operations',
      'operations',
      'operations'
    ])
  })

  it('lists more than one page of projects', async () => {
    const { server } = await serve({ extraProjects: 450 })
    const run = await runAction(server, { list_projects: 'true' })
    expect(run.code).toBe(0)
    expect(run.outputs.project_count).toBe('451')
    expect(JSON.parse(run.outputs.projects)).toHaveLength(451)
    expect(server.requests.map((request) => request.query)).toEqual([
      { limit: '400' },
      { limit: '400', cursor: 'extra-project-000399' }
    ])
    expect(run.outputs.outcome).toBe('success')
    expect(run.summary).toContain('<h3>Projects (451)</h3>')
  })

  it('a project-scoped key cannot list projects: an API refusal (the command exits 3), which hints at the key and org_id', async () => {
    const hint =
      'If the key is project-scoped, list the projects with an organization key or a personal key; a personal key may need'
    const { server } = await serve()
    const run = await runAction(server, { api_key: KEYS.project, list_projects: 'true' })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::The key has no access to the list of projects')
    expect(run.stdout).toContain(`${hint} org_id`)
    expect(run.stdout).not.toContain('input "list_projects"')
    expect(server.requests).toHaveLength(1)
    const command = await gateCommand(server, ['--list-projects'], {
      noProject: true,
      env: { NEON_API_KEY: KEYS.project }
    })
    expect(command.code).toBe(3)
    expect(command.stderr).toContain('error: The key has no access to the list of projects')
    expect(command.stderr).toContain(`${hint} --org-id`)
  })
})

describe('npm run local', () => {
  it('runs the bundle with the given inputs, and warns about one action.yml does not declare', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    const child = spawn(
      process.execPath,
      [
        join(import.meta.dirname, '..', '..', 'script', 'runner', 'run-local.ts'),
        `project_id=${PROJECT}`,
        `operation_id=${op.id}`,
        'intervall=3',
        `api_host=${server.apiHost}`
      ],
      { env: { PATH: process.env.PATH, NEON_API_KEY: KEYS.organization } }
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk))
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(output).toContain("Warning: Unexpected input 'intervall', valid inputs are api_key")
    expect(output).toContain('outcome: success')
    expect(code).toBe(0)
  })
})
