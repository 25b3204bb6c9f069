/*
 * A key with characters that encoders treat differently (`~!'()*+/=`), echoed by the server in the
 * forms URLs, forms and HTML escapers write: none of them reaches the log, the outputs, the summary
 * or the pull-request comment.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, serve } from '../support/bundles/action.js'
import { ACTIONS_BOT, startGitHubServer } from '../support/github/server.ts'
import { ORG, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const KEY = "napi_~!'()*+/=_Secret_Key_0123456789"
const TOKEN = 'ghs_local_write_token_for_encodings'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/** The key as a form, an RFC 3986 escaper, lower-case %-escapes and an HTML escaper write it. */
const ECHOES = [
  new URLSearchParams([['k', KEY]]).toString().slice(2),
  encodeURIComponent(KEY).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`),
  encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
  KEY.replace(/'/g, '&#x27;'),
  KEY.replace(/'/g, '&apos;'),
  encodeURI(KEY)
]

describe('every common encoding of the key is redacted', () => {
  it('echoed in an operation error: not in the log, outputs, summary or comment', async () => {
    const { world, server } = await serve()
    world.addKey({ token: KEY, type: 'organization', accountId: ORG, orgIds: [ORG] })
    const op = operationIn(world, 'error', { error: `rejected ${ECHOES.join(' | ')}` })
    const dir = mkdtempSync(join(tmpdir(), 'event-'))
    closers.push(async () => rmSync(dir, { recursive: true, force: true }))
    const event = join(dir, 'event.json')
    const pullRequest = {
      number: 7,
      html_url: 'https://github.com/octo/app/pull/7',
      head: { sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d', repo: { full_name: 'octo/app' } }
    }
    writeFileSync(event, JSON.stringify({ number: 7, pull_request: pullRequest }))
    const api = await startGitHubServer()
    api.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: true })
    api.pulls.set('octo/app#7', pullRequest.head.sha)
    closers.push(api.close)
    const run = await runAction(
      server,
      {
        api_key: KEY,
        project_id: PROJECT,
        operation_id: op.id,
        pr_comment: 'always',
        github_token: TOKEN
      },
      {
        env: {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_REPOSITORY: 'octo/app',
          GITHUB_API_URL: api.apiUrl,
          GITHUB_EVENT_PATH: event
        }
      }
    )
    expect(run.outputs.outcome).toBe('failure')
    expect(run.outputs.error).toBe(`rejected ${ECHOES.map(() => '***').join(' | ')}`)
    const unmasked = run.stdout.replace(`::add-mask::${KEY}`, '')
    const sinks = [unmasked, Object.values(run.outputs).join('\n'), run.summary]
    for (const echo of ECHOES) for (const sink of sinks) expect(sink).not.toContain(echo)
    expect(api.comments).toHaveLength(1)
    for (const comment of api.comments) {
      for (const echo of ECHOES) expect(comment.body).not.toContain(echo)
    }
    // The leg's record (a commit status) carries the error's line too: redacted as well.
    expect(api.statuses).toHaveLength(1)
    expect(api.statuses[0].description).toContain('***')
    for (const echo of ECHOES) expect(api.statuses[0].description).not.toContain(echo)
  })
})
