/*
 * Start-up: one read of a finished operation (wait: false); and lean: from spawn to the server
 * receiving the first request, each front end (the action's bundle, the command's) against bare
 * node sending the same GET, with the size of the bundles and of the chunk that holds Octokit.
 */
import { execFile } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import {
  BUNDLE,
  COMMAND_BUNDLE,
  runCommandBundle
} from '../../../__tests__/support/bundles/run-bundle.ts'
import { median, type Row, run, withServer } from '../common.ts'
import { KEYS, PROJECT } from '../../../__tests__/support/neon/ids.ts'

const DIST = join(BUNDLE, '..')

export async function startup(row: Row): Promise<void> {
  await startupTime(row)
  await lean(row)
}

async function startupTime(row: Row): Promise<void> {
  const world = demoWorld()
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    timeline: [{ status: 'finished' }]
  })
  const times = await withServer(world, {}, async (server) => {
    const durations: number[] = []
    for (let i = 0; i < 7; i++)
      durations.push((await run(server, { operation_id: op.id, wait: 'false' })).durationMs)
    return durations
  })
  row(
    'start-up: node dist/index.js, one read, exit',
    `median ${median(times)} ms of 7 runs`,
    '1 request'
  )
}

async function lean(row: Row): Promise<void> {
  const world = demoWorld()
  const op = world.addOperation(PROJECT, {
    action: 'apply_config',
    timeline: [{ status: 'finished' }]
  })
  const { bundle, command, bare } = await withServer(world, {}, async (server) => {
    const firstRequestAfter = async (start: () => Promise<unknown>) => {
      const before = server.requests.length
      const spawnedAt = Date.now()
      await start()
      return server.requests[before].at - spawnedAt
    }
    const url = `${server.apiHost}/projects/${PROJECT}/operations/${op.id}`
    const bundle: number[] = []
    const command: number[] = []
    const bare: number[] = []
    for (let i = 0; i < 15; i++) {
      bundle.push(
        await firstRequestAfter(() => run(server, { operation_id: op.id, wait: 'false' }))
      )
      command.push(
        await firstRequestAfter(() =>
          runCommandBundle(
            [
              '--api-host',
              server.apiHost,
              '--project-id',
              PROJECT,
              '--operation-id',
              op.id,
              '--no-wait'
            ],
            { NEON_API_KEY: KEYS.organization }
          )
        )
      )
      bare.push(
        await firstRequestAfter(
          () =>
            new Promise((resolve) =>
              execFile(
                process.execPath,
                ['-e', `require('node:http').get(${JSON.stringify(url)}, (r) => r.resume())`],
                resolve
              )
            )
        )
      )
    }
    return { bundle, command, bare }
  })
  const size = (path: string) => `${(statSync(path).size / 1024).toFixed(0)} KiB`
  const chunk = readdirSync(DIST).find(
    (name) => /^\d+\.index\.js$/.test(name) && statSync(join(DIST, name)).size > 10_000
  )
  // Each spawn of a bundle is paired with the bare one after it, under the same load.
  const over = (times: number[]) =>
    `median ${median(times)} ms vs ${median(bare)} ms: +${median(times.map((ms, i) => ms - bare[i]))} ms, median of ${times.length} pairs (bound ≤ 100 ms)`
  row(
    'lean: spawn → first API request, the action (bundle vs bare node sending the same GET)',
    over(bundle),
    `dist/index.js ${size(BUNDLE)} (bound ≤ 2048 KiB); Octokit chunk ${chunk ? `${chunk} ${size(join(DIST, chunk))}` : 'none'}, loaded only to comment`
  )
  row(
    'lean: spawn → first API request, the command (neon-gate vs bare node)',
    over(command),
    `dist/command/index.js ${size(COMMAND_BUNDLE)}`
  )
}
