import { describe, expect, it } from '@jest/globals'
import type { Logger } from '../src/domain/logger.js'
import { isFinal } from '../src/domain/operation-status.js'
import {
  GATE_DISCOVERY_PAGE_LIMIT,
  GATE_LOOKBACK_MS,
  GATE_MAX_DISCOVERY_PAGES,
  GATE_MAX_POLL_PAGES,
  GATE_POLL_PAGE_LIMIT,
  type OperationsReading,
  ProjectGateSource
} from '../src/wait/operation-sources.js'
import { Pace } from '../src/api/pace.js'
import type { Operation, OperationList } from '../src/domain/schemas.js'
import { waitForOperations } from '../src/wait/wait-for-operations.js'
import { FakeClock } from './fixtures/fake-clock.js'
import { PROJECT, operation } from './fixtures/operations.js'

const NOW = Date.parse('2026-11-21T12:00:00Z')
const silent: Logger = { info: () => undefined, warning: () => undefined, debug: () => undefined }
const iso = (ms: number) => new Date(ms).toISOString()

/** The operations list endpoint over an in-memory history, paged like the API (cursor = created_at). */
class History implements OperationsReading {
  readonly calls: string[] = []
  operations: Operation[] = []
  /** The most a page holds, whatever `limit` asked for (a server may cap it). */
  pageCap = Infinity

  add(minutesAgo: number, fields: Partial<Operation> = {}): Operation {
    const created = NOW - minutesAgo * 60_000
    const op = operation({ created_at: iso(created), updated_at: iso(created + 1000), ...fields })
    // Keep newest first: append when it is the oldest, else insert before the first older one.
    const last = this.operations.at(-1)
    if (!last || Date.parse(last.created_at!) >= created) {
      this.operations.push(op)
    } else {
      const index = this.operations.findIndex((other) => Date.parse(other.created_at!) < created)
      this.operations.splice(index, 0, op)
    }
    return op
  }

  set(id: string, status: string): void {
    const op = this.operations.find((candidate) => candidate.id === id)!
    op.status = status
  }

  async listOperations(
    _projectId: string,
    { limit, cursor }: { limit: number; cursor?: string }
  ): Promise<OperationList> {
    this.calls.push(`list ${cursor ?? 'top'}`)
    const older = cursor
      ? this.operations.filter((op) => Date.parse(op.created_at!) < Date.parse(cursor))
      : this.operations
    const page = older
      .slice(0, Math.min(limit, this.pageCap))
      .map((op) => ({ ...op, created_at: op.created_at! }))
    return { operations: page, pagination: { cursor: page.at(-1)?.created_at } }
  }

  async getOperation(_projectId: string, id: string): Promise<Operation> {
    this.calls.push(`get ${id}`)
    return { ...this.operations.find((op) => op.id === id)! }
  }
}

function gate(history: History, options: { branchId?: string; failFast?: boolean } = {}) {
  const clock = new FakeClock(NOW)
  const warnings: string[] = []
  const logger: Logger = {
    info: () => undefined,
    warning: (message) => warnings.push(message),
    debug: () => undefined
  }
  const failFast = options.failFast ?? false
  const source = new ProjectGateSource({
    reader: history,
    projectId: PROJECT,
    branch: options.branchId
      ? {
          branch: { id: options.branchId, name: options.branchId, current_state: 'ready' },
          reader: {
            getBranch: async (_project: string, id: string) => ({
              id,
              name: id,
              current_state: 'ready'
            })
          }
        }
      : undefined,
    isDone: (op) => isFinal(op.status, failFast),
    startedAt: NOW,
    clock,
    logger
  })
  return { source, clock, warnings }
}

/** Old, finished history: `count` operations, one a minute, starting `from` minutes ago. */
function fill(history: History, count: number, from = 1): void {
  for (let i = 0; i < count; i++)
    history.add(from + i, { status: 'finished', action: 'check_availability' })
}

describe('ProjectGateSource', () => {
  it('a project with nothing in flight passes at once, in one poll', async () => {
    const history = new History()
    fill(history, 30)
    const { source, clock } = gate(history)
    const result = await waitForOperations(
      { wait: true, deadline: NOW + 600_000, failFast: false },
      { source, pace: new Pace(5000, silent, () => 0), clock, logger: silent }
    )
    expect(result).toMatchObject({ outcome: 'success', operations: [], polls: 1 })
    // The short page does not end discovery (a server may cap `limit`): the next one, empty, does.
    expect(history.calls).toEqual(['list top', expect.stringMatching(/^list \d{4}-/)])
  })

  it('finds in-flight operations across pages, back to the 24 h horizon and no further', async () => {
    const history = new History()
    fill(history, 1200) // one a minute: 20 hours
    const deep = history.add(1000.5, { status: 'failed', action: 'apply_config' })
    const fresh = history.add(0.5, { status: 'running', action: 'create_branch' })
    history.add(GATE_LOOKBACK_MS / 60_000 + 60, { status: 'running', action: 'ancient' })
    const { source } = gate(history)
    await source.poll()
    expect(source.operations.map((op) => op.id)).toEqual([fresh.id, deep.id])
    // 1,203 operations: two full pages and a short third one, which holds the ancient operation.
    expect(history.calls).toHaveLength(3)
    expect(GATE_DISCOVERY_PAGE_LIMIT).toBe(500)
  })

  it('stops the first read at the horizon even when history goes on', async () => {
    const history = new History()
    fill(history, 3 * GATE_DISCOVERY_PAGE_LIMIT)
    for (let i = 0; i < 3 * GATE_DISCOVERY_PAGE_LIMIT; i++) history.operations.pop()
    for (let i = 0; i < 3 * GATE_DISCOVERY_PAGE_LIMIT; i++)
      history.add(1 + i * 2, { status: 'finished' })
    const { source } = gate(history)
    await source.poll()
    // One every 2 minutes: 720 within 24 h, so the second page crosses the horizon; a third exists.
    expect(history.calls).toHaveLength(2)
  })

  it('later polls read from the top down to the oldest pending operation only', async () => {
    const history = new History()
    fill(history, 1000)
    const pending = history.add(150.5, { status: 'running' })
    const { source } = gate(history)
    await source.poll()
    const firstRead = history.calls.length
    history.calls.length = 0
    await source.poll()
    expect(firstRead).toBeGreaterThan(2)
    expect(history.calls).toEqual(['list top', `list ${history.operations[99].created_at}`])
    history.set(pending.id, 'finished')
    history.calls.length = 0
    await source.poll()
    expect(source.operations).toEqual([
      expect.objectContaining({ id: pending.id, status: 'finished' })
    ])
  })

  it('reads by id a pending operation deeper than the per-poll page limit', async () => {
    const history = new History()
    fill(history, 1000)
    const deep = history.add(GATE_MAX_POLL_PAGES * GATE_POLL_PAGE_LIMIT + 50.5, {
      status: 'running'
    })
    const { source } = gate(history)
    await source.poll()
    history.calls.length = 0
    history.set(deep.id, 'finished')
    await source.poll()
    expect(history.calls.filter((call) => call.startsWith('list'))).toHaveLength(
      GATE_MAX_POLL_PAGES
    )
    expect(history.calls.at(-1)).toBe(`get ${deep.id}`)
    expect(source.operations[0].status).toBe('finished')
  })

  it('waits for operations created after the gate started, and fails on their failure', async () => {
    const history = new History()
    fill(history, 10)
    const first = history.add(0.5, { status: 'running' })
    const { source } = gate(history)
    await source.poll()
    history.set(first.id, 'finished')
    const later = history.add(0.1, { status: 'error', action: 'start_compute' })
    await source.poll()
    expect(source.operations.map((op) => [op.id, op.status])).toEqual([
      [later.id, 'error'],
      [first.id, 'finished']
    ])
  })

  it('with branch_id, only operations on that branch count', async () => {
    const history = new History()
    fill(history, 10)
    const other = history.add(0.2, { status: 'running', branch_id: 'br-other' })
    const mine = history.add(0.4, { status: 'running', branch_id: 'br-mine' })
    const { source } = gate(history, { branchId: 'br-mine' })
    await source.poll()
    expect(source.operations.map((op) => op.id)).toEqual([mine.id])
    history.set(mine.id, 'finished')
    history.add(0.1, { status: 'running', branch_id: 'br-other' })
    await source.poll()
    expect(source.operations.map((op) => op.id)).toEqual([mine.id])
    expect(other.status).toBe('running')
  })

  it('the whole gate: waits until the in-flight operations finish', async () => {
    const history = new History()
    fill(history, 20)
    const a = history.add(0.3, { status: 'running', action: 'create_branch' })
    const b = history.add(0.2, { status: 'scheduling', action: 'start_compute' })
    const { source, clock } = gate(history)
    let polls = 0
    clock.onSleep = () => {
      polls++
      if (polls === 1) history.set(a.id, 'finished')
      if (polls === 2) history.set(b.id, 'running')
      if (polls === 3) history.set(b.id, 'finished')
    }
    const result = await waitForOperations(
      { wait: true, deadline: NOW + 600_000, failFast: false },
      { source, pace: new Pace(5000, silent, () => 0), clock, logger: silent }
    )
    expect(result.outcome).toBe('success')
    expect(result.polls).toBe(4)
    expect(result.operations.map((op) => op.id)).toEqual([b.id, a.id])
  })

  it('warns when the first read reaches its page cap before the horizon, with what it read', async () => {
    const history = new History()
    const count = (GATE_MAX_DISCOVERY_PAGES + 1) * GATE_DISCOVERY_PAGE_LIMIT
    for (let i = 0; i < count; i++) history.add(0.01 + i * 0.1, { status: 'finished' }) // one every 6 s
    const { source, warnings } = gate(history)
    await source.poll()
    expect(history.calls).toHaveLength(GATE_MAX_DISCOVERY_PAGES)
    const read = GATE_MAX_DISCOVERY_PAGES * GATE_DISCOVERY_PAGE_LIMIT
    expect(warnings).toEqual([
      `Project gate: read ${read} operations in 20 pages, created from ${iso(NOW - (0.01 + (read - 1) * 0.1) * 60_000)} to ${iso(NOW - 0.01 * 60_000)}, and stopped there (the page cap); older ones, back to 24 h ago, were not read, and any still in flight among them is not waited on`
    ])
  })

  it('a server that caps its pages at one operation: the warning counts what was read, not pages × limit', async () => {
    const history = new History()
    for (let i = 0; i < 30; i++) history.add(1 + i, { status: 'finished' })
    history.pageCap = 1
    const { source, warnings } = gate(history)
    await source.poll()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      new RegExp(
        `^Project gate: read 20 operations in 20 pages, created from ${iso(NOW - 20 * 60_000).replace(/\./g, '\\.')} to ${iso(NOW - 60_000).replace(/\./g, '\\.')}, and stopped there`
      )
    )
  })
})
