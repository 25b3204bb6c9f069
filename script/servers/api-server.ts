/*
 * npm run api-server [-- --port 4010] [-- --clock-skew 960] [-- --database-url URL]: the local API
 * server with the demo world, a branch creation in flight, and the demo keys printed, for trying
 * the action or run-local by hand. `--clock-skew` sets the server's clock that many seconds ahead
 * (negative: behind), as a runner whose clock is off by the opposite would see it. With
 * `--database-url`, the port takes writes too, as the recipes' tests have them (writes.ts): a new
 * branch, its connection string (Neon's CLI reads it), its delete; every branch's database is the
 * one at URL. The live workflow's local run (.github/workflows/live.yml) uses it.
 */
import { startApiServer } from '../../__tests__/support/neon/server.ts'
import { demoWorld } from '../../__tests__/support/neon/scenarios.ts'
import { KEYS, PROJECT } from '../../__tests__/support/neon/ids.ts'
import { startWritingFront } from '../../__tests__/support/neon/writes.ts'

const flag = (name: string): number | undefined => {
  const index = process.argv.indexOf(name)
  return index > 0 ? Number(process.argv[index + 1]) : undefined
}
const port = flag('--port') ?? 4010
const at = process.argv.indexOf('--database-url')
const databaseUrl = at > 0 ? process.argv[at + 1] : undefined
const world = demoWorld({ history: 120, clockSkewMs: (flag('--clock-skew') ?? 0) * 1000 })
// With writes, the port given is the front's, and the reads' server takes any free one behind it.
const server = await startApiServer(world, { port: databaseUrl ? 0 : port })
const front = databaseUrl
  ? await startWritingFront(world, server, { databaseUrl, port })
  : undefined
const [create, start] = world.createBranch(PROJECT, {
  branchId: 'br-preview-pr-42',
  branchName: 'preview/pr-42',
  createMs: 20_000,
  startMs: 10_000
})
console.log(`Management API v2 on ${front?.apiHost ?? server.apiHost}`)
console.log(
  `Project ${PROJECT}; in flight: ${create.id} (create_branch), ${start.id} (start_compute)`
)
for (const [type, key] of Object.entries(KEYS)) console.log(`  ${type.padEnd(13)} key: ${key}`)
console.log('Ctrl-C stops it.')
process.on(
  'SIGINT',
  () => void Promise.all([front?.close(), server.close()]).then(() => process.exit(0))
)
