/*
 * The report within GitHub's limits, over the real bundle: huge errors and 10,000 operations give
 * small outputs and summaries, limits count UTF-8 bytes, and an early error says what is known.
 */
import { describe, expect, it } from '@jest/globals'
import { hostile, json, runningOp } from '../fixtures/hostile-servers.js'
import { KEYS, PROJECT, runAction, serve, terminateOnFirstRequest } from '../fixtures/e2e.js'

describe('stay within GitHub limits; say what is known', () => {
  it('a 5 MB operation error gives small outputs and a small summary', async () => {
    const { world, server } = await serve()
    const op = world.addOperation(PROJECT, {
      action: 'apply_config',
      timeline: [{ status: 'error' }],
      error: 'E'.repeat(5_000_000)
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.outputs.outcome).toBe('failure')
    expect(run.outputs.error.length).toBeLessThan(5000)
    expect(run.outputs.error).toMatch(/… \[\d+ more characters\]$/)
    const outputBytes = Object.values(run.outputs).reduce((sum, value) => sum + value.length, 0)
    expect(outputBytes).toBeLessThan(64 * 1024)
    expect(run.summary.length).toBeLessThan(64 * 1024)
    expect(run.stdout.length).toBeLessThan(64 * 1024)
  })

  it('10,000 operations in flight: the summary stays far below 1 MiB', async () => {
    const { world, server } = await serve({ history: 0 })
    for (let i = 0; i < 10_000; i++) {
      world.addOperation(PROJECT, {
        action: 'apply_config',
        createdAt: world.now() - i * 1000,
        timeline: [{ status: 'running' }]
      })
    }
    const run = await runAction(server, { project_id: PROJECT, wait: 'false' })
    expect(run.outputs.outcome).toBe('pending')
    expect(run.summary.length).toBeLessThan(256 * 1024)
    expect(run.summary).toContain('<h3>Operations (10000)</h3>')
    expect(run.summary).toContain('… and 9950 more operations not shown')
    expect(run.outputs.operations.length).toBeLessThanOrEqual(512 * 1024)
    expect(run.stdout).toContain('The operations output holds the first')
    // 20 pages of 500 operations through the contract checks: heavy on a loaded machine.
  }, 60_000)

  it('an error before anything was read does not claim that nothing is in flight', async () => {
    const { server } = await serve()
    const run = await runAction(server, { api_key: KEYS.revoked, project_id: PROJECT })
    expect(run.code).toBe(1)
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.summary).toContain('Nothing could be read before the error')
  })

  it('cancelled while listing projects: outcome cancelled', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'slow', delayMs: 20_000 })
    const run = await runAction(
      server,
      { list_projects: 'true' },
      { onStart: terminateOnFirstRequest(server).onStart }
    )
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('cancelled')
    expect(run.summary).toContain('🚫 cancelled')
  })

  it('output limits count UTF-8 bytes: CJK text stays within 512 KiB', async () => {
    const cjk = '漢字テキスト'.repeat(700)
    const server = await hostile((_request, response) =>
      json(response, 200, {
        operations: Array.from({ length: 100 }, (_, i) =>
          runningOp({
            id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
            error: cjk,
            action: cjk
          })
        ),
        pagination: {}
      })
    )
    const run = await runAction(server, { project_id: PROJECT, wait: 'false' })
    expect(run.outputs.outcome).toBe('pending')
    expect(Buffer.byteLength(run.outputs.operations)).toBeLessThanOrEqual(512 * 1024)
    expect(JSON.parse(run.outputs.operations).length).toBeGreaterThan(0)
    expect(run.stdout).toContain('The operations output holds the first')
    expect(Buffer.byteLength(run.summary)).toBeLessThanOrEqual(512 * 1024)
  })
})
