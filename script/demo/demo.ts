/*
 * npm run demo: the real bundle run as the runner would, against the local API server, in the
 * scenarios of scenarios.ts: by default the gate green (a preview branch being created, then its
 * database), then red (its compute fails to start). Each shows the log, the outputs, the job
 * summary (its timeline as labelled bars) and what a person reads of the result.
 * `npm run demo -- failure` (or `timeout`, or several names) runs those alone; `teardown` checks a
 * branch before its deletion: blocked by a child branch, then, once the child is gone, clear;
 * `sweep` lists the stale preview branches of a nightly sweep. It
 * exits 0 when every scenario ended as it should: the demo shows the action working, red included.
 */
import { ensureFreshBundle } from '../build/fresh-bundle.ts'
import {
  DEFAULT_SCENARIOS,
  DEMOS,
  PULL_REQUESTS,
  type Scenario,
  type ScenarioName,
  TITLES,
  withScenario
} from './scenarios.ts'
import { type BundleRun, runBundle } from '../../__tests__/support/bundles/run-bundle.ts'
import { logPrinter, renderRun, renderSummaryText } from './terminal-render.ts'

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text)

const names = (process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_SCENARIOS) as string[]
const unknown = names.find((name) => !(DEMOS as readonly string[]).includes(name))
if (unknown !== undefined) {
  console.error(`Unknown scenario "${unknown}"; one of: ${DEMOS.join(', ')}`)
  process.exit(2)
}
if (ensureFreshBundle() === 'rebuilt') {
  console.log('dist/ was not the bundle of src/ (its build stamp differs): rebuilt it first.')
}

/** The summary's first lines (the outcome and why), as the comment and the summary page show them. */
function headline(run: BundleRun): string[] {
  const lines = renderSummaryText(run.summary).split('\n').slice(1)
  const end = lines.findIndex((line) => line === '' || /^(pull request|commit|waited) /.test(line))
  return lines.slice(0, end < 0 ? 1 : end)
}

/** What runs next when the step passed, where it is not a job that needs the gate. */
const GREEN_NEXT: Partial<Record<ScenarioName, string>> = {
  teardown: 'the step that deletes the branch runs',
  sweep: `the next job deletes each stale branch that nothing blocks (examples/sweep.yml)`
}

/** What the result means for the jobs after the gate, in words. */
function verdict(name: ScenarioName, run: BundleRun): string[] {
  const green = run.code === 0
  return [
    bold(
      green
        ? `Green: the step passed (exit code 0), so ${GREEN_NEXT[name] ?? 'a job that needs it (the migrations, the deploy) starts'} now.`
        : `Red: the step failed (exit code ${run.code}), so ${name === 'teardown' ? 'the branch is not deleted' : 'a job that needs it does not start'}.`
    ),
    `${green ? 'What' : 'Why'}, as the job summary and the pull-request comment say it first:`,
    ...headline(run).map((line) => `  ${line}`),
    ...(name === 'teardown' || name === 'sweep' || run.outputs.outcome === name
      ? []
      : [`This scenario should have ended in ${name}.`])
  ]
}

async function show(name: ScenarioName, scenario: Scenario): Promise<boolean> {
  const { server, github, inputs, env, intro, gate, next } = scenario
  console.log(`Local API server: ${server.apiHost}`)
  for (const line of intro) console.log(line)
  console.log(`Running node dist/index.js as the runner would, with ${gate}:`)
  for (const [input, value] of Object.entries(inputs)) {
    const secret = ['api_key', 'github_token', 'database_url'].includes(input)
    console.log(`  INPUT_${input.toUpperCase()}=${secret ? '***' : value}`)
  }
  console.log(
    `  as a ${env.GITHUB_EVENT_NAME} run${env.GITHUB_EVENT_NAME === 'pull_request' ? ` for #${PULL_REQUESTS[name]}` : ''} of octo/app, GITHUB_API_URL=${github.apiUrl}`
  )
  const runOnce = async (): Promise<BundleRun> => {
    console.log('')
    const run = await runBundle(inputs, { onStdout: logPrinter(), env })
    console.log('')
    console.log(renderRun(run))
    console.log('')
    for (const line of verdict(name, run)) console.log(line)
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
      ? `The pull-request comment, posted to the local GitHub API as ${comment.user.login} (${comment.html_url}): the summary above under its hidden marker, ${comment.body.split('\n')[0]}, ${Buffer.byteLength(comment.body)} bytes.`
      : 'No pull-request comment was written.'
  )
  // The teardown's: blocked, then clear; the sweep's: its stale branches, and no comment.
  if (name === 'sweep') {
    const { gate, outcome, stale_count: count } = runs[0].outputs
    console.log(`The sweep found ${count} stale branches (the stale output lists them).`)
    return gate === 'sweep' && outcome === 'success' && count === '4'
  }
  const ended =
    name === 'teardown'
      ? runs.map((run) => run.outputs.preflight).join(' ') === 'blocked clear'
      : runs[0].outputs.outcome === name
  return ended && comment !== undefined
}

let passed = true
for (const [index, name] of (names as ScenarioName[]).entries()) {
  if (index > 0) console.log('')
  const title = `Scenario ${index + 1} of ${names.length}, ${name}: ${TITLES[name]}`
  console.log(bold(`${'='.repeat(Math.min(title.length, 100))}\n${title}\n`))
  passed = (await withScenario(name, (scenario) => show(name, scenario))) && passed
}
process.exitCode = passed ? 0 : 1
