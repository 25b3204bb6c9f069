/*
 * Runs the bundle locally with any inputs against any api_host, the way the runner does.
 *
 *   NEON_API_KEY=... node script/run-local.ts project_id=my-project-123 operation_id=... [api_host=...]
 *
 * The key comes from NEON_API_KEY (never from the command line, which other users can see). Without
 * api_host the action's default, the live API, is used. Each NAME=value argument becomes INPUT_NAME.
 */
import { runBundle } from './run-bundle.ts'
import { logPrinter, renderRun } from './terminal-render.ts'

const inputs: Record<string, string> = {}
for (const argument of process.argv.slice(2)) {
  const match = /^([a-z_]+)=(.*)$/s.exec(argument)
  if (!match || match[1] === 'api_key') {
    console.error(`Expected NAME=value (not api_key: set NEON_API_KEY), got: ${argument}`)
    process.exit(2)
  }
  inputs[match[1]] = match[2]
}
inputs.api_key = process.env.NEON_API_KEY ?? ''
if (!inputs.api_key)
  console.error('NEON_API_KEY is not set; the action will reject the empty api_key.')

const run = await runBundle(inputs, { onStdout: logPrinter() })
console.log('')
console.log(renderRun(run))
process.exitCode = run.code ?? 1
