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
import { KEYS, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

describe('bundle end to end: project gate and listing', () => {
  it('a project with nothing in flight passes at once, in one poll', async () => {
    const { server } = await serve({ history: 40 })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ outcome: 'success', status: '', operations: '[]' })
    // The newest page, and the page after it (empty), since a short page does not end discovery.
    expect(server.requests.map((request) => request.query)).toEqual([
      { limit: '500' },
      { limit: '500', cursor: expect.any(String) }
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
    // Discovery (the newest page and the empty one after it), then a poll that reads the error.
    expect(server.requests).toHaveLength(3)
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

  it('a project-scoped key cannot list projects: the error says so, and what can', async () => {
    const { server } = await serve()
    const run = await runAction(server, { api_key: KEYS.project, list_projects: 'true' })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::input "list_projects": The key has no access')
    expect(run.stdout).toContain(
      'A project-scoped key cannot list projects: list them with an organization key, or a personal key'
    )
    expect(server.requests).toHaveLength(1)
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
