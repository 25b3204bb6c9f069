/*
 * Fleet: the plan of __tests__/support/fleet/fleet-plan.ts (90 gates of one account, each on its own operation
 * of 40–60 intervals, 700 requests per sliding minute, interval 5 s: 1.5x the budget once all have
 * started), with real bundles against the local API server. A run takes about 5 minutes; with
 * FLEET_SPEEDUP=5 (interval 1 s, a 12 s window) about one, but it does not measure the gates'
 * memory of a 429 (fleet-plan.ts says why).
 *
 * - Starts spread over 20 intervals, as fleets of matrix jobs start, with and without Retry-After
 *   (the seconds until the window frees a slot): FLEET_RUNS runs of each (3), seeds from
 *   FLEET_SEED (1).
 * - Packed starts (4 intervals): reported beside its floor, with no goal (FLEET_PACKED_RUNS, 1).
 *
 * Beside each run, on the same plan: the simulation (npm run simulate) and the honest baseline, a
 * naive poller that polls at a fixed interval and meets a 429 by polling again at the next tick.
 * A run whose gates did not start on time (p90 of first request − planned start over 1 s) is
 * invalid: it is reported as such and not counted.
 */
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import type { Limits } from '../../../__tests__/support/neon/limits.ts'
import { BASE_PATH } from '../../../__tests__/support/neon/routes.ts'
import type { ApiServer } from '../../../__tests__/support/neon/server.ts'
import { runBundle } from '../../../__tests__/support/bundles/run-bundle.ts'
import { percentile, type Row, sleep, withServer } from '../common.ts'
import {
  FLEET_PER_SECOND_PER_ROUTE,
  FLEET_WINDOW,
  type FleetFigures,
  fleetFigures,
  type FleetGate,
  fleetPlan,
  PACKED_SPREAD_MS,
  SPREAD_MS
} from '../../../__tests__/support/fleet/fleet-plan.ts'
import { simulateFleet } from '../fleet-simulation.ts'
import { KEYS, PROJECT } from '../../../__tests__/support/neon/ids.ts'

const FLEET_RUNS = Number(process.env.FLEET_RUNS ?? 3)
const FLEET_SEED = Number(process.env.FLEET_SEED ?? 1)
const FLEET_PACKED_RUNS = Number(process.env.FLEET_PACKED_RUNS ?? 1)
/** Starts later than this (p90) make a run invalid: the machine, not the pacing, set its pace. */
const LATE_START_LIMIT_MS = 1000

/** A run's figures, and how late its gates started: p90 of first request − planned start, in ms. */
type FleetRun = FleetFigures & { lateP90: number }

async function naivePoller(server: ApiServer, id: string): Promise<boolean> {
  const url = `${server.apiHost}/projects/${PROJECT}/operations/${id}`
  const headers = { Authorization: `Bearer ${KEYS.organization}`, Accept: 'application/json' }
  const started = Date.now()
  for (let tick = 0; tick < 300; tick++) {
    await sleep(started + tick * FLEET_WINDOW.intervalMs - Date.now())
    const response = await fetch(url, { headers })
    if (response.status === 200) {
      const { operation } = (await response.json()) as { operation: { status: string } }
      if (operation.status === 'finished') return true
    } else {
      await response.body?.cancel()
    }
  }
  return false
}

async function fleetRun(
  kind: 'action' | 'naive',
  plan: FleetGate[],
  retryAfter: boolean
): Promise<FleetRun> {
  const world = demoWorld({ history: 0 })
  const ops = plan.map((gate) =>
    world.addOperation(PROJECT, {
      action: 'start_compute',
      timeline: [{ status: 'running', ms: gate.operationMs }, { status: 'finished' }]
    })
  )
  const limits: Partial<Limits> = {
    perMinute: FLEET_WINDOW.capacity,
    accountWindowMs: FLEET_WINDOW.windowMs,
    perSecondPerRoute: FLEET_PER_SECOND_PER_ROUTE,
    retryAfter: retryAfter ? 'seconds' : 'none'
  }
  return withServer(world, limits, async (server) => {
    const fleetStart = Date.now()
    const succeeded = await Promise.all(
      ops.map(async (op, i) => {
        await sleep(fleetStart + plan[i].startAt - Date.now())
        if (kind === 'naive') return naivePoller(server, op.id)
        const run = await runBundle(
          {
            api_key: KEYS.organization,
            project_id: PROJECT,
            operation_id: op.id,
            api_host: server.apiHost,
            interval: `${FLEET_WINDOW.intervalMs / 1000}s`,
            timeout: `${(300 * FLEET_WINDOW.intervalMs) / 1000}s`
          },
          { killAfterMs: 400 * FLEET_WINDOW.intervalMs }
        )
        return run.outputs.outcome === 'success'
      })
    )
    const pathOf = (id: string) => `${BASE_PATH}/projects/${PROJECT}/operations/${id}`
    const attempts = server.requests
      .filter((request) => request.status === 200 || request.status === 429)
      .map((request) => ({
        gate: request.path,
        at: request.at,
        admitted: request.status === 200,
        retryAfterMs: request.retryAfter ? Number(request.retryAfter) * 1000 : undefined
      }))
    const finals = ops.map((op, i) => ({
      gate: pathOf(op.id),
      finalAt: op.createdAt + plan[i].operationMs
    }))
    const late = ops.map(
      (op, i) =>
        (server.requests.find((request) => request.path === pathOf(op.id))?.at ?? Infinity) -
        (fleetStart + plan[i].startAt)
    )
    return {
      ...fleetFigures(attempts, finals, succeeded.filter((ok) => !ok).length),
      lateP90: percentile(late, 0.9)
    }
  })
}

async function scenario(
  row: Row,
  label: string,
  spreadMs: number,
  retryAfter: boolean,
  seed: number,
  goals: boolean
): Promise<void> {
  const plan = fleetPlan(seed, spreadMs)
  const action = await fleetRun('action', plan, retryAfter)
  const naive = await fleetRun('naive', plan, retryAfter)
  const simulated = await simulateFleet(seed, spreadMs, retryAfter)
  const valid = action.lateP90 <= LATE_START_LIMIT_MS
  const share = ((100 * action.limited) / action.requests).toFixed(1)
  const fewer = (naive.limited / Math.max(1, action.limited)).toFixed(1)
  const goal = (text: string) => (goals ? ` (goal ${text})` : '')
  row(
    `fleet, ${label}, ${retryAfter ? 'with' : 'without'} Retry-After, seed ${seed}${valid ? '' : ': INVALID, gates started late, not counted'}`,
    `action: ${action.limited} × 429 of ${action.requests} requests, ${action.perGate.toFixed(2)} a gate${goal(`≤ the floor + 0.25, ${(action.floorPerGate + 0.25).toFixed(2)}`)}, ${share} %${goal('≤ 4.6 %')}; ${action.failed} failed; lag median ${action.lagMedian.toFixed(1)}, p95 ${action.lagP95.toFixed(1)} intervals${goal('≤ 1, ≤ 2.2')}; floor ${action.floorPerGate.toFixed(2)} a gate; simulated on the same plan ${simulated.perGate.toFixed(2)}; starts p90 ${(action.lateP90 / 1000).toFixed(2)} s late`,
    `naive: ${naive.limited} × 429 of ${naive.requests} (${fewer}x the action's), ${naive.failed} failed; lag median ${naive.lagMedian.toFixed(1)}, p95 ${naive.lagP95.toFixed(1)}`
  )
}

export async function fleet(row: Row): Promise<void> {
  for (const retryAfter of [false, true]) {
    for (let seed = FLEET_SEED; seed < FLEET_SEED + FLEET_RUNS; seed++) {
      await scenario(row, 'starts over 20 intervals', SPREAD_MS, retryAfter, seed, true)
    }
  }
  for (let seed = FLEET_SEED; seed < FLEET_SEED + FLEET_PACKED_RUNS; seed++) {
    await scenario(row, 'packed starts (4 intervals)', PACKED_SPREAD_MS, false, seed, false)
  }
}
