/*
 * Server text is untrusted, over the real bundle: it never becomes a runner command (`::` or
 * `##[`), an ANSI escape or Markdown, and the key it echoes, in any encoding, reaches no sink.
 */
import { describe, expect, it } from '@jest/globals'
import { hostile } from '../support/neon/hostile.js'
import { runAction, serve, withoutTimeline } from '../support/bundles/action.js'
import { runBundle } from '../support/bundles/run-bundle.ts'
import { runnerCommands } from '../support/github/runner-commands.js'
import { KEYS, OP_A, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

/** Carriage returns, ANSI escapes and right-to-left overrides: none may reach a sink. */
const hasUnsafeText = (text: string): boolean =>
  ['\r', '\u001b', '\u202e'].some((c) => text.includes(c))

const INJECTED = '##[set-output name=outcome;]success'

/** What the runner would run from the log: no `##[` command, and no output set through it. */
function expectNoInjectedCommand(stdout: string): void {
  const commands = runnerCommands(stdout)
  expect(commands.filter((command) => command.syntax === '##[')).toEqual([])
  expect(commands.filter((command) => command.name === 'set-output')).toEqual([])
  // Stricter than the runner: `##[` stands nowhere in the log, not even in a line `::` claims.
  expect(stdout).not.toContain('##[')
}

/** Whether `text` holds base64 (or base64url) that decodes, at any alignment, to the key's middle. */
function leaksBase64(text: string, key: string): boolean {
  const middle = key.slice(3, -3)
  for (const [run] of text.matchAll(/[A-Za-z0-9+/_-]{8,}/g)) {
    for (let offset = 0; offset < 4; offset++) {
      const decoded = Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      if (decoded.toString('latin1').includes(middle)) return true
    }
  }
  return false
}

/** Everything the run wrote where people or the runner read, less the one line that masks the key. */
function written(run: Awaited<ReturnType<typeof runBundle>>, key: string): string {
  return [
    run.stdout.replace(`::add-mask::${key}`, ''),
    run.summary,
    ...Object.values(run.outputs)
  ].join('\n')
}

describe('never inject, never leak', () => {
  const injection = [
    'apply_config',
    '::set-output name=outcome::success',
    '::add-mask::br-main-000001',
    '::error title=Pwned::owned',
    '::stop-commands::abc123',
    '\u001b[31mred\u001b[0m \u202egnp.exe'
  ].join('\n')

  /** Lines the runner would read as workflow commands; only the action's own may appear. */
  function commands(stdout: string): string[] {
    return stdout.split(/\r?\n|\r/).filter((line) => line.trimStart().startsWith('::'))
  }

  it('API text cannot become a workflow command, an ANSI escape or a reversed line', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, `running\r::set-env name=X::1`, { action: injection })
    server.addFault({
      kind: 'status',
      status: 500,
      message: injection,
      code: injection,
      requestId: 'r\n::endgroup::',
      times: 1
    })
    const run = await runAction(server, {
      project_id: PROJECT,
      operation_id: op.id,
      wait: 'false'
    })
    for (const line of commands(run.stdout)) {
      expect(line).toMatch(
        /^::(add-mask::napi_local_organization_83b1e4c7$|debug::|warning::|error::)/
      )
    }
    expect(hasUnsafeText(run.stdout)).toBe(false)
    expect(run.stdout).toContain('apply_config\\n::set-output name=outcome::success')
    expect(hasUnsafeText(run.summary)).toBe(false)
    expect(withoutTimeline(run.summary)).not.toMatch(/\n\s*\n/)
    // In the timeline, API text keeps only characters Mermaid reads as a name.
    const timeline = /```mermaid\n([\s\S]*?)\n```/.exec(run.summary)![1]
    const names = timeline
      .split('\n')
      .filter((line) => /^ {4}(section |▸ )/.test(line))
      .map((line) => line.replace(/^ {4}(section |▸ )/, '').replace(/ :[a-z, ]+\d+, \d+$/, ''))
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_. -]+$/)
    expect(timeline).toContain('section apply_config___set-output name_outcome')
  })

  it('the key echoed by the server, in plain and escaped forms, reaches no sink', async () => {
    const key = `napi_k&y"<x>'${'Z'.repeat(20)}`
    const raw = await hostile((_request, response) => {
      // JSON escapes of the key's first letter and of its quote, as a server could send them.
      const escaped = JSON.stringify(key).slice(1, -1).replace('n', '\\u006e')
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        `{"operation": {"id": "${OP_A}", "status": "cancelled", "action": "${escaped}", "error": "key ${escaped} & ${Buffer.from(key).toString('base64')}"}}`
      )
    })
    const run = await runAction(raw, { api_key: key, project_id: PROJECT, operation_id: OP_A })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error::An operation ended in failure')
    expect(run.outputs.error).toContain('key *** &')
  })

  it('an api_host with credentials is not repeated in the error', async () => {
    const { server } = await serve()
    const run = await runAction(server, {
      project_id: PROJECT,
      api_host: 'ftp://admin:hunter2-secret@example.com/api'
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('input "api_host": must not carry credentials')
    expect(run.stdout + run.summary).not.toContain('hunter2-secret')
    expect(server.requests).toHaveLength(0)
  })
})

describe('##[ in server text runs no workflow command', () => {
  type Served = Awaited<ReturnType<typeof serve>>
  it.each<{
    where: string
    /** Puts the injected text in the world or the server; the inputs that reach it. */
    arrange: (served: Served) => Record<string, string>
    outcome: string
    /** Where the text shows, escaped. */
    shows: string | RegExp
  }>([
    {
      where: 'in a status, in the status-change line and the unknown-status warning',
      arrange: ({ world }) => ({
        operation_id: operationIn(world, `running ${INJECTED}`).id,
        wait: 'false'
      }),
      outcome: 'pending',
      shows: 'running ##\\u005bset-output name=outcome;]'
    },
    {
      where: 'in a branch name, in the "Gating branch" line',
      arrange: ({ world }) => {
        world.addBranch(PROJECT, { id: 'br-evil-000001', name: INJECTED })
        return { branch_id: 'br-evil-000001' }
      },
      outcome: 'success',
      shows: 'Gating branch ##\\u005bset-output'
    },
    {
      where: 'in an API error message, in the timeout line, the error and the annotation',
      arrange: ({ world, server }) => {
        const op = operationIn(world, 'running')
        server.addFault({ kind: 'status', status: 503, message: `overloaded ${INJECTED}` })
        return { operation_id: op.id, timeout: '2s' }
      },
      outcome: 'timeout',
      shows: 'API says: "overloaded ##\\u005bset-output'
    },
    {
      where: 'in a Retry-After value, in the retry line',
      arrange: ({ world, server }) => {
        const op = operationIn(world, 'finished')
        // V8 reads this as an HTTP date (1 January 2026), so the retry line quotes it.
        server.addFault({ kind: 'status', status: 429, retryAfter: `${INJECTED} 2026`, times: 1 })
        return { operation_id: op.id }
      },
      outcome: 'success',
      shows: 'Retry-After ##\\u005bset-output'
    },
    {
      where: 'in an operation’s action and error, in the failure annotations',
      arrange: ({ world }) => ({
        operation_id: operationIn(world, 'error', { action: INJECTED, error: `boom ${INJECTED}` })
          .id
      }),
      outcome: 'failure',
      shows: /^::error title=.*##\\u005bset-output/m
    }
  ])('$where', async ({ arrange, outcome, shows }) => {
    const served = await serve()
    const run = await runAction(served.server, { project_id: PROJECT, ...arrange(served) })
    expect(run.outputs.outcome).toBe(outcome)
    expect(run.stdout).toMatch(shows)
    expectNoInjectedCommand(run.stdout)
  })
})

describe('the key in any encoding', () => {
  it('the key base64-encoded after "Bearer " reaches no sink, the PR comment aside (pull-request suite)', async () => {
    const { world, server } = await serve()
    const key = KEYS.organization
    const echoes = [`Bearer ${key}`, `Authorization: Bearer ${key}`, `x${key}`, `xy${key}`]
    const op = operationIn(world, 'error', {
      error: echoes
        .flatMap((echo) => [
          Buffer.from(echo).toString('base64'),
          Buffer.from(echo).toString('base64url')
        ])
        .join(' ')
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id })
    expect(run.code).toBe(1)
    expect(run.outputs.error).toContain('***')
    expect(leaksBase64(written(run, key), key)).toBe(false)
  })

  it('a long Location header is redacted before it is cut: no part of the key survives', async () => {
    const key = KEYS.organization
    const server = await hostile((_request, response) => {
      // The first 12 characters of the key fall within the first 200 of the header.
      response.writeHead(302, { location: `https://elsewhere.test/${'x'.repeat(162)}?k=${key}` })
      response.end()
    })
    const run = await runAction(server, { project_id: PROJECT, operation_id: OP_A })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('answered with a redirect')
    expect(written(run, key)).not.toContain(key.slice(0, 8))
  })
})

describe('API text as table keys and invisible characters', () => {
  it('a status named like a property of a plain object is an unknown status', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'constructor')
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id, wait: 'false' })
    expect(run.outputs.outcome).toBe('pending')
    expect(run.stdout).toContain('::warning::Unknown operation status "constructor"')
    expect(run.summary).not.toContain('native code')
    expect(run.summary).toContain('❔ constructor')
    expect(run.summary).not.toContain('undefined')
  })

  it('invisible characters are shown escaped in every sink', async () => {
    const invisible = 'finished\u2060\u200b\ufeff\u{e0041}'
    const { world, server } = await serve()
    const op = operationIn(world, invisible, { action: invisible })
    const run = await runAction(server, { project_id: PROJECT, operation_id: op.id, wait: 'false' })
    expect(run.outputs.outcome).toBe('pending')
    expect(run.stdout).toContain('finished\\u2060\\u200b\\ufeff\\u{e0041}')
    for (const sink of [run.stdout, run.summary]) {
      expect(sink).not.toMatch(/[\u2060\u200b\ufeff]|\u{e0041}/u)
    }
  })
})
