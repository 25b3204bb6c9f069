/*
 * Statuses and outcomes over the bundle: exit codes, outputs, the error line, the summary, signals.
 * Operations move on by reads (the n-th read sees the n-th step), so what a read sees never races
 * the machine's speed; how far apart the reads are is proven on simulated time (simulated/pace).
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve, serveRunning } from '../support/bundles/action.js'
import { addFailingPreview, operationIn } from '../support/neon/scenarios.ts'
import { PROJECT } from '../support/neon/ids.js'

const opPath = (id: string) => `/api/v2/projects/${PROJECT}/operations/${id}`

/** The inputs that gate operation `id` of the project. */
const gating = (id: string) => ({ project_id: PROJECT, operation_id: id })

describe('bundle end to end: statuses and outcomes', () => {
  it('waits for a created branch: running → finished, each read until final, then success', async () => {
    const { world, server } = await serve()
    const [create, start] = world.createBranch(PROJECT, { byReads: true })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: `${create.id} ${start.id}`
    })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({
      outcome: 'success',
      status: 'finished',
      operation_id: create.id
    })
    expect(JSON.parse(run.outputs.operations).map((op: { status: string }) => op.status)).toEqual([
      'finished',
      'finished'
    ])
    expect(run.stdout).toContain(
      `${create.id} create_branch on ${create.branchId}: running → finished`
    )
    expect(run.summary).toContain('✅ success')
    // create_branch is final at its third read and never read again; start_compute at its fourth.
    const createReads = server.requests.filter((request) => request.path === opPath(create.id))
    const startReads = server.requests.filter((request) => request.path === opPath(start.id))
    expect(createReads).toHaveLength(3)
    expect(startReads).toHaveLength(4)
  })

  it('the error line names only what failed; what was still in flight is counted apart', async () => {
    const { world, server } = await serve()
    const { apply, create, start } = addFailingPreview(world)
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('failure')
    const [errorLine] = run.stdout.split('\n').filter((line) => line.startsWith('::error::'))
    const [failed, inFlight] = errorLine.split('; 1 still in flight: ')
    expect(failed).toMatch(
      new RegExp(
        `^::error::An operation ended in failure: ${start.id} \\(start_compute on br-preview-pr-7 ended in error after \\d+\\.\\d s: "compute failed to start: out of capacity"\\)$`
      )
    )
    expect(inFlight).toMatch(
      new RegExp(
        `^${apply.id} \\(apply_config on br-main-000001, running for \\d+\\.\\d s so far\\)$`
      )
    )
    expect(errorLine).not.toContain(create.id)
    expect(run.summary).toMatch(
      /<p><b>❌ failure<\/b>: <code>start_compute<\/code> on <code>br-preview-pr-7<\/code> ended in <code>error<\/code> after [\d.]+ s: “compute failed to start: out of capacity”<\/p>\n<p>⏳ 1 still in flight: <code>apply_config<\/code> on <code>br-main-000001<\/code>, <code>running<\/code> for [\d.]+ s so far<\/p>/
    )
  })

  // Every final status is in simulated/outcomes.test.ts; here, the exit code of each outcome.
  it.each([
    ['skipped', 0, 'success'],
    ['error', 1, 'failure']
  ])('running → %s: exit %d, outcome %s', async (final, code, outcome) => {
    const { world, server } = await serve()
    const op = operationIn(world, 'running', { then: final })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(code)
    expect(run.outputs).toMatchObject({ outcome, status: final, action: 'apply_config' })
    if (final === 'error') expect(run.outputs.error).toBe('operation failed')
    if (code === 1) expect(run.stdout).toContain(`::error::An operation ended in failure: ${op.id}`)
    expect(run.summary).toContain(code === 0 ? '✅ success' : '❌ failure')
    expect(run.summary).toContain(`<code>${op.id}</code>`)
    expect(server.requests).toHaveLength(2)
  })

  it('failed with fail_fast: failure at once', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'failed', { action: 'start_compute', reads: 5, then: 'finished' })
    const run = await runAction(server, { ...gating(op.id), fail_fast: 'true' })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ outcome: 'failure', status: 'failed' })
    expect(run.outputs.error).toContain('compute failed to start')
    expect(run.summary).toContain('🔁 Failed (retrying)')
    expect(server.requests).toHaveLength(1)
  })

  it('an unknown status: warned once, waited through', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'reattaching', { action: 'tenant_reattach', then: 'finished' })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(0)
    expect(run.stdout.match(/::warning::Unknown operation status "reattaching"/g)).toHaveLength(1)
    expect(run.outputs).toMatchObject({ outcome: 'success', status: 'finished' })
    expect(run.summary).toContain('✅ success')
    expect(server.requests).toHaveLength(2)
  })

  it('timeout while running: exit 1, outcome timeout, the error line and the summary say so', async () => {
    const { server, op } = await serveRunning()
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id, timeout: '1s' })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ outcome: 'timeout', status: 'running' })
    // The deadline counts from the step's start, elapsed_ms from the wait's, a few ms later; how
    // close to it the wait ends is proven on simulated time (simulated/deadlines), this is a ceiling.
    expect(Number(run.outputs.elapsed_ms)).toBeGreaterThanOrEqual(900)
    expect(Number(run.outputs.elapsed_ms)).toBeLessThan(15_000)
    expect(run.stdout).toContain('::error::timeout ran out while operations were still in flight')
    expect(run.summary).toContain('⌛ timeout')
    expect(server.requests.length).toBeGreaterThanOrEqual(2)
  })

  it('wait: false reads once and reports pending without failing', async () => {
    const { world, server } = await serve()
    const [create] = world.createBranch(PROJECT, { byReads: true })
    const run = await runAction(server, { ...gating(create.id), wait: 'false' })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ outcome: 'pending', status: 'running' })
    expect(run.summary).toContain('⏳ pending')
    expect(server.requests).toHaveLength(1)
  })

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s during a wait: stops at once, writes the summary, exits non-zero',
    async (signal) => {
      const { server, op } = await serveRunning()
      let sentAt = 0
      // The next poll would be 30 s on: a step that stops well before it stopped at the signal.
      const run = await runAction(
        server,
        { project_id: PROJECT, operation_id: op.id, interval: '30s' },
        {
          onStart: (child) => {
            child.stdout?.on('data', (chunk: Buffer) => {
              if (!sentAt && String(chunk).includes(': running')) {
                sentAt = Date.now()
                child.kill(signal)
              }
            })
          }
        }
      )
      expect(run.code).toBe(1)
      expect(run.endedAt - sentAt).toBeLessThan(10_000)
      expect(run.outputs.outcome).toBe('cancelled')
      expect(run.summary).toContain('🚫 cancelled')
      expect(run.summary).toContain(op.id)
      expect(server.requests).toHaveLength(1)
    }
  )
})
