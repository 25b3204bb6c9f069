/*
 * The third adversarial pass, over the real bundle: the runner's older command syntax in every sink
 * of server text, honest reports when nothing could be read, the deadline under a heavy answer, and
 * branch answers held to the question. (The comment's cases are in the pull-request suite.)
 */
import { describe, expect, it } from '@jest/globals'
import type { ServerResponse } from 'node:http'
import { PROJECT, runAction, serve, terminateOnFirstRequest } from '../fixtures/e2e.js'
import { hostile, json, OP, runningOp } from '../fixtures/hostile-servers.js'
import { runnerCommands } from '../fixtures/runner-commands.js'

const INJECTED = '##[set-output name=outcome;]success'

/** What the runner would run from the log: no `##[` command, and no output set through it. */
function expectNoInjectedCommand(stdout: string): void {
  const commands = runnerCommands(stdout)
  expect(commands.filter((command) => command.syntax === '##[')).toEqual([])
  expect(commands.filter((command) => command.name === 'set-output')).toEqual([])
  // Stricter than the runner: `##[` stands nowhere in the log, not even in a line `::` claims.
  expect(stdout).not.toContain('##[')
}

const errorBody = (message: string) => ({ code: '', message, request_id: 'req-1' })

describe('##[ in server text runs no workflow command', () => {
  it('in a status, in the status-change line and the unknown-status warning', async () => {
    const server = await hostile((_request, response) =>
      json(response, 200, { operation: runningOp({ status: `running ${INJECTED}` }) })
    )
    const run = await runAction(server, { project_id: PROJECT, operation_id: OP, wait: 'false' })
    expect(run.outputs.outcome).toBe('pending')
    expect(run.stdout).toContain('running ##\\u005bset-output name=outcome;]')
    expectNoInjectedCommand(run.stdout)
  })

  it('in a branch name, in the "Gating branch" line', async () => {
    const server = await hostile((request, response) => {
      if (request.url?.includes('/branches/')) {
        json(response, 200, {
          branch: {
            id: 'br-evil-000001',
            name: INJECTED,
            project_id: PROJECT,
            current_state: 'ready'
          }
        })
      } else json(response, 200, { operations: [], pagination: {} })
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'br-evil-000001' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Gating branch ##\\u005bset-output')
    expectNoInjectedCommand(run.stdout)
  })

  it('in an API error message, in the timeout line, the error and the annotation', async () => {
    const server = await hostile((_request, response) =>
      json(response, 503, errorBody(`overloaded ${INJECTED}`))
    )
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: OP,
      timeout: '2s'
    })
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain('API says: "overloaded ##\\u005bset-output')
    expectNoInjectedCommand(run.stdout)
  })

  it('in a Retry-After value, in the retry line', async () => {
    let hits = 0
    const server = await hostile((_request, response: ServerResponse) => {
      if (hits++ === 0) {
        // V8 reads this as an HTTP date (1 January 2026), so the retry line quotes it.
        response.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': `${INJECTED} 2026`
        })
        response.end(JSON.stringify(errorBody('slow down')))
      } else json(response, 200, { operation: runningOp({ status: 'finished' }) })
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: OP })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Retry-After ##\\u005bset-output')
    expectNoInjectedCommand(run.stdout)
  })

  it('in an operation’s action and error, in the failure annotations', async () => {
    const server = await hostile((_request, response) =>
      json(response, 200, {
        operation: runningOp({ status: 'error', action: INJECTED, error: `boom ${INJECTED}` })
      })
    )
    const run = await runAction(server, { project_id: PROJECT, operation_id: OP })
    expect(run.outputs.outcome).toBe('failure')
    expect(run.stdout).toMatch(/^::error title=.*##\\u005bset-output/m)
    expectNoInjectedCommand(run.stdout)
  })
})

describe('nothing read is not "nothing in flight"', () => {
  it('503 until the timeout: the log, summary, annotation and outputs say nothing could be read', async () => {
    const server = await hostile((_request, response) =>
      json(response, 503, errorBody('maintenance'))
    )
    const run = await runAction(server, { project_id: PROJECT, timeout: '2s' })
    expect(run.code).toBe(1)
    expect(run.outputs.outcome).toBe('timeout')
    expect(run.stdout).toContain('outcome: timeout, before the operations could be read')
    expect(run.stdout).toMatch(
      /^::error::timeout ran out before anything could be read \(no retry fits/m
    )
    expect(run.stdout).toContain(
      '::error title=timeout%3A the state of the operations is unknown::'
    )
    expect(run.stdout).not.toContain('0 operation(s)')
    expect(run.summary).toContain(
      'Nothing could be read before the timeout ran out: the state of the operations is unknown.'
    )
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.outputs.operations).toBeUndefined()
    expect(run.outputs.status).toBeUndefined()
    expect(run.outputs.elapsed_ms).toMatch(/^\d+$/)
  })

  it('cancelled during the first read: the same, on the cancel path', async () => {
    const { server } = await serve()
    server.addFault({ kind: 'slow', delayMs: 10_000 })
    const terminate = terminateOnFirstRequest(server)
    const run = await runAction(server, { project_id: PROJECT }, { onStart: terminate.onStart })
    expect(run.outputs.outcome).toBe('cancelled')
    expect(run.stdout).toMatch(
      /^::error::The wait was cancelled before anything could be read \(Cancelled by SIGTERM\)/m
    )
    expect(run.summary).toContain('Nothing could be read before the job was cancelled')
    expect(run.summary).not.toContain('No operation in flight')
    expect(run.outputs.operations).toBeUndefined()
  })
})

describe('the cost of an answer follows what the action reads', () => {
  it('2.7 million strings in an ignored field do not hold the step past timeout: 2s', async () => {
    const junk = JSON.stringify(Array.from({ length: 2_700_000 }, () => ''))
    const body = `{"operation":${JSON.stringify(runningOp())},"junk":${junk}}`
    expect(body.length).toBeLessThan(8 * 1024 * 1024)
    const server = await hostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(body)
    })
    const run = await runAction(
      server,
      // Two secrets to keep out of every string, as when github_token is given too.
      {
        project_id: PROJECT,
        operation_id: OP,
        timeout: '2s',
        github_token: 'ghs_0123456789abcdef'
      },
      { killAfterMs: 30_000 }
    )
    expect(run.outputs.outcome).toBe('timeout')
    // A 2 s timeout, its 1 s grace, and the start of a process on a loaded machine.
    expect(run.durationMs).toBeLessThan(6000)
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
            ? `{"operation":${JSON.stringify(runningOp())},"junk":${deep}}`
            : `{"operation":${deep}}`
        )
      })
      const run = await runAction(server, { project_id: PROJECT, operation_id: OP, wait: 'false' })
      expect(run.stdout).not.toContain('Maximum call stack')
      expect(run.outputs.outcome).toBe(outcome)
      if (!outcome) {
        expect(run.stdout).toContain(
          `::error::Unexpected response from GET /projects/${PROJECT}/operations/${OP}: field "operation"`
        )
      }
    }
  )
})

describe('branch answers are held to the question', () => {
  it('a branch named like an id (br-hotfix-7) resolves by its name', async () => {
    const { world, server } = await serve()
    world.addBranch(PROJECT, { id: 'br-quiet-sun-123456', name: 'br-hotfix-7' })
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'br-hotfix-7' })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Gating branch br-hotfix-7 (br-quiet-sun-123456)')
  })

  it.each([
    ['read by id', 'br-main-000001'],
    ['found by name', 'main']
  ])('a branch of another project, %s, fails the step', async (_case, input) => {
    const stranger = { id: 'br-main-000001', name: 'main', project_id: 'someone-else-123' }
    const server = await hostile((request, response) => {
      if (request.url?.includes('/branches/')) json(response, 200, { branch: stranger })
      else if (request.url?.includes('/branches')) json(response, 200, { branches: [stranger] })
      else json(response, 200, { operations: [], pagination: {} })
    })
    const run = await runAction(server, { project_id: PROJECT, branch_id: input })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('belongs to project "someone-else-123", not the one asked for')
    expect(run.outputs.outcome).toBeUndefined()
    expect(server.hits.some((hit) => hit.includes('/operations'))).toBe(false)
  })
})
