/*
 * What the benchmark's sections share: the local API server around a body, a bundle run against it,
 * polls read off its request log, the table's rows, and the statistics.
 */
import type { Limits } from '../../__tests__/support/neon/limits.ts'
import type { RequestRecord } from '../../__tests__/support/neon/handler.ts'
import { type ApiServer, startApiServer } from '../../__tests__/support/neon/server.ts'
import type { World } from '../../__tests__/support/neon/world.ts'
import { runBundle } from '../../__tests__/support/bundles/run-bundle.ts'
import { KEYS, PROJECT } from '../../__tests__/support/neon/ids.ts'

/** Adds a row to the table: the scenario, what was measured, and requests or the result. */
export type Row = (...cells: (string | number)[]) => void

export async function withServer<T>(
  world: World,
  limits: Partial<Limits>,
  body: (server: ApiServer) => Promise<T>
): Promise<T> {
  const server = await startApiServer(world, { limits })
  try {
    return await body(server)
  } finally {
    await server.close()
  }
}

export function run(server: ApiServer, inputs: Record<string, string>) {
  return runBundle({
    api_key: KEYS.organization,
    project_id: PROJECT,
    api_host: server.apiHost,
    ...inputs
  })
}

/** Splits the request log into polls: requests less than 500 ms after the previous one belong together. */
export function polls(requests: RequestRecord[]): RequestRecord[][] {
  const groups: RequestRecord[][] = []
  for (const request of requests) {
    const last = groups.at(-1)
    if (last && request.at - last[last.length - 1].at < 500) last.push(request)
    else groups.push([request])
  }
  return groups
}

export { median, percentile } from '../../__tests__/support/fleet/statistics.ts'

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
