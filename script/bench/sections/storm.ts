/*
 * Storm: one gate at the default interval (5 s); every request fails from 4 s after its start
 * for 30 s or 120 s (429 with or without Retry-After, 503, connection resets, requests that get no
 * answer until the action's own limit cuts them), and its operation is
 * final 2 s after the trouble ends. Goals: no two requests closer than the interval, at most one
 * request per interval during the trouble, the first request after it within 3 intervals (or the
 * Retry-After plus one interval), the exit within that plus one interval. Every storm of a run at
 * once (lone gates, each with its own server), STORM_RUNS runs (3).
 */
import type { Fault } from '../../../__tests__/support/neon/faults.ts'
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import { runBundle } from '../../../__tests__/support/bundles/run-bundle.ts'
import { type Row, withServer } from '../common.ts'
import { KEYS, PROJECT } from '../../../__tests__/support/neon/ids.ts'

const STORM_RUNS = Number(process.env.STORM_RUNS ?? 3)
const INTERVAL_MS = 5000
const STORMS: [string, Fault, number][] = [
  ['429 without Retry-After', { kind: 'status', status: 429 }, 0],
  ['429 with Retry-After: 12', { kind: 'status', status: 429, retryAfter: '12' }, 12_000],
  ['503', { kind: 'status', status: 503 }, 0],
  ['connection resets', { kind: 'drop' }, 0],
  ['time-outs (no answer)', { kind: 'slow', delayMs: 300_000 }, 0]
]

async function storm(fault: Fault, stormMs: number) {
  const world = demoWorld()
  const started = Date.now()
  const stormStart = started + 4000
  const stormEnd = stormStart + stormMs
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    createdAt: started,
    timeline: [{ status: 'running', ms: stormEnd + 2000 - started }, { status: 'finished' }]
  })
  return withServer(world, {}, async (server) => {
    server.addFault({ ...fault, from: stormStart, until: stormEnd })
    const outcome = await runBundle(
      {
        api_key: KEYS.organization,
        project_id: PROJECT,
        operation_id: op.id,
        api_host: server.apiHost,
        timeout: '5m'
      },
      { killAfterMs: 400_000 }
    )
    const times = server.requests.map((request) => request.at)
    return {
      outcome: outcome.outputs.outcome,
      during: times.filter((at) => at >= stormStart && at < stormEnd).length,
      smallestGap: Math.min(...times.slice(1).map((at, i) => at - times[i])),
      nextAfter: (times.find((at) => at >= stormEnd) ?? Infinity) - stormEnd,
      exitAfter: started + outcome.durationMs - stormEnd
    }
  })
}

export async function storms(row: Row): Promise<void> {
  const cases = [30_000, 120_000].flatMap((stormMs) =>
    STORMS.map(([name, fault, retryAfterMs]) => ({ name, fault, retryAfterMs, stormMs }))
  )
  const results = await Promise.all(
    Array.from({ length: STORM_RUNS }, () =>
      Promise.all(cases.map((each) => storm(each.fault, each.stormMs)))
    )
  )
  cases.forEach(({ name, stormMs, retryAfterMs }, i) => {
    const runs = results.map((run) => run[i])
    const boundMs = Math.max(3 * INTERVAL_MS, retryAfterMs + INTERVAL_MS)
    const seconds = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(1)).join(', ')
    row(
      `storm: ${stormMs / 1000} s of ${name}, interval 5 s, ${runs.length} runs`,
      `next request ${seconds(runs.map((run) => run.nextAfter))} s after it (goal ≤ ${boundMs / 1000} s); exit ${seconds(runs.map((run) => run.exitAfter))} s after it (goal ≤ ${(boundMs + INTERVAL_MS) / 1000} s)`,
      `requests during it ${runs.map((run) => run.during).join(', ')} (goal ≤ ${Math.ceil(stormMs / INTERVAL_MS)}); smallest gap ${seconds(runs.map((run) => run.smallestGap))} s (goal ≥ 5); ${[...new Set(runs.map((run) => run.outcome))].join(', ')}`
    )
  })
}
