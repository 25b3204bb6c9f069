/*
 * The summary's timeline over long spans, over the bundle: operations whose times lie years apart
 * get an axis of years with about a dozen ticks at most, never hundreds.
 */
import { describe, expect, it } from '@jest/globals'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const YEAR_MS = 365.25 * 86_400_000

describe('the timeline over years', () => {
  it('operations created 5 years ago, now and in 2031: ticks a year apart', async () => {
    const now = Date.now()
    const times = [now - 5 * YEAR_MS, now, Date.parse('2031-06-01T00:00:00Z')]
    const { world, server } = await serve()
    const operations = times.map((createdAt) => operationIn(world, 'finished', { createdAt }))
    const ids = operations.map((operation) => operation.id).join(',')
    const run = await runAction(server, { project_id: PROJECT, operation_id: ids })
    expect(run.outputs.outcome).toBe('success')
    expect(run.summary).toContain('    tickInterval 12month\n')
    expect(run.summary).toContain('    axisFormat %Y\n')
  })
})
