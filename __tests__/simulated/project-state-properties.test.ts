/*
 * The project gate (no branch_id) past its first read (issue 65, contract turn 10): that read goes
 * back 24 h before the newest operation, or to its page cap; for what it did not read, the
 * project's own state decides, never an operation's age. Invariants over generated worlds, each run
 * in process over the local API server on simulated time.
 *
 * A world is consistent, as the live API's is: each compute (and each branch, for its actions
 * without a compute) runs one operation at a time, so its operations are final but for a newest
 * stretch: one running or retrying for good (created seconds to days before the newest operation of
 * the project), and those queued behind it (`scheduling`). The API shows a compute with one in
 * flight unsettled (`init` or a change pending) and the others idle or active; a branch being
 * created `init`, being reset `resetting`, the others ready or archived. Ages and spacings reach
 * both sides of 24 h (exactly 24 h too) and ties; a busy compute's finished history and a server
 * that caps pages at 1 to 5 operations (or not at all) put the 20-page cap below and above what
 * the 24 h read needs.
 *
 * The oracle does not ask how far the gate read: in a consistent world the operations and the state
 * say the same thing, so the verdict is a timeout exactly while an operation of the project is not
 * final, at any age, and success otherwise (errors of the past are warnings on this gate). A warning
 * never stands for a lost timeout, and nothing settled times out. Seeds: support/property-runs.ts.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { MAIN_BRANCH, PROJECT } from '../support/neon/ids.js'
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
    { arbitrary: fc.constant(null), weight: 4 },
    { arbitrary: fc.record({ index: fc.nat(4), status: fc.constantFrom(...STUCK) }), weight: 1 }
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
    count: fc.oneof(fc.nat(5), fc.integer({ min: 20, max: 60 })),
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
}

/**
 * A target's operations, newest first, on the world's clock: queued behind the stuck one, the stuck
 * one, and final ones, each ended before the next newer one of its target was created.
 */
function place(
  target: Target,
  anchor: number,
  actionAt: (index: number) => string | undefined
): Placed[] {
  const stuckAt = target.stuck ? Math.min(target.stuck.index, target.planned.length - 1) : -1
  let createdAt = anchor - target.startMs
  let endBy = anchor
  return target.planned.map((planned, index) => {
    const time = createdAt
    createdAt -= planned.gapMs
    const status =
      index < stuckAt ? 'scheduling' : index === stuckAt ? target.stuck!.status : planned.status
    const tookMs = Math.min(planned.tookMs, endBy - time)
    endBy = time
    return { createdAt: time, status, action: actionAt(index) ?? planned.action, tookMs }
  })
}

const isFinal = (status: string) => (FINAL as readonly string[]).includes(status)
const inFlight = (operations: Placed[]) => operations.some(({ status }) => !isFinal(status))

/** What ran where: a branch, and the compute it ran on (none for a branch's own actions). */
interface Group {
  branchId: string
  endpointId?: string
  operations: Placed[]
}

/** The scenario's operations, by where they ran (the busy compute first, then each branch's own). */
function groupsOf(scenario: Scenario, anchor: number): Group[] {
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
      ? place(target, anchor, (at) => (at === last ? 'create_branch' : 'reset_branch'))
      : []
    return { branchId: BRANCHES[index], operations }
  })
  const computes = scenario.computes.map(({ branch, target }, index) => ({
    branchId: COMPUTE_BRANCHES[branch],
    endpointId: `ep-prop-00000${index}`,
    operations: place(target, anchor, () => undefined)
  }))
  return [
    { branchId: MAIN_BRANCH, endpointId: 'ep-busy-000001', operations: busyOperations },
    ...own,
    ...computes
  ]
}

/**
 * The world of the scenario: each branch created before anything ran on it, and shown as what it
 * runs says; each compute the same.
 */
function worldOf(scenario: Scenario) {
  const setup = simulatedWorld({ history: 0 })
  const { world } = setup
  world.operationsPageCap = scenario.pageCap
  const anchor = world.now() - scenario.anchorAgeMs
  const groups = groupsOf(scenario, anchor)
  BRANCHES.forEach((branchId, index) => {
    const ranThere = groups.filter((group) => group.branchId === branchId)
    const times = ranThere.flatMap((group) => group.operations.map((op) => op.createdAt))
    const own = groups[1 + index].operations
    const stuck = own.find(({ status }) => !isFinal(status) && status !== 'scheduling')
    const state = stuck
      ? { current: stuck.action === 'create_branch' ? 'init' : 'resetting' }
      : BRANCH_SETTLED[(scenario.branches[index]?.shown ?? 0) % BRANCH_SETTLED.length]
    const createdAt = Math.min(anchor, ...times) - MINUTE
    world.addBranch(PROJECT, { id: branchId, name: `props/${index + 1}`, createdAt, state })
  })
  scenario.computes.forEach(({ target }, index) => {
    const { branchId, endpointId, operations } = groups[1 + BRANCHES.length + index]
    const shown = inFlight(operations) ? COMPUTE_BUSY : COMPUTE_SETTLED
    world.addCompute(PROJECT, {
      id: endpointId!,
      branchId,
      ...shown[target.shown % shown.length]
    })
  })
  for (const { branchId, endpointId, operations } of groups) {
    for (const operation of operations) {
      world.addOperation(PROJECT, {
        action: operation.action,
        branchId,
        endpointId,
        createdAt: operation.createdAt,
        error: operation.status === 'error' ? 'out of capacity' : undefined,
        timeline:
          !isFinal(operation.status) || operation.tookMs < 1
            ? [{ status: operation.status }]
            : [{ status: 'running', ms: operation.tookMs }, { status: operation.status }]
      })
    }
  }
  return { setup, operations: groups.flatMap((group) => group.operations) }
}

/**
 * Which edges a world reaches, from the world alone (not the gate's reading): the first read's
 * 24 h (before the newest operation) and its page cap, each with work in flight on either side.
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
    edges.add(past ? 'in flight past 24 h' : 'in flight within 24 h')
    // A page's worth of older-than-24 h operations above it: the read stopped before it.
    if (past && !capFirst && position - within >= cap) edges.add('in flight, unread past 24 h')
    if (!past && position >= MAX_FIRST_READ_PAGES * cap) edges.add('in flight, unread past cap')
    if (past && cap === Infinity) edges.add('in flight, read past 24 h')
  })
  return [...edges]
}

describe('the project gate: what its first read did not reach, the state decides, never an age', () => {
  it('a timeout exactly while an operation of the project is in flight, at any age; else success', async () => {
    const reached = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const { setup, operations } = worldOf(scenario)
        const run = await runSimulated(setup, { project_id: PROJECT, timeout: '30s' })
        const expected = inFlight(operations) ? 'timeout' : 'success'
        expect(run.report.outcome).toBe(expected)
        for (const edge of [...edgesOf(scenario, operations), expected]) {
          reached.set(edge, (reached.get(edge) ?? 0) + 1)
        }
      }),
      propertyRuns(6504, 100)
    )
    // The generators reach every edge, on both sides.
    expect([...reached.keys()].sort()).toEqual([
      'cap after 24 h',
      'cap before 24 h',
      'exactly 24 h',
      'in flight past 24 h',
      'in flight within 24 h',
      'in flight, read past 24 h',
      'in flight, unread past 24 h',
      'in flight, unread past cap',
      'success',
      'timeout'
    ])
  })
})
