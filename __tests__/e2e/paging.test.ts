/*
 * Where each list ends, over the bundle: the branch search follows `pagination.next` whatever the
 * page's length (a server may cap `limit`), counts a branch repeated at a page boundary once, and
 * the project gate keeps waiting on an operation that a capped page of the list no longer shows.
 */
import { describe, expect, it } from '@jest/globals'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { PROJECT, runAction } from '../fixtures/e2e.js'
import { hostile, json, OP, runningOp } from '../fixtures/hostile-servers.js'

const branch = (id: string, name: string) => ({
  id,
  name,
  project_id: PROJECT,
  current_state: 'ready'
})

/**
 * A project whose branch search answers `pages` as they are, whatever `limit` asks, with `next`
 * while more follow; its branches read by id, and no operations.
 */
function pagedSearch(pages: ReturnType<typeof branch>[][]) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '', 'http://x')
    const byId = /\/branches\/([^/?]+)/.exec(url.pathname)?.[1]
    if (byId) return json(response, 200, { branch: branch(byId, 'main') })
    if (!url.pathname.endsWith('/branches')) return json(response, 200, noOperations)
    const index = Number(url.searchParams.get('cursor') ?? '0')
    const next = index + 1 < pages.length ? { next: String(index + 1) } : {}
    json(response, 200, { branches: pages[index], pagination: next })
  }
}

const noOperations = { operations: [], pagination: {} }

describe('the branch search ends where pagination.next does', () => {
  it('pages cut to 25 that carry next: the exact name on page 3 is found', async () => {
    const pages = [0, 1, 2].map((page) =>
      Array.from({ length: 25 }, (_, i) =>
        page === 2 && i === 24
          ? branch('br-the-main-000001', 'main')
          : branch(`br-main-x-${page}-${i}`, `main-x-${page}-${i}`)
      )
    )
    const server = await hostile(pagedSearch(pages))
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'main' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Gating branch main (br-the-main-000001)')
    expect(server.hits.filter((hit) => hit.includes('/branches?'))).toHaveLength(3)
  })

  it('the exact name at the end of a full page and the start of the next counts once', async () => {
    const main = branch('br-the-main-000001', 'main')
    const server = await hostile(
      pagedSearch([
        [...Array.from({ length: 99 }, (_, i) => branch(`br-main-x-${i}`, `main-x-${i}`)), main],
        [main, branch('br-main-y-000001', 'main-y')]
      ])
    )
    const run = await runAction(server, { project_id: PROJECT, branch_id: 'main' })
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toContain('Gating branch main (br-the-main-000001)')
    expect(run.stdout).not.toContain('are named "main"')
  })
})

describe('the operations list ends on a short page', () => {
  it('a server that caps pages at 25: an operation pushed off the first page is still waited on', async () => {
    const finished = (i: number) =>
      runningOp({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        status: 'finished'
      })
    let lists = 0
    let reads = 0
    const server = await hostile((request, response) => {
      const url = request.url ?? ''
      if (url.includes(`/operations/${OP}`)) {
        reads++
        return json(response, 200, {
          operation: runningOp({ status: reads < 2 ? 'running' : 'finished' })
        })
      }
      // First page: the running one among 24 finished; later, 25 newer finished ones hide it.
      const page =
        lists++ === 0
          ? [runningOp(), ...Array.from({ length: 24 }, (_, i) => finished(i))]
          : Array.from({ length: 25 }, (_, i) => finished(100 + i))
      json(response, 200, { operations: page, pagination: { cursor: page.at(-1)!.created_at } })
    })
    const run = await runAction(server, { project_id: PROJECT })
    expect(run.outputs.outcome).toBe('success')
    expect(reads).toBe(2)
    expect(JSON.parse(run.outputs.operations)).toContainEqual(
      expect.objectContaining({ id: OP, status: 'finished' })
    )
  })
})
