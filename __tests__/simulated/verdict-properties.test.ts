/*
 * The branch gate's verdict comes from the state, never from the clock (issue 58): invariants over
 * generated operation histories, each run in process over the local API server on simulated time.
 * A history is a list of operations on the gated branch, newest first, created within the hour
 * before the first asking: on one of a few computes (any action on them) or on the branch itself
 * (an action without a compute), each final (finished, skipped, error, cancelled) or still in
 * flight (running, failed and retried). Properties:
 * - the same history asked at t, t + 1 h and t + 23 h gives the same verdict;
 * - a failed operation (`error`) added as the newest on a compute never turns a red verdict green,
 *   and never passes;
 * - the verdict is the one the state gives: red exactly when an `error` is newer on its compute
 *   (or of its action) than anything that succeeded there, else a timeout while something is in
 *   flight, else green.
 * The seed is fixed so that a failure is reproducible; a case it found stays below as a plain test.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { PROJECT } from '../support/neon/ids.js'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'

const BRANCH = 'br-props-000001'
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const STATUSES = ['finished', 'skipped', 'error', 'cancelled', 'running', 'failed'] as const
const COMPUTES = ['ep-read-write-000001', 'ep-replica-000001', undefined] as const
const ACTIONS = ['start_compute', 'suspend_compute', 'apply_config', 'create_branch'] as const

interface Listed {
  status: (typeof STATUSES)[number]
  compute: (typeof COMPUTES)[number]
  action: (typeof ACTIONS)[number]
}

const listedArbitrary: fc.Arbitrary<Listed> = fc.record({
  status: fc.constantFrom(...STATUSES),
  compute: fc.constantFrom(...COMPUTES),
  action: fc.constantFrom(...ACTIONS)
})
/** Newest first, at most 8. */
const historyArbitrary = fc.array(listedArbitrary, { maxLength: 8 })

/** A world whose branch holds `history`, newest first, one a minute apart, the newest 1 min old. */
function worldWith(history: Listed[]) {
  const setup = simulatedWorld({ history: 0 })
  setup.world.addBranch(PROJECT, { id: BRANCH, name: 'props/branch' })
  const now = setup.time.wallNow()
  history.forEach((listed, index) => {
    const final = listed.status !== 'running' && listed.status !== 'failed'
    setup.world.addOperation(PROJECT, {
      action: listed.action,
      branchId: BRANCH,
      endpointId: listed.compute,
      createdAt: now - (index + 1) * MINUTE,
      error: listed.status === 'error' ? 'out of capacity' : undefined,
      timeline: final
        ? [{ status: 'running', ms: 20_000 }, { status: listed.status }]
        : [{ status: listed.status }]
    })
  })
  return setup
}

/** Moves simulated time (the API's clock with it) on by `ms`. */
async function later(setup: ReturnType<typeof worldWith>, ms: number): Promise<void> {
  setup.time.at(setup.time.now() + ms, () => undefined)
  await setup.time.run()
}

/** The verdict of the branch gate on the world as it is now: its outcome and what failed. */
async function verdict(setup: ReturnType<typeof worldWith>) {
  const run = await runSimulated(setup, {
    project_id: PROJECT,
    branch_id: BRANCH,
    timeout: '30s'
  })
  const failed = (run.report.recentFailures ?? [])
    .filter((failure) => failure.failsGate)
    .map((failure) => failure.operation.id)
  return { outcome: run.report.outcome, failed }
}

/** What the state says, as the contract words it (the model the gate is held to). */
function expectedOutcome(history: Listed[]): string {
  const targets = new Set<string>()
  let red = false
  for (const { status, compute, action } of history) {
    const target = compute ?? `action ${action}`
    if (targets.has(target)) continue
    if (status === 'error') red = true
    // Anything but a failure decides for the target (a cancelled one hides nothing behind it).
    if (status !== 'error' && status !== 'cancelled') targets.add(target)
  }
  if (red) return 'failure'
  return history.some(({ status }) => status === 'running' || status === 'failed')
    ? 'timeout'
    : 'success'
}

const RUNS = { seed: 58, numRuns: 40, endOnFailure: true }

describe('the branch gate: the same state gives the same verdict, whenever it is asked', () => {
  it('asked at t, t + 1 h and t + 23 h: the same verdict, and the one the state gives', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, async (history) => {
        const setup = worldWith(history)
        const first = await verdict(setup)
        expect(first.outcome).toBe(expectedOutcome(history))
        await later(setup, HOUR)
        expect(await verdict(setup)).toEqual(first)
        await later(setup, 22 * HOUR)
        expect(await verdict(setup)).toEqual(first)
      }),
      RUNS
    )
  })

  it('an error added as the newest on a compute never passes, and never turns red green', async () => {
    await fc.assert(
      fc.asyncProperty(
        historyArbitrary,
        fc.constantFrom(...COMPUTES.filter(Boolean)),
        fc.constantFrom(...ACTIONS),
        async (history, compute, action) => {
          const before = await verdict(worldWith(history))
          const failed: Listed = { status: 'error', compute, action }
          const after = await verdict(worldWith([failed, ...history]))
          expect(after.outcome).toBe('failure')
          if (before.outcome === 'failure') expect(after.failed.length).toBeGreaterThan(0)
        }
      ),
      RUNS
    )
  })

  it("the issue's case: a compute that failed to start 20 minutes ago, asked again 20 minutes later, fails both times", async () => {
    const history: Listed[] = [
      { status: 'error', compute: 'ep-read-write-000001', action: 'start_compute' },
      { status: 'finished', compute: undefined, action: 'create_branch' }
    ]
    const setup = worldWith(history)
    await later(setup, 19 * MINUTE)
    expect((await verdict(setup)).outcome).toBe('failure')
    await later(setup, 20 * MINUTE)
    expect((await verdict(setup)).outcome).toBe('failure')
  })

  it('a finished start_compute after a failed suspend_compute on the same compute passes', async () => {
    const history: Listed[] = [
      { status: 'finished', compute: 'ep-read-write-000001', action: 'start_compute' },
      { status: 'error', compute: 'ep-read-write-000001', action: 'suspend_compute' }
    ]
    expect((await verdict(worldWith(history))).outcome).toBe('success')
  })
})
