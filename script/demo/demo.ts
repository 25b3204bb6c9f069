/*
 * npm run demo: starts the local API server with a project whose branch creation is in flight, runs
 * the real bundle against it as the runner would, and shows the log, the outputs and the summary.
 * `npm run demo -- failure` and `npm run demo -- timeout` run the other scenarios;
 * `npm run demo -- teardown` checks a branch before its deletion: blocked by a child branch, then,
 * once the child is gone, clear.
 */
import { ensureFreshBundle } from '../build/fresh-bundle.ts'
import { DEMOS, type ScenarioName, withScenario } from './scenarios.ts'
import { type BundleRun, runBundle } from '../runner/run-bundle.ts'
import { logPrinter, renderRun } from './terminal-render.ts'

const name = (process.argv[2] ?? 'success') as ScenarioName
if (!DEMOS.includes(name)) {
  console.error(`Unknown scenario "${name}"; one of: ${DEMOS.join(', ')}`)
  process.exit(2)
}
if (ensureFreshBundle() === 'rebuilt') {
  console.log('dist/ was not the bundle of src/ (its build stamp differs): rebuilt it first.')
}

const passed = await withScenario(name, async ({ server, github, inputs, env, intro, next }) => {
  console.log(`Local API server: ${server.apiHost}`)
  for (const line of intro) console.log(line)
  console.log(`Running node dist/index.js with the project gate:`)
  for (const [input, value] of Object.entries(inputs)) {
    const secret = ['api_key', 'github_token', 'database_url'].includes(input)
    console.log(`  INPUT_${input.toUpperCase()}=${secret ? '***' : value}`)
  }
  console.log(`  as a pull_request run for #42 of octo/app, GITHUB_API_URL=${github.apiUrl}`)
  const runOnce = async (): Promise<BundleRun> => {
    console.log('')
    const run = await runBundle(inputs, { onStdout: logPrinter(), env })
    console.log('')
    console.log(renderRun(run))
    return run
  }
  const runs = [await runOnce()]
  if (next) {
    next.change()
    console.log('')
    for (const line of next.intro) console.log(line)
    runs.push(await runOnce())
  }
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
  // The demo shows the action working: its scenario's outcome (the teardown's: blocked, then
  // clear), and the comment written.
  const shown =
    name === 'teardown'
      ? runs.map((run) => run.outputs.preflight).join(' ') === 'blocked clear'
      : runs[0].outputs.outcome === name
  return shown && comment !== undefined
})
process.exitCode = passed ? 0 : 1
