import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { existsSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { type LocalServer, startLocalServer } from './fixtures/local-server.js'
import { OP_A, PROJECT, operation } from './fixtures/operations.js'
import { BUNDLE, runBundle } from './fixtures/run-bundle.js'

const KEY = 'napi_bundle_smoke_key_42'
const requests: { url: string; authorization?: string; userAgent?: string; at: number }[] = []
let reads = 0
let server: LocalServer

beforeAll(async () => {
  server = await startLocalServer((request: IncomingMessage, response) => {
    requests.push({
      url: request.url ?? '',
      authorization: request.headers.authorization,
      userAgent: request.headers['user-agent'],
      at: Date.now()
    })
    response.setHeader('content-type', 'application/json')
    if (request.headers.authorization !== `Bearer ${KEY}`) {
      response.statusCode = 401
      response.end(
        JSON.stringify({ code: '', message: 'authentication required', request_id: 'r-401' })
      )
    } else if (request.url?.startsWith('/api/v2/projects?')) {
      response.end(
        JSON.stringify({
          projects: [{ id: PROJECT, name: 'Shiny', region_id: 'aws-eu-central-1', pg_version: 17 }],
          pagination: { cursor: PROJECT }
        })
      )
    } else if (request.url === `/api/v2/projects/${PROJECT}/operations/${OP_A}`) {
      reads++
      const status = reads < 3 ? 'running' : 'finished'
      response.end(
        JSON.stringify({ operation: operation({ id: OP_A, status, action: 'create_branch' }) })
      )
    } else {
      response.statusCode = 404
      response.end(JSON.stringify({ message: 'not found' }))
    }
  })
})
afterAll(() => server.close())

describe('node dist/index.js, run as the runner runs it', () => {
  it('the bundle exists (run "npm run bundle")', () => {
    expect(existsSync(BUNDLE)).toBe(true)
  })

  it('lists projects and waits for an operation from running to finished', async () => {
    const result = await runBundle({
      api_key: KEY,
      project_id: PROJECT,
      operation_id: OP_A,
      list_projects: 'true',
      interval: '1s',
      api_host: `${server.url}/api/v2`
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.outputs).toMatchObject({
      outcome: 'success',
      status: 'finished',
      operation_id: OP_A,
      action: 'create_branch',
      project_count: '1'
    })
    expect(reads).toBe(3)
    expect(result.stdout).toContain(`${OP_A} create_branch on br-main-123456: running → finished`)
    expect(result.summary).toContain('<h3>Operations</h3>')
    expect(result.summary).toContain('<td>Shiny</td>')
    const polls = requests.filter((request) => request.url.includes('/operations/'))
    expect(polls[2].at - polls[1].at).toBeGreaterThanOrEqual(1000)
    expect(
      requests.every((request) => request.userAgent?.startsWith('neon-operations-gate/'))
    ).toBe(true)
    // The key is masked (::add-mask::) and then never printed or written again.
    expect(result.stdout.split(KEY)).toHaveLength(2)
    expect(result.stdout).toContain(`::add-mask::${KEY}`)
    expect(JSON.stringify(result.outputs) + result.summary).not.toContain(KEY)
  })

  it('a bad input fails before any request, naming the input', async () => {
    const before = requests.length
    const result = await runBundle({
      api_key: KEY,
      project_id: PROJECT,
      timeout: 'forever',
      api_host: server.url
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      '::error::Invalid input: input "timeout": "forever" is not a duration'
    )
    expect(requests.length).toBe(before)
  })
})
