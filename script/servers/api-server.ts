/*
 * npm run api-server [-- --port 4010] [-- --clock-skew 960]: the local API server with the demo
 * world, a branch creation in flight, and the demo keys printed, for trying the action or run-local
 * by hand. `--clock-skew` sets the server's clock that many seconds ahead (negative: behind), as a
 * runner whose clock is off by the opposite would see it.
 */
import { startApiServer } from '../../__tests__/support/neon/server.ts'
import { demoWorld } from '../../__tests__/support/neon/scenarios.ts'
import { KEYS, PROJECT } from '../../__tests__/support/neon/ids.ts'

const flag = (name: string): number | undefined => {
  const index = process.argv.indexOf(name)
  return index > 0 ? Number(process.argv[index + 1]) : undefined
}
const port = flag('--port') ?? 4010
const world = demoWorld({ history: 120, clockSkewMs: (flag('--clock-skew') ?? 0) * 1000 })
const server = await startApiServer(world, { port })
const [create, start] = world.createBranch(PROJECT, {
  branchId: 'br-preview-pr-42',
  branchName: 'preview/pr-42',
  createMs: 20_000,
  startMs: 10_000
})
console.log(`Management API v2 on ${server.apiHost}`)
console.log(
  `Project ${PROJECT}; in flight: ${create.id} (create_branch), ${start.id} (start_compute)`
)
for (const [type, key] of Object.entries(KEYS)) console.log(`  ${type.padEnd(13)} key: ${key}`)
console.log('Ctrl-C stops it.')
process.on('SIGINT', () => void server.close().then(() => process.exit(0)))
