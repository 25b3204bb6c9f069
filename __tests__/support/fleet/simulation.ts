/*
 * The fleet's gates as both front ends run them (the simulated gate: inputs, request core, retry
 * policy, pace, wait loop) on a simulated clock and a simulated network: every gate of a fleet is
 * the real code, and only time and the server are models. The server's limits are the local API
 * server's own (support/neon/limits.ts): sliding windows per account and per route, a 429 not
 * counted, Retry-After in whole seconds until a slot frees. A change to the pacing shows up here
 * with no second copy of it.
 *
 * Time only moves when every gate waits: before each event, the microtasks of the last one settle
 * (one setImmediate), so a run of minutes takes a second or two.
 */
import type { HttpGet } from '../../../src/api/http-transport.js'
import type { RunReport } from '../../../src/report/report.js'
import { type SimulatedHandling, simulatedNetwork } from '../neon/simulated-network.ts'
import { operationJson } from '../neon/api-json.ts'
import { simulatedGate } from '../simulated-gate.ts'
import { EPOCH, type SimulatedTime } from '../time/clock.ts'
import { KEYS, PROJECT } from '../neon/ids.ts'

/** Up to this much more on each way, at random: a machine busy with 90 bundles answers late. */
const HALF_TRIP_JITTER_MS = Number(process.env.HALF_TRIP_JITTER_MS ?? 10)

/**
 * A network whose server is `answer(now)`; each way takes 1 ms plus up to HALF_TRIP_JITTER_MS,
 * drawn from `latency` (one source per run, so that a seed gives the same run whatever ran before).
 */
export function simulatedTransport(
  time: SimulatedTime,
  latency: () => number,
  answer: (now: number) => SimulatedHandling
): HttpGet {
  return simulatedNetwork(time, (_request, now) => answer(now), {
    jitterMs: HALF_TRIP_JITTER_MS,
    draw: latency
  })
}

/**
 * The answer to a read of one operation that runs from the epoch until `finalAt` (simulated
 * time), as the local API server words it.
 */
export function operationAnswer(id: string, finalAt: number, now: number): SimulatedHandling {
  const operation = operationJson(
    {
      id,
      projectId: PROJECT,
      branchId: 'br-main-000001',
      action: 'start_compute',
      createdAt: EPOCH,
      timeline: [{ status: 'running', ms: finalAt }, { status: 'finished' }]
    },
    EPOCH + now
  )
  return { kind: 'answer', answer: { status: 200, body: { operation } } }
}

/** Starts the action's gate() on operation `id`, as `node dist/index.js` would with these inputs. */
export function startGate(
  time: SimulatedTime,
  options: {
    id: string
    intervalMs: number
    timeoutMs: number
    random: () => number
    transport: HttpGet
  }
): Promise<RunReport> {
  const values: Record<string, string> = {
    api_key: KEYS.organization,
    project_id: PROJECT,
    operation_id: options.id,
    api_host: 'http://127.0.0.1:9/api/v2',
    interval: `${options.intervalMs}ms`,
    timeout: `${options.timeoutMs}ms`
  }
  return simulatedGate(time, values, options)
}
