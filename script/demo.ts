/*
 * npm run demo: starts the local API server with a project whose branch creation is in flight, runs
 * the real bundle against it as the runner would, and shows the log, the outputs and the summary.
 */
import { startApiServer } from './api-server/server.ts'
import { demoWorld, KEYS, PROJECT } from './api-server/scenarios.ts'
import { runBundle } from './run-bundle.ts'
import { logPrinter, renderRun } from './terminal-render.ts'

const world = demoWorld({ history: 120 })
const server = await startApiServer(world)
const [createBranch, startCompute] = world.createBranch(PROJECT, {
  branchId: 'br-preview-pr-42',
  endpointId: 'ep-preview-pr-42',
  createMs: 3000,
  startMs: 2500
})
const inputs = {
  api_key: KEYS.organization,
  project_id: PROJECT,
  branch_id: 'br-preview-pr-42',
  list_projects: 'true',
  interval: '1s',
  timeout: '1m',
  api_host: server.apiHost
}

console.log(`Local API server: ${server.apiHost}`)
console.log(`Branch br-preview-pr-42 is being created: ${createBranch.id} (create_branch, running)`)
console.log(
  `                                       and ${startCompute.id} (start_compute, scheduling)`
)
console.log(`Running node dist/index.js with the project gate on that branch:`)
for (const [name, value] of Object.entries(inputs)) {
  console.log(`  INPUT_${name.toUpperCase()}=${name === 'api_key' ? '***' : value}`)
}
console.log('')

try {
  const run = await runBundle(inputs, { onStdout: logPrinter() })
  console.log('')
  console.log(renderRun(run))
  const operations = server.requests.filter((request) => request.route !== 'projects').length
  console.log(
    `\nThe server answered ${server.requests.length} requests (${operations} for operations).`
  )
  process.exitCode = run.code ?? 1
} finally {
  await server.close()
}
