import { afterEach, expect } from '@jest/globals'
import type { ApiOptions } from '../neon/handler.ts'
import type { Limits } from '../neon/limits.ts'
import { type ApiServer, startApiServer } from '../neon/server.ts'
import type { Fault } from '../neon/faults.ts'
import { demoWorld, operationIn } from '../neon/scenarios.ts'
import type { World } from '../neon/world.ts'
import { type BundleRun, killRunningBundles, type RunOptions, runBundle } from './run-bundle.ts'
import { KEYS } from '../neon/ids.js'

const servers: ApiServer[] = []
afterEach(async () => {
  // A test that timed out leaves its bundle running: it goes first, then its servers.
  killRunningBundles()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** A fresh demo world and its server on 127.0.0.1, closed after the test. */
export async function serve(
  options: Parameters<typeof demoWorld>[0] &
    Pick<ApiOptions, 'dateHeader'> & { limits?: Partial<Limits>; host?: string } = {}
): Promise<{ world: World; server: ApiServer }> {
  const world = demoWorld(options)
  const { limits, host, dateHeader } = options
  const server = await startApiServer(world, { limits, host, dateHeader })
  servers.push(server)
  return { world, server }
}

/**
 * A fresh demo world with one operation of its project running, and its server behind `fault` if
 * one is given: what a run meets when the API misbehaves while work is in flight.
 */
export async function serveRunning(fault?: Fault) {
  const served = await serve()
  const op = operationIn(served.world, 'running')
  if (fault) served.server.addFault(fault)
  return { ...served, op }
}

/**
 * The forms a secret could leak in: as is, JSON- and HTML-escaped (named and hex entities),
 * URL-encoded (upper- and lower-case hex), form-encoded, base64.
 */
export function secretForms(secret: string): string[] {
  const html = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    html.replace(/"/g, '&quot;'),
    html.replace(/"/g, '&#x22;').replace(/'/g, '&#x27;'),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    new URLSearchParams([['', secret]]).toString().slice(1),
    Buffer.from(secret).toString('base64').replace(/=+$/, '')
  ]
}

/**
 * Runs the bundle against `server` with the organization key and a 1 s interval unless the inputs
 * say otherwise, then checks what must hold for every run: the key is masked and appears nowhere
 * else, in no form, and nothing is written to stderr.
 */
export async function runAction(
  server: { apiHost: string },
  inputs: Record<string, string>,
  options: RunOptions = {}
): Promise<BundleRun> {
  const all = { api_key: KEYS.organization, interval: '1s', api_host: server.apiHost, ...inputs }
  const run = await runBundle(all, options)
  expect(run.stderr).toBe('')
  if (all.api_key.trim()) {
    expect(run.stdout.split(all.api_key)).toHaveLength(2)
    expect(run.stdout).toContain(`::add-mask::${all.api_key}`)
    const unmasked = run.stdout.replace(`::add-mask::${all.api_key}`, '')
    for (const form of secretForms(all.api_key)) {
      expect(unmasked + Object.values(run.outputs).join('\n') + run.summary).not.toContain(form)
    }
  }
  return run
}

/**
 * The summary without its Mermaid block, which stands between blank lines on purpose; the rest must
 * be one HTML block, with no blank line that API text could have opened.
 */
export function withoutTimeline(summary: string): string {
  return summary.replace(/\n\n```mermaid\n[\s\S]*?\n```\n\n/, '\n')
}

/**
 * Sends SIGTERM (or `signal`) to the bundle at the first `event` (the server took a request, say),
 * at once and whatever the machine's speed; `sentAt` tells when.
 */
export function terminateOn(
  event: (listener: () => void) => void,
  signal: NodeJS.Signals = 'SIGTERM'
): {
  onStart: RunOptions['onStart']
  sentAt: () => number
} {
  let child: Parameters<NonNullable<RunOptions['onStart']>>[0] | undefined
  let sentAt = 0
  event(() => {
    if (sentAt) return
    sentAt = Date.now()
    child?.kill(signal)
  })
  return { sentAt: () => sentAt, onStart: (started) => (child = started) }
}

/** SIGTERM to the bundle as the local API server takes its first request. */
export const terminateOnFirstRequest = (server: ApiServer) =>
  terminateOn((listener) => (server.onRequest = listener))
