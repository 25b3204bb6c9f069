/*
 * The gate as both front ends run it (gate-run.ts: inputs, request core, retry policy, pace, wait
 * loop) on a simulated clock and a simulated network: every gate of a fleet is the real code, and
 * only time and the server are models. The server's limits are the local API server's own
 * (script/servers/neon-api/limits.ts): sliding windows per account and per route, a 429 not
 * counted, Retry-After in whole seconds until a slot frees. A change to the pacing shows up here with no second copy of it.
 *
 * Time only moves when every gate waits: before each event, the microtasks of the last one settle
 * (one setImmediate), so a run of minutes takes a second or two.
 */
import { EventEmitter } from 'node:events'
import { CONTRACT_NAMING } from '../../src/domain/input-naming.js'
import type { HttpGet } from '../../src/api/http-transport.js'
import type { QueryDatabase } from '../../src/api/postgres.js'
import { RetryPolicy } from '../../src/api/retry-policy.js'
import type { Logger } from '../../src/domain/logger.js'
import { Redactor } from '../../src/domain/untrusted-text.js'
import type { RunReport } from '../../src/report/report.js'
import { addSecret, GateRun } from '../../src/gate/gate-run.js'
import { parseInputs } from '../../src/gate/inputs.js'
import {
  EPOCH,
  type SimulatedHandling,
  simulatedNetwork,
  type SimulatedTime
} from '../servers/simulated-network.ts'

/** Up to this much more on each way, at random: a machine busy with 90 bundles answers late. */
const HALF_TRIP_JITTER_MS = Number(process.env.HALF_TRIP_JITTER_MS ?? 10)
const KEY = 'napi_simulated_key'
const PROJECT = 'sim-project'
const silent = {
  info: () => undefined,
  warning: () => undefined,
  notice: () => undefined,
  debug: () => undefined
}

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

/** The answer to a read of one operation that runs until `finalAt` (simulated time). */
export function operationAnswer(id: string, finalAt: number, now: number): SimulatedHandling {
  const answer = {
    status: 200,
    body: {
      operation: {
        id,
        project_id: PROJECT,
        branch_id: 'br-sim',
        action: 'start_compute',
        status: now >= finalAt ? 'finished' : 'running',
        created_at: new Date(EPOCH).toISOString(),
        updated_at: new Date(EPOCH + Math.min(now, finalAt)).toISOString()
      }
    }
  }
  return { kind: 'answer', answer }
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
    api_key: KEY,
    project_id: PROJECT,
    operation_id: options.id,
    api_host: 'http://127.0.0.1:9/api/v2',
    interval: `${options.intervalMs}ms`,
    timeout: `${options.timeoutMs}ms`
  }
  return simulatedGate(time, values, options)
}

/**
 * A run of the gate (the front ends' own, src/gate/gate-run.ts) with these inputs, named as the
 * contract names them, on simulated time over `transport`: its clock, retries and pace draw from
 * `random`; silent, never signalled (`signals`: where the test sends SIGINT or SIGTERM) and without
 * a database unless told otherwise.
 */
export function simulatedGate(
  time: SimulatedTime,
  values: Record<string, string>,
  dependencies: {
    random: () => number
    transport: HttpGet
    logger?: Logger
    signals?: EventEmitter
    queryDatabase?: QueryDatabase
  }
): Promise<RunReport> {
  const redactor = new Redactor()
  addSecret(redactor, values.api_key ?? '')
  addSecret(redactor, values.database_url ?? '', 'database_url')
  const inputs = parseInputs((name) => values[name] ?? '', CONTRACT_NAMING)
  const { random } = dependencies
  const run = new GateRun({
    logger: dependencies.logger ?? silent,
    redactor,
    signals: (dependencies.signals ?? new EventEmitter()) as unknown as Pick<
      NodeJS.Process,
      'once' | 'off'
    >,
    clock: time,
    retryPolicy: new RetryPolicy({ random }),
    random,
    transport: dependencies.transport,
    queryDatabase:
      dependencies.queryDatabase ??
      (() => Promise.reject(new Error('no database in this simulation')))
  })
  return run.gate(inputs, CONTRACT_NAMING)
}
