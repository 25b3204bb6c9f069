/*
 * The core's harness: the gate's own run (src/gate/gate-run.ts, as both front ends run it) in
 * process, its inputs named as the contract names them, on simulated time over the local API
 * server (its routes, keys, limits and faults) on the simulated network: timing is exact and
 * nothing sleeps. The timing tests (__tests__/simulated/) and the fleet simulation
 * (fleet/simulation.ts) run on it; what only a process shows is tested over the bundle (e2e/).
 */
import { EventEmitter } from 'node:events'
import type { HttpGet } from '../../src/api/http-transport.js'
import type { QueryDatabase } from '../../src/steps/database/postgres.js'
import { RetryPolicy } from '../../src/api/retry-policy.js'
import { CONTRACT_NAMING } from '../../src/domain/input-naming.js'
import type { Logger } from '../../src/domain/logger.js'
import { Redactor } from '../../src/domain/untrusted-text.js'
import { addSecretInputs, GateRun } from '../../src/gate/gate-run.js'
import { parseInputs } from '../../src/gate/inputs.js'
import type { RunReport } from '../../src/report/report.js'
import type { Fault } from './neon/faults.ts'
import { demoWorld, operationIn } from './neon/scenarios.ts'
import {
  type ApiHandler,
  type ApiOptions,
  createApiHandler,
  type IncomingRequest,
  type RequestRecord
} from './neon/handler.ts'
import type { World } from './neon/world.ts'
import { type SimulatedHandling, simulatedApi, simulatedNetwork } from './neon/simulated-network.ts'
import { EPOCH, SimulatedTime } from './time/clock.ts'
import { collectingLogger } from './logger.ts'
import { KEYS, PROJECT } from './neon/ids.js'

export { EPOCH }

const silent = {
  info: () => undefined,
  warning: () => undefined,
  notice: () => undefined,
  debug: () => undefined
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
    /** The retries' policy; the real one, its jitter from `random`, unless given. */
    retryPolicy?: RetryPolicy
  }
): Promise<RunReport> {
  const redactor = new Redactor()
  addSecretInputs(redactor, (name) => values[name])
  const inputs = parseInputs((name) => values[name], CONTRACT_NAMING)
  const { random } = dependencies
  const run = new GateRun({
    logger: dependencies.logger ?? silent,
    redactor,
    signals: (dependencies.signals ?? new EventEmitter()) as unknown as Pick<
      NodeJS.Process,
      'once' | 'off'
    >,
    clock: time,
    retryPolicy: dependencies.retryPolicy ?? new RetryPolicy({ random }),
    random,
    transport: dependencies.transport,
    queryDatabase:
      dependencies.queryDatabase ??
      (() => Promise.reject(new Error('no database in this simulation')))
  })
  return run.gate(inputs, CONTRACT_NAMING)
}

/** A demo world on simulated time, and the local API server over it (checked by `contract`). */
export function simulatedWorld(options: Parameters<typeof demoWorld>[0] & ApiOptions = {}): {
  time: SimulatedTime
  world: World
  api: ApiHandler
} {
  const time = new SimulatedTime()
  const world = demoWorld({ ...options, now: () => time.wallNow() })
  const { limits, contract, dateHeader } = options
  return { time, world, api: createApiHandler(world, { limits, contract, dateHeader }) }
}

export interface SimulatedRun {
  report: RunReport
  /** The log, `info: …` and `warning: …`. */
  lines: string[]
  /** Simulated time (ms from the gate's start) at which gate() returned. */
  endedAt: number
  /** What the server saw, `at` in milliseconds from the gate's start. */
  requests: (RequestRecord & { t: number })[]
}

/**
 * The gate with these inputs (the organization key, interval 5 s and the local API server unless
 * they say otherwise), run until it returns. `serve` replaces the local API server with a script
 * of its own; `cancelAt` sends SIGTERM at that simulated time, as a runner cancelling the job does;
 * `retryPolicy` replaces the real one (one that records its decisions, say).
 */
export async function runSimulated(
  setup: { time: SimulatedTime; api?: ApiHandler },
  values: Record<string, string>,
  options: {
    serve?: (request: IncomingRequest, now: number) => SimulatedHandling
    cancelAt?: number
    random?: () => number
    queryDatabase?: QueryDatabase
    retryPolicy?: RetryPolicy
  } = {}
): Promise<SimulatedRun> {
  const { time, api } = setup
  const all: Record<string, string> = {
    api_key: KEYS.organization,
    api_host: 'http://127.0.0.1:9/api/v2',
    interval: '5s',
    ...values
  }
  const { logger, lines } = collectingLogger()
  const signals = new EventEmitter()
  if (options.cancelAt !== undefined) {
    time.at(options.cancelAt, () => signals.emit('SIGTERM', 'SIGTERM'))
  }
  const transport = options.serve
    ? simulatedNetwork(time, options.serve)
    : simulatedApi(time, api ?? noServer())
  const startedAt = time.now()
  let endedAt = -1
  const running = simulatedGate(time, all, {
    random: options.random ?? (() => 0.5),
    transport,
    logger,
    signals,
    queryDatabase: options.queryDatabase,
    retryPolicy: options.retryPolicy
  }).then((report) => {
    endedAt = time.now() - startedAt
    return report
  })
  await time.run()
  const report = await running
  const requests = (api?.requests ?? []).map((record) => ({
    ...record,
    t: record.at - EPOCH - startedAt
  }))
  return { report, lines, endedAt, requests }
}

function noServer(): ApiHandler {
  throw new Error('runSimulated needs an api or a serve function')
}

/** What a scripted server (`serve`) answers: `body` with 200. */
export const ok = (body: unknown): SimulatedHandling => ({
  kind: 'answer',
  answer: { status: 200, body }
})

/** Milliseconds between consecutive requests that match `filter`. */
export function gapsBetween(
  requests: { t: number; path: string }[],
  filter: (path: string) => boolean = () => true
): number[] {
  const times = requests.filter((request) => filter(request.path)).map((request) => request.t)
  return times.slice(1).map((t, index) => t - times[index])
}

/**
 * The operations gate on one operation of the project, still running, in a world with no history:
 * its API behind `fault` (when one is given), `inputs` beside project_id and operation_id.
 */
export async function gateOneRunning(fault?: Fault, inputs: Record<string, string> = {}) {
  const setup = simulatedWorld({ history: 0 })
  const op = operationIn(setup.world, 'running')
  if (fault) setup.api.addFault(fault)
  const run = await runSimulated(setup, { project_id: PROJECT, operation_id: op.id, ...inputs })
  return { setup, op, run }
}
