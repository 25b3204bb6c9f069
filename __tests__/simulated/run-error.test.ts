/*
 * A timeout after which nothing was ever read from the API (review M4): every request refused,
 * unanswered or answered with an error. The report says so plainly (`the API never answered`),
 * never as work still in flight, in what both front ends print: the error line (the command's
 * standard error, the action's failure), the first line (summary, text report) and the action's
 * annotation. The gate runs in process on simulated time; the API is a script of answers.
 */
import { describe, expect, it } from '@jest/globals'
import { annotationsFor } from '../../src/runner/annotations.js'
import { errorLine, headlineText, renderTextReport } from '../../src/gate/run-report.js'
import { type IncomingRequest } from '../support/neon/handler.js'
import type { SimulatedHandling } from '../support/neon/simulated-network.js'
import { ok, runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'

const NONE: SimulatedHandling = { kind: 'none' }
const REFUSED: SimulatedHandling = { kind: 'drop' }
const UNAVAILABLE: SimulatedHandling = {
  kind: 'answer',
  answer: { status: 503, body: { message: 'unavailable' } }
}

/** A gate (the branch gate, or the project gate) against `serve`, until its 1-minute timeout. */
async function gateAgainst(
  serve: (request: IncomingRequest) => SimulatedHandling,
  inputs: Record<string, string> = { branch_id: 'main' }
) {
  const setup = simulatedWorld({ history: 0 })
  return runSimulated(
    setup,
    { project_id: PROJECT, timeout: '1m', ...inputs },
    { serve: (request) => serve(request) }
  )
}

describe('a timeout with nothing ever read', () => {
  it.each([
    ['never answers', () => NONE, 'the API never answered'],
    ['drops every connection', () => REFUSED, 'the API never answered'],
    ['answers 503 every time', () => UNAVAILABLE, 'the API never gave a usable answer']
  ])('the API %s (the branch gate): the words say so', async (_, serve, words) => {
    const { report } = await gateAgainst(serve)
    expect(report.outcome).toBe('timeout')
    const line = errorLine(report)!
    expect(line).toMatch(new RegExp(`^${words.charAt(0).toUpperCase()}${words.slice(1)}: `))
    expect(headlineText(report)).toContain(`${words}, so the state is unknown`)
    expect(renderTextReport(report).split('\n')[0]).toContain(words)
    expect(annotationsFor(report)).toEqual([
      expect.objectContaining({
        message: expect.stringContaining(words.charAt(0).toUpperCase() + words.slice(1))
      })
    ])
    for (const said of [line, headlineText(report)])
      expect(said).not.toMatch(/still|in flight|busy/)
  })

  it('the project gate, the API silent: the same words', async () => {
    const { report } = await gateAgainst(() => NONE, {})
    expect(report.outcome).toBe('timeout')
    expect(errorLine(report)).toMatch(/^The API never answered: /)
    expect(headlineText(report)).toContain('the API never answered, so the state is unknown')
  })

  it('once anything was read, a timeout is worded as before (the first read answered)', async () => {
    let reads = 0
    const { report } = await gateAgainst((request) =>
      ++reads === 1 && request.url.includes('/branches')
        ? ok({
            branches: [{ id: 'br-main-000001', name: 'main', current_state: 'ready' }],
            pagination: {}
          })
        : NONE
    )
    expect(report.outcome).toBe('timeout')
    expect(errorLine(report)).not.toMatch(/never/)
    expect(headlineText(report)).not.toMatch(/never/)
  })
})
