/*
 * Answers of any size over the real bundle: endless, or heavy to parse; each is refused or read
 * within the body cap and the deadline, and never crashes the process. A declared size over the
 * cap, compressed answers and a compression bomb are tested on the transport in process
 * (http-transport.test.ts).
 */
import { describe, expect, it } from '@jest/globals'
import { operation } from '../support/neon/operations.js'
import { hostile } from '../support/neon/hostile.js'
import { runAction, serveRunning } from '../support/bundles/action.js'
import { OP_A, PROJECT } from '../support/neon/ids.js'

describe('bodies are capped', () => {
  it('an endless body fails at once, saying the answer was too large', async () => {
    const server = await hostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 'x')
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump)
      }
      response.write('{"operation": {"id": "')
      pump()
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP_A,
      timeout: '30s'
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('the answer is larger than 8 MiB; stopped reading')
    // At once, not at the 30 s timeout: one request, and a generous ceiling.
    expect(run.runningMs).toBeLessThan(20_000)
    expect(server.hits).toHaveLength(1)
  })
})

describe('the cost of an answer follows what the action reads', () => {
  it('2.7 million strings in an ignored field do not hold the step past timeout: 2s', async () => {
    const { server, op } = await serveRunning()
    const junk = Array.from({ length: 2_700_000 }, () => '')
    let sent = 0
    server.addFault({
      kind: 'altered',
      alter: (body) => {
        const altered = { ...(body as object), junk }
        sent = JSON.stringify(altered).length
        return altered
      }
    })
    const run = await runAction(
      server,
      // Two secrets to keep out of every string, as when github_token is given too.
      {
        project_id: PROJECT,
        operation_id: op.id,
        timeout: '2s',
        github_token: 'ghs_0123456789abcdef'
      },
      { killAfterMs: 40_000 }
    )
    // Within the body cap: read whole, and parsed.
    expect(sent).toBeGreaterThan(0)
    expect(sent).toBeLessThan(8 * 1024 * 1024)
    expect(run.outputs.outcome).toBe('timeout')
    // A 2 s timeout, its 1 s grace, the parse of 8 MB (the CPU of a loaded machine); redacting
    // each of the 2.7 million strings would take far longer. Start-up not counted.
    expect(run.runningMs).toBeLessThan(15_000)
  })

  it.each([
    ['an ignored field', 'junk', 'pending'],
    ['the operation itself', 'operation', undefined]
  ])(
    'JSON nested a million deep in %s is read or refused by name',
    async (_case, field, outcome) => {
      const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000)
      const server = await hostile((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(
          field === 'junk'
            ? `{"operation":${JSON.stringify(operation({ id: OP_A }))},"junk":${deep}}`
            : `{"operation":${deep}}`
        )
      })
      const run = await runAction(server, {
        project_id: PROJECT,
        operation_id: OP_A,
        wait: 'false'
      })
      expect(run.stdout).not.toContain('Maximum call stack')
      expect(run.outputs.outcome).toBe(outcome)
      if (!outcome) {
        expect(run.stdout).toContain(
          `::error::Unexpected response from GET /projects/${PROJECT}/operations/${OP_A}: field "operation"`
        )
      }
    }
  )
})
