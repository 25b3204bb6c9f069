/*
 * The pace's memory of a 429, over the bundle: slowed after one 429, three in a row, or one with
 * Retry-After: 15, and at `interval` again once the last is 150 s old, measured in the action's
 * own time.
 *
 * Why a time-lapse. The memory is 150 s of the action's time at the default interval (and never
 * less), so a run in real time would add minutes to the suite. The exact gaps, the 150 s and the
 * exit within 1.2 intervals of the operation's end are proven on simulated time, with gate() in
 * process (simulated/pace.test.ts). What only a process shows is that the built bundle feeds its
 * pace the clock that its waits run on, as Node gives them (`performance.now`, `setTimeout`). So
 * the bundle runs here with both 20 times faster (support/time/time-lapse.mjs, loaded with --import as
 * clock-step.mjs is): 150 s of its time pass in 7.5 s, and the three cases run side by side, about
 * 12 s of mostly waiting beside the rest of the suite. The server's log is in real time: a gap
 * times 20 is the bundle's own.
 *
 * The scenario moves by events: the 429s answer the bundle's second request, and the operation is
 * final on the 8th request after the bundle logs that it polls at interval again. A single gap
 * carries any stall of the machine (of the bundle, or of the server that logs it) 20-fold, so no
 * bound is on one: the moment the bundle says it is back is a lower bound (its log comes after the
 * answer), and its waits before and after are compared by their medians, under the same load.
 */
import { describe, expect, it } from '@jest/globals'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { RequestRecord } from '../support/neon/handler.ts'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'

const LAPSE = 20
const INTERVAL = 5000
const MEMORY_MS = 150_000
const BACK = 'No 429 for 2 min 30 s: polling every 5.0 s again'
/** Reads after the bundle is back at interval, the last of which sees the operation final. */
const READS_AFTER = 8

const timeLapse = {
  NODE_OPTIONS: `--import ${pathToFileURL(join(import.meta.dirname, '..', 'support', 'time', 'time-lapse.mjs'))}`,
  TIME_LAPSE: String(LAPSE)
}

/** The middle value: a stall of the machine, which stretches a gap 20-fold, does not move it. */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

async function lonelyGate(times: number, retryAfter?: string) {
  const { world, server } = await serve()
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    timeline: [{ status: 'running' }, { status: 'finished' }]
  })
  let backAt: number | undefined
  let stdout = ''
  server.onRequest = () => {
    const count = server.requests.length
    if (count === 2) server.addFault({ kind: 'status', status: 429, retryAfter, times })
    // Final from this read on: the running step ends now.
    if (backAt !== undefined && count === backAt + READS_AFTER) {
      op.timeline[0].ms = world.now() - op.createdAt
    }
  }
  const run = await runAction(
    server,
    { project_id: PROJECT, operation_id: op.id, interval: '5s', timeout: '5m' },
    {
      env: timeLapse,
      onStdout: (chunk) => {
        stdout += chunk // a line may come in two chunks
        if (stdout.includes(BACK)) backAt ??= server.requests.length
      },
      killAfterMs: 120_000
    }
  )
  return { run, requests: server.requests, backAt }
}

describe('bundle end to end: the pace forgets a 429 in time', () => {
  it('after one 429, three in a row, or one with Retry-After: 15: slowed until the last is 150 s old, then interval', async () => {
    const cases = [
      { times: 1, retryAfter: undefined },
      { times: 3, retryAfter: undefined },
      { times: 1, retryAfter: '15' }
    ]
    const runs = await Promise.all(cases.map((c) => lonelyGate(c.times, c.retryAfter)))
    for (const [index, { run, requests, backAt }] of runs.entries()) {
      const { times } = cases[index]
      expect(run.code).toBe(0)
      expect(run.outputs.outcome).toBe('success')
      expect(run.stdout).toContain('429: polling every 15.0 s for now')
      expect(run.stdout).toContain(BACK)
      expect(run.summary).toContain(`${times} × HTTP 429`)
      expect(requests.map((request) => request.status).slice(0, times + 2)).toEqual([
        200,
        ...Array.from({ length: times }, () => 429),
        200
      ])
      // The bundle's own clock ran 20 times faster: its log counts minutes of it.
      expect(
        Number(/\[\+(\d+) min \d+ s\] outcome: success/.exec(run.stdout)?.[1])
      ).toBeGreaterThanOrEqual(2)

      const lastLimited = requests[times]
      /** The bundle's own time since its last 429, from the server's log. */
      const age = (request: RequestRecord) => (request.at - lastLimited.at) * LAPSE
      const gapsOf = (list: RequestRecord[]) =>
        list.slice(1).map((request, i) => age(request) - age(list[i]))
      // The request on whose answer it was back (or a later one, had its log come late).
      expect(backAt).toBeDefined()
      const backFrom = backAt! - 1
      // It was back only once its last 429 was 150 s old, less an interval: it hears an answer
      // after the server logged the request, and 5 s of its time are 250 ms of ours...
      expect(age(requests[backFrom])).toBeGreaterThanOrEqual(MEMORY_MS - INTERVAL)
      // ...slowed all that time, its typical wait at least the plateau less its jitter...
      const slowed = gapsOf(requests.slice(times, backFrom + 1))
      expect(slowed.length).toBeGreaterThan(8)
      expect(median(slowed)).toBeGreaterThanOrEqual(1.5 * INTERVAL)
      // ...and from there on at interval: its typical wait at most three quarters of the slowed
      // one (half, unloaded), and not under interval. The read that saw the operation final was
      // the last.
      const back = gapsOf(requests.slice(backFrom))
      expect(back).toHaveLength(READS_AFTER)
      expect(median(back)).toBeGreaterThanOrEqual(0.95 * INTERVAL)
      expect(median(back)).toBeLessThan(0.75 * median(slowed))
    }
  })
})
