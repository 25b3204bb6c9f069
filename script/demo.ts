/*
 * npm run demo: starts the local API server with a project whose branch creation is in flight, runs
 * the real bundle against it as the runner would, and shows the log, the outputs and the summary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApiServer } from './api-server/server.ts'
import { ensureFreshBundle } from './fresh-bundle.ts'
import { demoWorld, KEYS, PROJECT } from './api-server/scenarios.ts'
import { ACTIONS_BOT, startGitHubServer } from './github-server.ts'
import { runBundle } from './run-bundle.ts'
import { logPrinter, renderRun } from './terminal-render.ts'

if (ensureFreshBundle() === 'rebuilt') console.log('dist/ was older than src/: rebuilt it first.')
const world = demoWorld({ history: 120 })
const server = await startApiServer(world)
const [createBranch, startCompute] = world.createBranch(PROJECT, {
  branchId: 'br-preview-pr-42',
  branchName: 'preview/pr-42',
  endpointId: 'ep-preview-pr-42',
  createMs: 3000,
  startMs: 2500
})
// The local GitHub API and a pull_request event, as the runner describes them.
const github = await startGitHubServer()
const GITHUB_TOKEN = 'ghs_local_demo_token_not_a_secret'
github.tokens.set(GITHUB_TOKEN, { user: ACTIONS_BOT, canWrite: true })
const eventDir = mkdtempSync(join(tmpdir(), 'demo-event-'))
writeFileSync(
  join(eventDir, 'event.json'),
  JSON.stringify({
    pull_request: {
      number: 42,
      html_url: 'https://github.com/octo/app/pull/42',
      head: { sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d', repo: { full_name: 'octo/app' } }
    }
  })
)
const env = {
  GITHUB_EVENT_NAME: 'pull_request',
  GITHUB_EVENT_PATH: join(eventDir, 'event.json'),
  GITHUB_REPOSITORY: 'octo/app',
  GITHUB_SHA: 'ffffffffffffffffffffffffffffffffffffffff',
  GITHUB_WORKFLOW: 'Preview',
  GITHUB_JOB: 'gate',
  GITHUB_RUN_ID: '42000',
  GITHUB_API_URL: github.apiUrl
}
const inputs = {
  api_key: KEYS.organization,
  project_id: PROJECT,
  // By name, as people know it; the action resolves it to br-preview-pr-42 before the first poll.
  branch_id: 'preview/pr-42',
  list_projects: 'true',
  interval: '1s',
  timeout: '1m',
  api_host: server.apiHost,
  pr_comment: 'always',
  github_token: GITHUB_TOKEN
}

console.log(`Local API server: ${server.apiHost}`)
console.log(
  `Branch preview/pr-42 (br-preview-pr-42) is being created: ${createBranch.id} (create_branch, running)`
)
console.log(
  `                                       and ${startCompute.id} (start_compute, scheduling)`
)
console.log(`Running node dist/index.js with the project gate on that branch:`)
for (const [name, value] of Object.entries(inputs)) {
  const secret = name === 'api_key' || name === 'github_token'
  console.log(`  INPUT_${name.toUpperCase()}=${secret ? '***' : value}`)
}
console.log(`  as a pull_request run for #42 of octo/app, GITHUB_API_URL=${github.apiUrl}`)
console.log('')

try {
  const run = await runBundle(inputs, { onStdout: logPrinter(), env })
  console.log('')
  console.log(renderRun(run))
  const operations = server.requests.filter((request) =>
    ['operations', 'operation'].includes(request.route ?? '')
  ).length
  console.log(
    `\nThe server answered ${server.requests.length} requests (${operations} for operations).`
  )
  const [comment] = github.comments
  console.log(
    comment
      ? `\nThe pull-request comment, posted to the local GitHub API as ${comment.user.login} (${comment.html_url}): the summary above under its hidden marker, ${comment.body.split('\n')[0]}, ${Buffer.byteLength(comment.body)} bytes.`
      : '\nNo pull-request comment was written.'
  )
  process.exitCode = run.code === 0 && comment ? 0 : 1
} finally {
  await server.close()
  await github.close()
  rmSync(eventDir, { recursive: true, force: true })
}
