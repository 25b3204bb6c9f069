/*
 * The action's own gate() (inputs, request core, retry policy, pace, wait loop) on a simulated clock
 * and a simulated network: every gate of a fleet is the real code, and only time and the server
 * are models. The server's limits are the local API server's own (script/servers/neon-api/
 * limits.ts): sliding windows per account and per route, a 429 not counted, Retry-After in whole
 * seconds until a slot frees. A change to the pacing shows up here with no second copy of it.
 *
 * Time only moves when every gate waits: before each event, the microtasks of the last one settle
 * (one setImmediate), so a run of minutes takes a second or two.
 */
import type { HttpAnswer, HttpGet, HttpGetOptions } from '../../src/api/http-transport.js'
import { RetryPolicy } from '../../src/api/retry-policy.js'
import { TransportError } from '../../src/api/transport-error.js'
import type { Clock } from '../../src/domain/clock.js'
import { Redactor } from '../../src/domain/untrusted-text.js'
import type { RunReport } from '../../src/report/report.js'
import { gate } from '../../src/runner/gate.js'
import type { Answer } from '../servers/neon-api/routes.ts'
import { getInputs } from '../../src/runner/input-helper.js'

/** The epoch the simulated wall clock starts at (what API timestamps are compared with). */
const EPOCH = Date.parse('2026-01-01T00:00:00Z')
/** From a request's start to the server, and from the server back: the local server's few ms. */
const HALF_TRIP_MS = 1
/** Up to this much more on each way, at random: a machine busy with 90 bundles answers late. */
const HALF_TRIP_JITTER_MS = Number(process.env.HALF_TRIP_JITTER_MS ?? 10)
const KEY = 'napi_simulated_key'
const PROJECT = 'sim-project'
const silent = { info: () => undefined, warning: () => undefined, debug: () => undefined }

interface SimulatedEvent {
  at: number
  sequence: number
  run: () => void
  cancelled?: boolean
}

/** A discrete-event clock: `sleep` and the network schedule events, `run` plays them in order. */
export class SimulatedTime implements Clock {
  private time = 0
  private sequence = 0
  private readonly queue: SimulatedEvent[] = []

  now(): number {
    return this.time
  }

  wallNow(): number {
    return EPOCH + this.time
  }

  /** Schedules `run` at `time` (or now, if that is past); returns the event, to cancel it. */
  at(time: number, run: () => void): SimulatedEvent {
    const event: SimulatedEvent = { at: Math.max(time, this.time), sequence: this.sequence++, run }
    let low = 0
    let high = this.queue.length
    while (low < high) {
      const middle = (low + high) >> 1
      const other = this.queue[middle]
      if (other.at < event.at || (other.at === event.at && other.sequence < event.sequence)) {
        low = middle + 1
      } else high = middle
    }
    this.queue.splice(low, 0, event)
    return event
  }

  /** As the system clock's: an abort cancels the wait at once and rejects with its reason. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = (): void => {
        event.cancelled = true
        reject(signal?.reason)
      }
      const event = this.at(this.time + ms, () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      })
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Plays every event, letting the code each one resumes run to its next wait. */
  async run(): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve))
      const next = this.queue.shift()
      if (!next) return
      if (next.cancelled) continue
      this.time = next.at
      next.run()
    }
  }
}

/** What the server does with one request: answer with a status, reset it, or never answer. */
export type ServerAnswer = Answer | 'reset' | 'none'

/**
 * A network whose server is `answer(path, now)`; `none` ends at the request's own time limit. Each
 * way takes HALF_TRIP_MS plus up to HALF_TRIP_JITTER_MS, drawn from `latency` (one source per run,
 * so that a seed gives the same run whatever ran before it).
 */
export function simulatedTransport(
  time: SimulatedTime,
  latency: () => number,
  answer: (path: string, now: number) => ServerAnswer
): HttpGet {
  const halfTrip = () => HALF_TRIP_MS + HALF_TRIP_JITTER_MS * latency()
  return (url: URL, options: HttpGetOptions) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const sentAt = time.now()
      time.at(sentAt + halfTrip(), () => {
        const answered = answer(url.pathname, time.now())
        if (answered === 'none') {
          const limit = options.timeLimitMs
          time.at(sentAt + limit, () =>
            reject(new TransportError(`no answer within ${Math.round(limit)} ms`, true))
          )
          return
        }
        time.at(time.now() + halfTrip(), () => {
          if (answered === 'reset') return reject(new TransportError('ECONNRESET', true))
          resolve({
            status: answered.status,
            // As node:http gives them: names in lower case.
            headers: Object.fromEntries(
              Object.entries(answered.headers ?? {}).map(([name, value]) => [
                name.toLowerCase(),
                value
              ])
            ),
            body: JSON.stringify(answered.body ?? {})
          })
        })
      })
    })
}

/** The answer to a read of one operation that runs until `finalAt` (simulated time). */
export function operationAnswer(id: string, finalAt: number, now: number): ServerAnswer {
  return {
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
  return gate(
    getInputs((name) => values[name] ?? ''),
    {
      clock: time,
      retryPolicy: new RetryPolicy({ random: options.random }),
      random: options.random,
      logger: silent,
      redactor: new Redactor([KEY]),
      signal: new AbortController().signal,
      transport: options.transport,
      queryDatabase: () => Promise.reject(new Error('the simulated fleet has no database'))
    }
  )
}
