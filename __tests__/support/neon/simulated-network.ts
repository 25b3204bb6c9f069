/*
 * Simulated time and a simulated network, so that the action's own gate() can run in process for
 * minutes of its time in milliseconds of ours: the fleet simulation (npm run simulate) and the
 * suite's in-process scenarios (__tests__/simulated/) run on it. Nothing sleeps: time moves only when every
 * piece of code waits, from one scheduled event to the next. The server is any function from a
 * request to what the local API server would do with it (handler.ts's Handling): `simulatedApi`
 * puts the local API server itself there, its world's clock on the simulated one.
 */
import type { HttpAnswer, HttpGet, HttpGetOptions } from '../../../src/api/http-transport.js'
import { classify, TransportError } from '../../../src/api/transport-error.js'
import type { SimulatedTime } from '../time/clock.ts'
import type { ApiHandler, Handling, IncomingRequest } from './handler.ts'
import type { Answer } from './answers.ts'

/**
 * What the simulated server does with a request: what the local API server would, or nothing; or
 * the request never reaches it, because the host name did not resolve.
 */
export type SimulatedHandling = Handling | { kind: 'none' } | { kind: 'unresolved' }

/** From a request's start to the server, and from the server back: the local server's few ms. */
const HALF_TRIP_MS = 1

/**
 * A network to the server `serve`, as the action's transport sees one: each way takes HALF_TRIP_MS
 * plus `jitterMs` × `latency()`; an answer, a slow one included, counts only within the request's
 * time limit (then it fails as the real transport does, `no answer within …`); a drop is a reset;
 * the request's signal aborts it at once.
 */
export function simulatedNetwork(
  time: SimulatedTime,
  serve: (request: IncomingRequest, now: number) => SimulatedHandling,
  latency: { jitterMs: number; draw: () => number } = { jitterMs: 0, draw: () => 0 }
): HttpGet {
  const halfTrip = () => HALF_TRIP_MS + latency.jitterMs * latency.draw()
  return (url: URL, options: HttpGetOptions) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const { signal } = options
      if (signal?.aborted) return reject(signal.reason)
      let settled = false
      const settle = (outcome: () => void) => {
        if (settled) return
        settled = true
        signal?.removeEventListener('abort', onAbort)
        limit.cancelled = true
        outcome()
      }
      const onAbort = () => settle(() => reject(signal?.reason))
      signal?.addEventListener('abort', onAbort, { once: true })
      const limitMs = Math.round(options.timeLimitMs)
      const limit = time.at(time.now() + options.timeLimitMs, () =>
        settle(() => reject(new TransportError(`no answer within ${limitMs} ms`, true)))
      )
      const link: Link = {
        time,
        hostname: url.hostname,
        settled: () => settled,
        answer: (status, headers, body) =>
          time.at(time.now() + halfTrip(), () =>
            settle(() => resolve({ status, headers: lowerCaseNames(headers ?? {}), body }))
          ),
        fail: (error) => settle(() => reject(error))
      }
      time.at(time.now() + halfTrip(), () => {
        if (settled) return
        const headers = lowerCaseNames(options.headers)
        const request = { method: 'GET', url: url.pathname + url.search, headers }
        deliver(serve(request, time.now()), link)
      })
    })
}

/** One request's way back to the client, until it is settled (answered, failed or aborted). */
interface Link {
  time: SimulatedTime
  /** The host name the request asked for. */
  hostname: string
  settled: () => boolean
  /** An answer, back after half a round trip. */
  answer: (status: number, headers: Answer['headers'], body: string) => void
  fail: (error: Error) => void
}

/** What the client gets of what the server did with its request. */
function deliver(
  handling: SimulatedHandling,
  { time, hostname, settled, answer, fail }: Link
): void {
  const respond = (json: Answer) =>
    answer(json.status, json.headers, JSON.stringify(json.body ?? {}))
  switch (handling.kind) {
    case 'answer':
      return void respond(handling.answer)
    case 'slow':
      return void time.at(time.now() + handling.delayMs, () => {
        if (!settled()) respond(handling.answer())
      })
    case 'held':
      return void handling.released.then(() => {
        if (!settled()) respond(handling.answer())
      })
    case 'drop':
      return fail(new TransportError('ECONNRESET (socket hang up)', true))
    case 'malformed':
      return answer(handling.status, handling.headers, handling.body)
    case 'unresolved':
      // As node:dns fails a lookup, through the transport's own reading of it.
      return fail(classify({ code: 'ENOTFOUND', message: `getaddrinfo ENOTFOUND ${hostname}` }))
    case 'none':
      return
  }
}

/** Header names in lower case, as node:http gives them. */
function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])
  )
}

/** The local API server on the simulated network; its world should run on `time.wallNow`. */
export function simulatedApi(time: SimulatedTime, api: ApiHandler): HttpGet {
  return simulatedNetwork(time, (request) => api.handle(request))
}
