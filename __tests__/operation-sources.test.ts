import { describe, expect, it } from '@jest/globals'
import type { Logger } from '../src/domain/logger.js'
import { finalityOf } from '../src/domain/operation-status.js'
import {
  GATE_MAX_CATCH_UP_PAGES,
  GATE_MAX_POLL_PAGES,
  GATE_POLL_PAGE_LIMIT
} from '../src/wait/later-polls.js'
import type { OperationsReading } from '../src/wait/operation-sources.js'
import {
  GATE_DISCOVERY_PAGE_LIMIT,
  GATE_LOOKBACK_MS,
  GATE_MAX_DISCOVERY_PAGES,
  GATE_MAX_READS_BY_ID,
  ProjectGateSource
} from '../src/wait/project-gate-source.js'
import { Pace } from '../src/api/pace.js'
import type { Branch, Operation } from '../src/domain/schemas.js'
import { waitForOperations } from '../src/wait/wait-for-operations.js'
import { FakeClock } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'
import { PROJECT } from './support/neon/ids.js'
import { ScriptedReader } from './support/neon/scripted-reader.js'

const NOW = Date.parse('2026-11-21T12:00:00Z')
const silent: Logger = {
  info: () => undefined,
  warning: () => undefined,
  notice: () => undefined,
  debug: () => undefined
}
const iso = (ms: number) => new Date(ms).toISOString()
/** A project whose every compute is idle and every branch ready: its state keeps nothing open. */
const settledProject = {
  listProjectComputes: async () => [],
  listBranches: async () => ({ branches: [] })
}

function gate(history: ScriptedReader, options: { branchId?: string; failFast?: boolean } = {}) {
  const clock = new FakeClock(NOW)
  const warnings: string[] = []
  const logger: Logger = {
    info: () => undefined,
    warning: (message) => warnings.push(message),
    notice: () => undefined,
    debug: () => undefined
  }
  const failFast = options.failFast ?? false
  const source = new ProjectGateSource({
    reader: history,
    projectId: PROJECT,
    project: settledProject,
    branch: options.branchId
      ? {
          branch: { id: options.branchId, name: options.branchId, current_state: 'ready' },
          reader: {
            getBranch: async (_project: string, id: string) => ({
              id,
              name: id,
              current_state: 'ready'
            }),
            listComputes: async () => []
          }
        }
      : undefined,
    finality: finalityOf(failFast),
    startedAt: NOW,
    clock,
    logger
  })
  return { source, clock, warnings }
}

describe('ProjectGateSource: the state is read only while it could change the verdict', () => {
  /** The source over `history`, its project's and branch's reads counted. */
  function counted(history: ScriptedReader, branchGated: boolean, failFast = false) {
    const reads: string[] = []
    const ready = { id: 'br-mine', name: 'preview', current_state: 'ready' }
    const source = new ProjectGateSource({
      reader: history,
      projectId: PROJECT,
      project: {
        listProjectComputes: async () => (reads.push('computes'), []),
        listBranches: async () => (reads.push('branches'), { branches: [] })
      },
      branch: branchGated
        ? {
            branch: ready,
            reader: {
              getBranch: async () => (reads.push('branch'), ready),
              listComputes: async () => (reads.push('branch computes'), [])
            }
          }
        : undefined,
      finality: finalityOf(failFast),
      startedAt: NOW,
      clock: new FakeClock(NOW),
      logger: silent
    })
    return { source, reads }
  }

  it.each([
    ['the project gate', false, 'error'],
    ['the branch gate', true, 'error'],
    ['the project gate under fail_fast', false, 'failed']
  ])('%s: a poll that finds a final failure reads no state', async (_, branchGated, status) => {
    const history = new ScriptedReader({}, NOW)
    fill(history, 3, 1)
    const failing = history.add(0.5, { status: 'running', branch_id: 'br-mine' })
    const { source, reads } = counted(history, branchGated, status === 'failed')
    await source.poll()
    const before = [...reads]
    // The first poll found it in flight: no state read beyond what the branch gate reads first.
    expect(before).toEqual(branchGated ? ['branch computes'] : [])
    history.set(failing.id, status)
    await source.poll()
    expect(reads).toEqual(before)
    // The same poll with it finished reads the state (project), or the branch again.
    history.set(failing.id, 'finished')
    await source.poll()
    expect(reads.length).toBeGreaterThan(before.length)
  })
})

/** The gate's source over `reader` after its first poll, with the reader's calls cleared. */
async function afterFirstPoll(reader: ScriptedReader, options: Parameters<typeof gate>[1] = {}) {
  const { source } = gate(reader, options)
  await source.poll()
  reader.calls.length = 0
  return source
}

/** The wait over `source` on `clock`, from NOW until `timeoutMs` later, at a pace of 5 s. */
function waitOn(source: ProjectGateSource, clock: FakeClock, timeoutMs = 600_000) {
  return waitForOperations(
    {
      wait: true,
      startedAt: NOW,
      deadline: NOW + timeoutMs,
      failFast: false
    },
    { source, pace: new Pace(5000, clock, silent, () => 0), clock, logger: silent }
  )
}

/** A history of `count` old, finished operations, one a minute from a minute ago. */
function historyOf(count: number): ScriptedReader {
  const history = new ScriptedReader({}, NOW)
  fill(history, count)
  return history
}

/** Old, finished history: `count` operations, one a minute, starting `from` minutes ago. */
function fill(history: ScriptedReader, count: number, from = 1): void {
  for (let i = 0; i < count; i++)
    history.add(from + i, { status: 'finished', action: 'check_availability' })
}

describe('ProjectGateSource', () => {
  it('a project with nothing in flight passes at once, in one poll', async () => {
    const history = historyOf(30)
    const { source, clock } = gate(history)
    const result = await waitOn(source, clock)
    expect(result).toMatchObject({ outcome: 'success', operations: [], polls: 1 })
    // The short page does not end discovery (a server may cap `limit`): the next one, empty, does.
    expect(history.calls).toEqual(['list top', expect.stringMatching(/^list \d{4}-/)])
  })

  it('finds in-flight operations across pages, and drops none it read for its age', async () => {
    const history = new ScriptedReader({}, NOW)
    fill(history, 1200) // one a minute: 20 hours
    const deep = history.add(1000.5, { status: 'failed', action: 'apply_config' })
    const fresh = history.add(0.5, { status: 'running', action: 'create_branch' })
    const ancient = history.add(GATE_LOOKBACK_MS / 60_000 + 60, { status: 'running' })
    const { source } = gate(history)
    await source.poll()
    // 25 h old and still running: read, so waited on (the gate could only time out on it).
    expect(source.operations.map((op) => op.id)).toEqual([fresh.id, deep.id, ancient.id])
    // 1,203 operations: two full pages and a short third one, which holds the ancient operation.
    expect(history.calls).toHaveLength(3)
    expect(GATE_DISCOVERY_PAGE_LIMIT).toBe(500)
  })

  it('stops the first read at the horizon even when history goes on', async () => {
    const history = historyOf(3 * GATE_DISCOVERY_PAGE_LIMIT)
    for (let i = 0; i < 3 * GATE_DISCOVERY_PAGE_LIMIT; i++) history.operations.pop()
    for (let i = 0; i < 3 * GATE_DISCOVERY_PAGE_LIMIT; i++)
      history.add(1 + i * 2, { status: 'finished' })
    const { source } = gate(history)
    await source.poll()
    // One every 2 minutes: 720 within 24 h, so the second page crosses the horizon; a third exists.
    expect(history.calls).toHaveLength(2)
  })

  it('later polls read from the top down to the oldest pending operation only', async () => {
    const history = historyOf(1000)
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
    const history = historyOf(1000)
    const deep = history.add(GATE_MAX_POLL_PAGES * GATE_POLL_PAGE_LIMIT + 50.5, {
      status: 'running'
    })
    const source = await afterFirstPoll(history)
    history.set(deep.id, 'finished')
    await source.poll()
    expect(history.calls.filter((call) => call.startsWith('list'))).toHaveLength(
      GATE_MAX_POLL_PAGES
    )
    expect(history.calls.at(-1)).toBe(`get ${deep.id}`)
    expect(source.operations[0].status).toBe('finished')
  })

  it('waits for operations created after the gate started, and fails on their failure', async () => {
    const history = historyOf(10)
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
    const history = historyOf(10)
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
    const history = historyOf(20)
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
    const result = await waitOn(source, clock)
    expect(result.outcome).toBe('success')
    expect(result.polls).toBe(4)
    expect(result.operations.map((op) => op.id)).toEqual([b.id, a.id])
  })

  it('warns when the first read reaches its page cap before the horizon, with what it read', async () => {
    const history = new ScriptedReader({}, NOW)
    const count = (GATE_MAX_DISCOVERY_PAGES + 1) * GATE_DISCOVERY_PAGE_LIMIT
    for (let i = 0; i < count; i++) history.add(0.01 + i * 0.1, { status: 'finished' }) // one every 6 s
    const { source, warnings } = gate(history)
    await source.poll()
    expect(history.calls).toHaveLength(GATE_MAX_DISCOVERY_PAGES)
    const read = GATE_MAX_DISCOVERY_PAGES * GATE_DISCOVERY_PAGE_LIMIT
    expect(warnings).toEqual([
      `Project gate: read ${read} operations in 20 pages, created from ${iso(NOW - (0.01 + (read - 1) * 0.1) * 60_000)} to ${iso(NOW - 0.01 * 60_000)}, and stopped there (the page cap); older ones, up to 24 h before the newest, were not read: the project's computes and branches stand for them, each idle or ready with nothing pending`
    ])
  })

  it('names no recent failure before its first poll has read the list (a run cut short before it)', async () => {
    const history = new ScriptedReader({}, NOW)
    history.add(3, { status: 'error', action: 'start_compute' })
    const { source } = gate(history)
    // gate.ts reads them after an error cut the first poll short: nothing read, nothing named.
    expect(source.recentFailures).toEqual([])
    await source.poll()
    expect(source.recentFailures).toHaveLength(1)
  })

  it('a server that caps its pages at one operation: the warning counts what was read, not pages × limit', async () => {
    const history = new ScriptedReader({}, NOW)
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

describe("ProjectGateSource: what ended before the gate, on the API's clock", () => {
  /** A gate that started a minute before its first answer, which came at NOW on the API's clock. */
  async function firstRead(branchGated: boolean) {
    const history = new ScriptedReader({}, NOW)
    fill(history, 5, 30)
    // 15 minutes and 10 s before the gate started, and 15 minutes less 10 s; each ended 1 s later.
    const outside = history.add(16 + 1 / 6, { status: 'error', branch_id: 'br-mine' })
    const inside = history.add(16 - 1 / 6, { status: 'error', branch_id: 'br-mine' })
    const monotonicAtStart = 1_000_000
    const clock = {
      now: () => monotonicAtStart + 60_000,
      wallNow: () => NOW,
      sleep: async () => undefined
    }
    const ready = { id: 'br-mine', name: 'preview', current_state: 'ready' }
    const source = new ProjectGateSource({
      reader: history,
      projectId: PROJECT,
      project: settledProject,
      branch: branchGated
        ? { branch: ready, reader: { getBranch: async () => ready, listComputes: async () => [] } }
        : undefined,
      finality: finalityOf(false),
      startedAt: monotonicAtStart,
      clock,
      logger: silent
    })
    await source.poll()
    return { source, inside, outside }
  }

  it("the whole project's window is measured from when the gate started, however long before the first answer that was", async () => {
    const { source, inside } = await firstRead(false)
    expect(source.recentFailures).toEqual([
      {
        operation: expect.objectContaining({ id: inside.id }),
        failsGate: false,
        endedAgoMs: 889_000
      }
    ])
  })

  it('on a gated branch both fail the gate, whatever their age, aged from when the gate started', async () => {
    const { source, inside, outside } = await firstRead(true)
    expect(source.recentFailures).toEqual([
      {
        operation: expect.objectContaining({ id: inside.id }),
        failsGate: true,
        endedAgoMs: 889_000
      },
      {
        operation: expect.objectContaining({ id: outside.id }),
        failsGate: true,
        endedAgoMs: 909_000
      }
    ])
  })
})

describe('ProjectGateSource: each later poll reads back to what the previous one had seen', () => {
  /** `count` finished operations on another branch, 2 ms apart from `fromMs` after NOW. */
  const burst = (history: ScriptedReader, count: number, fromMs = -500) => {
    for (let i = 0; i < count; i++) {
      history.add(-(fromMs + 2 * i) / 60_000, { status: 'finished', branch_id: 'br-other' })
    }
  }

  it('a burst of 150 on other branches does not hide a new operation on the gated branch', async () => {
    const history = historyOf(30)
    const source = await afterFirstPoll(history, { branchId: 'br-mine' })
    expect(source.operations).toEqual([])
    const mine = history.add(0.01, { status: 'running', branch_id: 'br-mine' })
    burst(history, 150)
    await source.poll()
    expect(source.operations.map((op) => op.id)).toEqual([mine.id])
    // Two pages: the second reaches what the first read had seen.
    expect(history.calls).toEqual(['list top', `list ${history.operations[99].created_at}`])
  })

  it('one that ended in error under the burst, while the gate waits for the branch, fails the gate', async () => {
    const history = historyOf(30)
    const states = [
      { current_state: 'init' },
      { current_state: 'init' },
      { current_state: 'ready' }
    ]
    const { source } = branchGate(history, states)
    const clock = new FakeClock(NOW)
    let polls = 0
    clock.onSleep = () => {
      if (++polls !== 1) return
      history.add(0.01, { status: 'error', branch_id: 'br-mine', action: 'start_compute' })
      burst(history, 150)
    }
    const result = await waitOn(source, clock)
    expect(result.outcome).toBe('failure')
    expect(result.polls).toBe(2)
  })

  it('the usual poll is still one request: its page holds what the previous poll saw', async () => {
    const history = historyOf(300)
    const source = await afterFirstPoll(history, { branchId: 'br-mine' })
    burst(history, 99)
    await source.poll()
    expect(history.calls).toEqual(['list top'])
  })

  it('a page shorter than asked does not end a read that has not got back there', async () => {
    const history = historyOf(30)
    const source = await afterFirstPoll(history, { branchId: 'br-mine' })
    history.pageCap = 40
    const mine = history.add(0.01, { status: 'running', branch_id: 'br-mine' })
    burst(history, 60)
    await source.poll()
    expect(source.operations.map((op) => op.id)).toEqual([mine.id])
    expect(history.calls).toHaveLength(2)
  })

  it('at the page cap it warns and does not pass; the next poll reads on from where it stopped', async () => {
    const history = historyOf(30)
    const first = history.add(0.5, { status: 'running', branch_id: 'br-mine' })
    const { source, clock, warnings } = gate(history, { branchId: 'br-mine' })
    const cap = GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT
    let later: Operation | undefined
    let polls = 0
    clock.onSleep = () => {
      polls++
      if (polls === 1) {
        history.set(first.id, 'finished')
        // Under a burst of more than a poll reads, an operation started just after the first read.
        later = history.add(0.4, { status: 'running', branch_id: 'br-mine' })
        burst(history, cap + 50, -20_000)
      }
      if (polls === 3) history.set(later!.id, 'finished')
    }
    const result = await waitOn(source, clock)
    expect(result.outcome).toBe('success')
    expect(result.operations.map((op) => [op.id, op.status])).toEqual([
      [later!.id, 'finished'],
      [first.id, 'finished']
    ])
    // Poll 2 stopped at the cap (it read the first one by id); poll 3 read on and found the later
    // one, in flight; poll 4 saw it finish.
    expect(result.polls).toBe(4)
    expect(warnings).toEqual([
      `Project gate: read ${cap} operations listed since the previous poll in ${GATE_MAX_CATCH_UP_PAGES} pages, stopped at the page cap short of those it had seen; the next poll reads on, and the gate cannot pass till then`
    ])
  })

  it('a timeout before the read gets back there is a timeout, not a pass, and says why', async () => {
    const history = historyOf(30)
    const first = history.add(0.5, { status: 'running' })
    const { source, clock } = gate(history)
    const cap = GATE_MAX_CATCH_UP_PAGES * GATE_POLL_PAGE_LIMIT
    clock.onSleep = () => {
      history.set(first.id, 'finished')
      // A burst of more than a poll reads before every poll: the list is never read back.
      burst(history, cap + 50, clock.sleeps.length * 10_000)
    }
    const result = await waitOn(source, clock, 20_000)
    expect(result.outcome).toBe('timeout')
    expect(result.reason).toMatch(/^the operations list is not read back to what an earlier poll/)
  })
})

/** The gate on one branch, whose reads give `states` in turn (the last repeats); every log line kept. */
function branchGate(history: OperationsReading, states: Partial<Branch>[], resolved = states[0]) {
  const clock = new FakeClock(NOW)
  const { logger, lines } = collectingLogger()
  const reads = [...states]
  const source = new ProjectGateSource({
    reader: history,
    projectId: PROJECT,
    project: settledProject,
    branch: {
      branch: { id: 'br-mine', name: 'preview/mine', ...resolved },
      reader: {
        getBranch: async (_project: string, id: string) => ({
          id,
          name: 'preview/mine',
          ...(reads.length > 1 ? reads.shift()! : reads[0])
        }),
        listComputes: async () => []
      }
    },
    finality: finalityOf(false),
    startedAt: NOW,
    clock,
    logger
  })
  return { source, lines }
}

describe('ProjectGateSource: the gated branch', () => {
  const states = (...names: string[]) => names.map((name) => ({ current_state: name }))
  it.each([
    [
      'says what state the branch is in on the first read and on each change, not on every read',
      states('init', 'init', 'ready'),
      [
        'info: Branch preview/mine (br-mine) is init',
        'info: Branch preview/mine (br-mine) is ready'
      ]
    ],
    [
      'an archived branch is a warning each time it is read',
      states('archived', 'archived'),
      [
        'warning: Branch preview/mine (br-mine) is archived: its first queries will be slow',
        'warning: Branch preview/mine (br-mine) is archived: its first queries will be slow'
      ]
    ],
    [
      'a state the gate does not know is a warning once per state, then said as any change',
      states('thawing', 'thawing', 'melting', 'thawing', 'ready'),
      [
        'warning: Branch preview/mine (br-mine) is in an unknown state, thawing; waiting until it is ready',
        'warning: Branch preview/mine (br-mine) is in an unknown state, melting; waiting until it is ready',
        'info: Branch preview/mine (br-mine) is thawing',
        'info: Branch preview/mine (br-mine) is ready'
      ]
    ]
  ])('%s', async (_case, reads, said) => {
    const history = historyOf(5)
    const { source, lines } = branchGate(history, reads)
    for (let i = 0; i < reads.length; i++) await source.poll()
    expect(lines).toEqual(said)
    expect(source.branch?.current_state).toBe(reads.at(-1)!.current_state)
  })

  it('the state the branch was resolved in counts as the last one said', async () => {
    const history = historyOf(5)
    const running = history.add(0.5, { status: 'running', branch_id: 'br-mine' })
    const { source, lines } = branchGate(history, [{ current_state: 'ready' }])
    // The first poll finds its operation in flight: the branch is not read.
    await source.poll()
    expect(source.branch?.current_state).toBe('ready')
    history.set(running.id, 'finished')
    await source.poll()
    // Read now, and still ready, as when it was resolved: nothing to say.
    expect(lines).toEqual([])
  })
})

describe('ProjectGateSource: how far each read goes', () => {
  it('the first read goes on past a page that ends exactly 24 h before the newest operation', async () => {
    const history = new ScriptedReader({}, NOW)
    history.add(1, { status: 'finished' })
    const atHorizon = history.add(GATE_LOOKBACK_MS / 60_000 + 1, { status: 'running' })
    const beyond = history.add(GATE_LOOKBACK_MS / 60_000 + 2, { status: 'running' })
    const further = history.add(GATE_LOOKBACK_MS / 60_000 + 3, { status: 'running' })
    history.add(GATE_LOOKBACK_MS / 60_000 + 4, { status: 'running' })
    history.pageCap = 2
    const { source } = gate(history)
    await source.poll()
    // 24 h before the newest (not before now): the page after it is read, and what it read in
    // flight is waited on, whatever its age; the walk stops there.
    expect(source.operations.map((op) => op.id)).toEqual([atHorizon.id, beyond.id, further.id])
    expect(history.calls).toHaveLength(2)
  })

  it('a later poll ends on the page that reaches the oldest pending operation', async () => {
    const history = historyOf(150)
    // The 100th newest: the last of the first page of a later poll.
    const pending = history.add(99.5, { status: 'running' })
    const source = await afterFirstPoll(history)
    await source.poll()
    expect(history.calls).toEqual(['list top'])
    expect(source.operations.map((op) => op.id)).toEqual([pending.id])
  })

  it('a later poll that got back to what it had seen ends on a short page', async () => {
    // A pending operation without a readable time: no page can be known to reach it, so later polls
    // read on until a page says it is the last.
    const unreadable = operation({ status: 'running', created_at: 'not a time' })
    const older = operation({ status: 'finished', created_at: iso(NOW - 120_000) })
    const newer = operation({ status: 'finished', created_at: iso(NOW - 60_000) })
    const reader = ScriptedReader.pages([[unreadable, older], [], [newer, older]], () => ({
      ...unreadable
    }))
    const source = await afterFirstPoll(reader)
    await source.poll()
    // Two operations where 100 were asked for: the last page. The pending one was not on it.
    expect(reader.calls).toEqual(['list top', `get ${unreadable.id}`])
  })

  it('with a pending operation whose time cannot be read, a later poll reads GATE_MAX_POLL_PAGES full pages', async () => {
    const unreadable = operation({ status: 'running', created_at: 'not a time' })
    const older = operation({ status: 'finished', created_at: iso(NOW - 120 * 60_000) })
    const full = Array.from({ length: GATE_POLL_PAGE_LIMIT }, (_, i) =>
      operation({ status: 'finished', created_at: iso(NOW - (i + 1) * 60_000) })
    )
    const reader = ScriptedReader.pages(
      [[unreadable, older], [], [...full.slice(1), older], full],
      () => ({
        ...unreadable
      })
    )
    const source = await afterFirstPoll(reader)
    await source.poll()
    // Three full pages (the first got back to what had been seen), and the operation was on none
    // of them: read by id.
    expect(reader.calls).toEqual(['list top', 'list c2', 'list c3', `get ${unreadable.id}`])
  })

  it('an operation that is final is read no more, by list or by id', async () => {
    const history = historyOf(1000)
    const deep = history.add(GATE_MAX_POLL_PAGES * GATE_POLL_PAGE_LIMIT + 50.5, {
      status: 'running'
    })
    const { source } = gate(history)
    await source.poll()
    history.set(deep.id, 'finished')
    await source.poll()
    history.calls.length = 0
    await source.poll()
    // Nothing pending: one page from the top, for operations started since.
    expect(history.calls).toEqual(['list top'])
    expect(source.operations.map((op) => [op.id, op.status])).toEqual([[deep.id, 'finished']])
  })

  it('at most 20 pending operations read by id a poll, those read longest ago first', async () => {
    const history = historyOf(1000)
    const deep = Array.from({ length: GATE_MAX_READS_BY_ID + 5 }, (_, i) =>
      history.add(GATE_MAX_POLL_PAGES * GATE_POLL_PAGE_LIMIT + 10.5 + i, { status: 'running' })
    )
    const { source } = gate(history)
    await source.poll()
    const readById = async () => {
      history.calls.length = 0
      await source.poll()
      return history.calls.filter((call) => call.startsWith('get')).map((call) => call.slice(4))
    }
    const ids = deep.map((op) => op.id)
    expect(await readById()).toEqual(ids.slice(0, 20))
    // The five never read by id first, then those read longest ago.
    expect(await readById()).toEqual([...ids.slice(20), ...ids.slice(0, 15)])
    expect(await readById()).toEqual([...ids.slice(15, 20), ...ids.slice(0, 15)])
  })
})

describe('ProjectGateSource: what the first read warns about', () => {
  it('an operation without a readable creation time: one warning, however many there are', async () => {
    const reader = ScriptedReader.pages([
      [
        operation({ status: 'running', created_at: 'not a time' }),
        operation({ status: 'running', created_at: 'nor this' })
      ],
      []
    ])
    const { source, warnings } = gate(reader)
    await source.poll()
    const [first] = source.operations
    expect(source.operations).toHaveLength(2)
    expect(warnings).toEqual([
      `Project gate: operation ${first.id} has no readable created_at ("not a time"); such operations count as recent and are waited on`
    ])
  })

  it('an operation without any creation time: the warning quotes it as empty', async () => {
    const timeless = operation({ status: 'running', created_at: undefined })
    const { source, warnings } = gate(ScriptedReader.pages([[timeless], []]))
    await source.poll()
    expect(source.operations).toEqual([timeless])
    expect(warnings).toEqual([
      `Project gate: operation ${timeless.id} has no readable created_at (""); such operations count as recent and are waited on`
    ])
  })

  it('a page cap reached with no readable time: the warning says how many, with no span', async () => {
    const pages = Array.from({ length: GATE_MAX_DISCOVERY_PAGES + 1 }, () => [
      operation({ status: 'finished', created_at: 'not a time' })
    ])
    const reader = ScriptedReader.pages(pages)
    const { source, warnings } = gate(reader)
    await source.poll()
    expect(warnings.at(-1)).toBe(
      "Project gate: read 20 operations in 20 pages, and stopped there (the page cap); older ones, up to 24 h before the newest, were not read: the project's computes and branches stand for them, each idle or ready with nothing pending"
    )
  })

  it('a page cap reached with one readable time: the span is that time', async () => {
    const at = NOW - 60_000
    const pages = Array.from({ length: GATE_MAX_DISCOVERY_PAGES + 1 }, (_, i) => [
      operation({ status: 'finished', created_at: i === 3 ? iso(at) : 'not a time' })
    ])
    const { source, warnings } = gate(ScriptedReader.pages(pages))
    await source.poll()
    expect(warnings.at(-1)).toContain(`, created from ${iso(at)} to ${iso(at)}, and stopped there`)
  })

  it('a cursor handed out twice ends the first read, with a warning', async () => {
    const reader = ScriptedReader.pages([[operation({ status: 'running' })]])
    const pageWithCursor = reader.listOperations.bind(reader)
    reader.listOperations = async (projectId, query) => ({
      ...(await pageWithCursor(projectId, query)),
      pagination: { cursor: 'same' }
    })
    const { source, warnings } = gate(reader)
    await source.poll()
    expect(reader.calls).toEqual(['list top', 'list same'])
    expect(warnings).toEqual([
      "Project gate: the API's list of operations stopped at a page cursor handed out twice; the project's computes and branches stand for what lies past it"
    ])
    expect(source.operations).toHaveLength(1)
  })
})
