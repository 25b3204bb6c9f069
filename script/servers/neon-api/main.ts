/*
 * npm run api-server [-- --port 4010]: the local API server with the demo world, a branch creation
 * in flight, and the demo keys printed, for trying the action or run-local by hand.
 */
import { startApiServer } from './server.ts'
import { demoWorld, KEYS, PROJECT } from './scenarios.ts'

const portIndex = process.argv.indexOf('--port')
const port = portIndex > 0 ? Number(process.argv[portIndex + 1]) : 4010
const world = demoWorld({ history: 120 })
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
