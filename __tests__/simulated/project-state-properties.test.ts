/*
 * The project gate (no branch_id) past its first read (issue 65, contract turn 10): that read goes
 * back 24 h before the newest operation, or to its page cap; for what it did not read, the
 * project's own state decides, never an operation's age. Invariants over generated worlds, each run
 * in process over the local API server on simulated time.
 *
 * A world is consistent, as the live API's is: each compute (and each branch, for its actions
 * without a compute) runs one operation at a time, so its operations are final but for a newest
 * stretch: one running, retrying or cancelling (created seconds to days before the newest
 * operation of the project), and those queued behind it (`scheduling`). The API shows a compute with one in
 * flight unsettled (`init` or a change pending) and the others idle or active; a branch being
 * created `init`, being reset `resetting`, the others ready or archived. Ages and spacings reach
 * both sides of 24 h (exactly 24 h too) and ties; a busy compute's finished history and a server
 * that caps pages at 1 to 5 operations (or not at all) put the 20-page cap below and above what
 * the 24 h read needs.
 *
 * Some of the work in flight ends (finished) 0-10 s after the gate starts, its compute or branch
 * settling 0-3 s later: the state is read anew until it settles.
 *
 * The oracle does not ask how far the gate read: in a consistent world the operations and the state
 * say the same thing, so the verdict is a timeout exactly while an operation of the project stays in
 * flight, at any age, and success otherwise (errors of the past are warnings on this gate), never on
 * a read made before the last one in flight ended. A warning never stands for a lost timeout, and
 * nothing settled times out. That holds too where an operation in flight shares its created_at with
 * one across a page boundary (hiddenByTie): the list shows it on neither page, and the state decides
 * (the example below). Seeds: property-runs.ts.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { MAIN_BRANCH, PROJECT } from '../support/neon/ids.js'
import type { Step } from '../support/neon/records.js'
import { propertyRuns } from '../support/property-runs.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** The first read's look-back, and its page cap (src/wait/project-gate-source.ts). */
const LOOKBACK_MS = DAY
const MAX_FIRST_READ_PAGES = 20

const FINAL = ['finished', 'skipped', 'error', 'cancelled'] as const
const STUCK = ['running', 'failed', 'cancelling'] as const
const COMPUTE_ACTIONS = ['start_compute', 'suspend_compute', 'apply_config', 'check_availability']
/** The generated branches (main is the project's own). */
const BRANCHES = ['br-prop-000001', 'br-prop-000002'] as const
const COMPUTE_BRANCHES = [MAIN_BRANCH, ...BRANCHES]
/** How the API shows a compute: with an operation in flight, and with none. */
const COMPUTE_BUSY = [
  { current: 'init', pending: 'active' },
  { current: 'active', pending: 'idle' },
  { current: 'idle', pending: 'active' },
  { current: 'init' }
]
const COMPUTE_SETTLED = [{ current: 'idle' }, { current: 'active' }]
const BRANCH_SETTLED = [{ current: 'ready' }, { current: 'archived' }]

/** Spans that reach both sides of 24 h, exactly 24 h, and ties (0). */
const span = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 20 * SECOND }),
  fc.integer({ min: 20 * SECOND, max: 12 * HOUR }),
  fc.constantFrom(LOOKBACK_MS - 1, LOOKBACK_MS, LOOKBACK_MS + 1),
  fc.integer({ min: 23 * HOUR, max: 25 * HOUR }),
  fc.integer({ min: 1, max: 3 * DAY })
)

const plannedArbitrary = fc.record({
  /** Created this long before the next newer operation of its target. */
  gapMs: span,
  tookMs: fc.integer({ min: SECOND, max: 2 * HOUR }),
  status: fc.constantFrom(...FINAL),
  action: fc.constantFrom(...COMPUTE_ACTIONS)
})

/**
 * What one compute or branch ran, newest first, its newest operation `startMs` before the world's
 * anchor; `stuck`: the one in flight for good (newer ones queue behind it); `shown` picks its state.
 */
const targetArbitrary = fc.record({
  startMs: span,
  planned: fc.array(plannedArbitrary, { minLength: 1, maxLength: 5 }),
  stuck: fc.oneof(
    { arbitrary: fc.constant(null), weight: 2 },
    {
      arbitrary: fc.record({
        index: fc.nat(4),
        status: fc.constantFrom(...STUCK),
        /** When it ends (finished) after the gate started, if ever; the state settles `lagMs` later. */
        endsInMs: fc.option(fc.integer({ min: 0, max: 10 * SECOND }), { freq: 2 }),
        lagMs: fc.integer({ min: 0, max: 3 * SECOND })
      }),
      weight: 1
    }
  ),
  shown: fc.nat(3)
})

const scenarioArbitrary = fc.record({
  /** The age of the world's anchor: seconds, or hours to days. */
  anchorAgeMs: fc.oneof(
    fc.integer({ min: SECOND, max: 20 * SECOND }),
    fc.integer({ min: HOUR, max: 3 * DAY })
  ),
  computes: fc.array(fc.record({ branch: fc.nat(2), target: targetArbitrary }), { maxLength: 4 }),
  /** At most one target of actions without a compute per generated branch. */
  branches: fc.tuple(fc.option(targetArbitrary), fc.option(targetArbitrary)),
  /** Finished operations of one busy compute on main, `everyMs` apart. */
  busy: fc.record({
    count: fc.oneof(
      { arbitrary: fc.nat(5), weight: 1 },
      { arbitrary: fc.integer({ min: 20, max: 60 }), weight: 2 }
    ),
    everyMs: fc.constantFrom(10 * SECOND, 30 * SECOND, 10 * MINUTE, HOUR, 3 * HOUR),
    startMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 * SECOND }), span),
    newestError: fc.boolean()
  }),
  /** The most operations a page of the server holds. */
  pageCap: fc.constantFrom(1, 1, 2, 3, 5, Infinity)
})

type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never
type Target = Scenario['computes'][number]['target']

/** One operation of the world. */
interface Placed {
  createdAt: number
  status: string
  action: string
  tookMs: number
  /** One not final now: when it ends (`finished`), on the world's clock, if ever. */
  endsAt?: number
}

/**
 * A target's operations, newest first, on the world's clock: queued behind the stuck one, the stuck
 * one, and final ones, each ended before the next newer one of its target was created.
 */
function place(
  target: Target,
  { anchor, now }: Clocks,
  actionAt: (index: number) => string | undefined
): Placed[] {
  const { stuck } = target
  const stuckAt = stuck ? Math.min(stuck.index, target.planned.length - 1) : -1
  const endsAt = stuck?.endsInMs == null ? undefined : now + stuck.endsInMs
  let createdAt = anchor - target.startMs
  let endBy = anchor
  return target.planned.map((planned, index) => {
    const time = createdAt
    createdAt -= planned.gapMs
    const status =
      index < stuckAt ? 'scheduling' : index === stuckAt ? stuck!.status : planned.status
    const tookMs = Math.min(planned.tookMs, endBy - time)
    endBy = time
    const action = actionAt(index) ?? planned.action
    return { createdAt: time, status, action, tookMs, ...(index <= stuckAt ? { endsAt } : {}) }
  })
}

const isFinal = (status: string) => (FINAL as readonly string[]).includes(status)
const inFlight = (operations: Placed[]) => operations.some(({ status }) => !isFinal(status))
const neverEnds = (operation: Placed) =>
  !isFinal(operation.status) && operation.endsAt === undefined

/** The world's clock when the gate starts, and its anchor (the scenario's operations are older). */
interface Clocks {
  now: number
  anchor: number
}

/** What ran where: a branch, and the compute it ran on (none for a branch's own actions). */
interface Group {
  branchId: string
  endpointId?: string
  operations: Placed[]
}

/** The scenario's operations, by where they ran (the busy compute first, then each branch's own). */
function groupsOf(scenario: Scenario, clocks: Clocks): Group[] {
  const { anchor } = clocks
  const { busy } = scenario
  const busyOperations = Array.from({ length: busy.count }, (_, index) => ({
    createdAt: anchor - busy.startMs - index * busy.everyMs,
    status: index === 0 && busy.newestError ? 'error' : 'finished',
    action: COMPUTE_ACTIONS[index % COMPUTE_ACTIONS.length],
    // Ended before the anchor, and before the next one began.
    tookMs: Math.min(2 * SECOND, index === 0 ? busy.startMs : busy.everyMs)
  }))
  const own = scenario.branches.map((target, index) => {
    const last = (target?.planned.length ?? 0) - 1
    // The oldest created the branch; the newer ones reset it.
    const operations = target
      ? place(target, clocks, (at) => (at === last ? 'create_branch' : 'reset_branch'))
      : []
    return { branchId: BRANCHES[index], operations }
  })
  const computes = scenario.computes.map(({ branch, target }, index) => ({
    branchId: COMPUTE_BRANCHES[branch],
    endpointId: `ep-prop-00000${index}`,
    operations: place(target, clocks, () => undefined)
  }))
  return [
    { branchId: MAIN_BRANCH, endpointId: 'ep-busy-000001', operations: busyOperations },
    ...own,
    ...computes
  ]
}

/**
 * The world of the scenario: each branch created before anything ran on it, each branch and
 * compute shown as what it runs says, and settled `lagMs` after the work in flight on it ends.
 */
function worldOf(scenario: Scenario) {
  const setup = simulatedWorld({ history: 0 })
  const { world, time } = setup
  world.operationsPageCap = scenario.pageCap
  const now = world.now()
  const clocks = { now, anchor: now - scenario.anchorAgeMs }
  const groups = groupsOf(scenario, clocks)
  /** Shows `shown` now and, once its work in flight ends, `settled`. */
  const settleLater = (target: Target | null, record: object, settled: object) => {
    const endsInMs = target?.stuck?.endsInMs
    if (endsInMs == null) return
    time.at(time.now() + endsInMs + target!.stuck!.lagMs, () => Object.assign(record, settled))
  }
  BRANCHES.forEach((branchId, index) => {
    const target = scenario.branches[index]
    const ranThere = groups.filter((group) => group.branchId === branchId)
    const times = ranThere.flatMap((group) => group.operations.map((op) => op.createdAt))
    const own = groups[1 + index].operations
    const stuck = own.find(({ status }) => !isFinal(status) && status !== 'scheduling')
    const settled = BRANCH_SETTLED[(target?.shown ?? 0) % BRANCH_SETTLED.length]
    const createdAt = Math.min(clocks.anchor, ...times) - MINUTE
    const record = world.addBranch(PROJECT, {
      id: branchId,
      name: `props/${index + 1}`,
      createdAt,
      state: stuck ? { current: stuck.action === 'create_branch' ? 'init' : 'resetting' } : settled
    })
    if (stuck) settleLater(target, record, { state: settled })
  })
  scenario.computes.forEach(({ target }, index) => {
    const { branchId, endpointId, operations } = groups[1 + BRANCHES.length + index]
    const settled = {
      pending: undefined,
      ...COMPUTE_SETTLED[target.shown % COMPUTE_SETTLED.length]
    }
    const busy = inFlight(operations)
    const shown = busy ? COMPUTE_BUSY[target.shown % COMPUTE_BUSY.length] : settled
    const record = world.addCompute(PROJECT, { id: endpointId!, branchId, ...shown })
    if (busy) settleLater(target, record, settled)
  })
  for (const { branchId, endpointId, operations } of groups) {
    for (const operation of operations) {
      world.addOperation(PROJECT, {
        action: operation.action,
        branchId,
        endpointId,
        createdAt: operation.createdAt,
        error: operation.status === 'error' ? 'out of capacity' : undefined,
        timeline: timelineOf(operation)
      })
    }
  }
  return { setup, operations: groups.flatMap((group) => group.operations), now }
}

/** A final one ran `tookMs` before it ended; one in flight runs until `endsAt`, or for good. */
function timelineOf({ status, tookMs, endsAt, createdAt }: Placed): Step[] {
  if (endsAt !== undefined) return [{ status, ms: endsAt - createdAt }, { status: 'finished' }]
  if (!isFinal(status) || tookMs < 1) return [{ status }]
  return [{ status: 'running', ms: tookMs }, { status }]
}

/**
 * Which edges a world reaches, from the world alone (not the gate's reading): the first read's
 * 24 h (before the newest operation) and its page cap, each with work in flight on either side
 * that ends during the run or never.
 */
function edgesOf(scenario: Scenario, operations: Placed[]): string[] {
  const cap = scenario.pageCap
  const newestFirst = [...operations].sort((a, b) => b.createdAt - a.createdAt)
  const horizon = (newestFirst[0]?.createdAt ?? 0) - LOOKBACK_MS
  const within = newestFirst.filter((operation) => operation.createdAt >= horizon).length
  const capFirst = within > MAX_FIRST_READ_PAGES * cap
  const edges = new Set([capFirst ? 'cap before 24 h' : 'cap after 24 h'])
  if (newestFirst.some((operation) => operation.createdAt === horizon)) edges.add('exactly 24 h')
  newestFirst.forEach((operation, position) => {
    if (isFinal(operation.status)) return
    const past = operation.createdAt < horizon
    const ends = operation.endsAt === undefined ? 'never ends' : 'ends during the run'
    edges.add(`in flight ${past ? 'past' : 'within'} 24 h, ${ends}`)
    // A page's worth of older-than-24 h operations above it: the read stopped before it.
    if (past && !capFirst && position - within >= cap) edges.add(`unread past 24 h, ${ends}`)
    if (!past && position >= MAX_FIRST_READ_PAGES * cap) edges.add(`unread past the cap, ${ends}`)
    if (past && cap === Infinity) edges.add('read past 24 h')
  })
  return [...edges]
}

/**
 * Whether one in flight shares its created_at with an operation across a page boundary (pages of
 * `pageCap`): the cursor is that time (spec 4.3) and the next page holds only older ones, so the
 * list may never show it: only the state can.
 */
function hiddenByTie(scenario: Scenario, operations: Placed[]): boolean {
  const times = operations.map((operation) => operation.createdAt).sort((a, b) => b - a)
  const boundaries = new Set(
    times.filter((time, index) => (index + 1) % scenario.pageCap === 0 && times[index + 1] === time)
  )
  return operations.some(({ status, createdAt }) => !isFinal(status) && boundaries.has(createdAt))
}

describe('the project gate: what its first read did not reach, the state decides, never an age', () => {
  // Many generated runs: over Jest's 30 s on a busy machine (a fresh-clone CI run), seconds alone.
  it('a timeout exactly while an operation of the project is in flight for good, at any age; else success, never before the last one ended', async () => {
    const reached = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const { setup, operations, now } = worldOf(scenario)
        const run = await runSimulated(setup, { project_id: PROJECT, timeout: '30s' })
        const expected = operations.some(neverEnds) ? 'timeout' : 'success'
        expect(run.report.outcome).toBe(expected)
        // A pass rests on a read made once the last operation in flight had ended.
        const lastEnd = Math.max(0, ...operations.map(({ endsAt }) => (endsAt ?? now) - now))
        const lastRead = Math.max(...run.requests.map((request) => request.t))
        if (expected === 'success') expect(lastRead).toBeGreaterThanOrEqual(lastEnd)
        const tie = hiddenByTie(scenario, operations)
          ? ['in flight, hidden by a tie at a page end']
          : []
        for (const edge of [...edgesOf(scenario, operations), ...tie, expected]) {
          reached.set(edge, (reached.get(edge) ?? 0) + 1)
        }
      }),
      propertyRuns(6504, 200)
    )
    // The generators reach every edge, on both sides.
    expect([...reached.keys()].sort()).toEqual([
      'cap after 24 h',
      'cap before 24 h',
      'exactly 24 h',
      'in flight past 24 h, ends during the run',
      'in flight past 24 h, never ends',
      'in flight within 24 h, ends during the run',
      'in flight within 24 h, never ends',
      'in flight, hidden by a tie at a page end',
      'read past 24 h',
      'success',
      'timeout',
      'unread past 24 h, ends during the run',
      'unread past 24 h, never ends',
      'unread past the cap, ends during the run',
      'unread past the cap, never ends'
    ])
  }, 120_000)
})

describe('a tie at a page boundary hides one in flight from the list, not from the state', () => {
  const ended = { gapMs: 0, tookMs: SECOND, status: 'finished' as const, action: 'apply_config' }
  /** Two computes, each one operation an hour old at the same created_at, on pages of one. */
  const tied: Scenario = {
    anchorAgeMs: HOUR,
    computes: [
      { branch: 0, target: { startMs: 0, planned: [ended], stuck: null, shown: 0 } },
      {
        branch: 0,
        target: {
          startMs: 0,
          planned: [ended],
          stuck: { index: 0, status: 'running', endsInMs: null, lagMs: 0 },
          shown: 0
        }
      }
    ],
    branches: [null, null],
    busy: { count: 0, everyMs: HOUR, startMs: 0, newestError: false },
    pageCap: 1
  }

  // The second page starts below the first one's created_at: the running one is never listed, and
  // the read gets to the list's end. Its compute, init and pending active, keeps the gate open (the
  // gate passed here before it read the state after a first read of more than one page).
  it('the gate waits on it: a timeout', async () => {
    const { setup, operations } = worldOf(tied)
    expect(hiddenByTie(tied, operations)).toBe(true)
    const run = await runSimulated(setup, { project_id: PROJECT, timeout: '30s' })
    expect(run.report.outcome).toBe('timeout')
  })
})
