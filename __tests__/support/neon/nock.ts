/*
 * The world's handler (handler.ts's createApiHandler: keys, limits, faults, the log, the contract
 * checks) behind nock, for the unit tests that run the real HTTP transport in process: the same
 * answers the local API server gives over HTTP and on the simulated network.
 */
import type { Clock } from '../../../src/domain/clock.js'
import { answerFrom, DROPPED, type InterceptedAnswer } from '../nock.ts'
import type { Answer } from './answers.ts'
import { demoWorld } from './scenarios.ts'
import { type ApiHandler, type ApiOptions, createApiHandler } from './handler.ts'
import type { World } from './world.ts'

/** Where the unit tests' API is: nothing listens there; nock answers. */
const API_ORIGIN = 'http://127.0.0.1:4010'
export const API_HOST = `${API_ORIGIN}/api/v2`

const sent = (answer: Answer): InterceptedAnswer => ({
  status: answer.status,
  body: JSON.stringify(answer.body ?? {}),
  headers: { 'content-type': 'application/json', ...answer.headers }
})

/** `api` answers every request to `origin` until the test ends; a slow answer takes its real time. */
function nockApi(api: ApiHandler, origin = API_ORIGIN): void {
  answerFrom(origin, async (request) => {
    const handling = api.handle(request)
    switch (handling.kind) {
      case 'answer':
        return sent(handling.answer)
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, handling.delayMs))
        return sent(handling.answer())
      case 'held':
        await handling.released
        return sent(handling.answer())
      case 'drop':
        throw DROPPED
      case 'malformed':
        return { status: handling.status, body: handling.body, headers: handling.headers }
    }
  })
}

/**
 * A demo world on `clock`'s wall time (no history of operations unless `history` says), and its
 * handler behind nock at API_ORIGIN until the test ends.
 */
export function nockWorld(
  clock: Pick<Clock, 'wallNow'>,
  options: Parameters<typeof demoWorld>[0] & ApiOptions = {}
): { world: World; api: ApiHandler } {
  const world = demoWorld({ history: 0, ...options, now: () => clock.wallNow() })
  const api = createApiHandler(world, options)
  nockApi(api)
  return { world, api }
}
