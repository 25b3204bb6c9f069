/*
 * The report within GitHub's limits, over the real bundle: a huge error gives small outputs, log
 * and summary, and the limits of the runner's files count UTF-8 bytes. 10,000 operations, and what
 * an early error or a cancellation says, are in process (simulated/report-limits.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { hostile, json, runningOp } from '../fixtures/hostile-servers.js'
import { PROJECT, runAction, serve } from '../fixtures/e2e.js'

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
