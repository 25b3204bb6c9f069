/*
 * Runs the bundle locally with any inputs against any api_host, the way the runner does.
 *
 *   NEON_API_KEY=... npm run local -- project_id=my-project-123 operation_id=... [api_host=...]
 *
 * The key comes from NEON_API_KEY (never from the command line, which other users can see). Without
 * api_host the action's default, the live API, is used. Each NAME=value argument becomes INPUT_NAME.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureFreshBundle, ROOT } from '../build/fresh-bundle.ts'
import { runBundle } from '../../__tests__/support/bundles/run-bundle.ts'
import { logPrinter, renderRun } from '../demo/terminal-render.ts'

// The inputs action.yml declares; the runner warns about any other, and so does this script.
const actionYml = readFileSync(join(ROOT, 'action.yml'), 'utf8')
const declared = new Set(
  [...(actionYml.split(/^inputs:\n/m)[1] ?? '').split(/^\S/m)[0].matchAll(/^ {2}([a-z_]+):/gm)].map(
    (match) => match[1]
  )
)

const inputs: Record<string, string> = {}
for (const argument of process.argv.slice(2)) {
  const match = /^([a-z_]+)=(.*)$/s.exec(argument)
  if (!match || match[1] === 'api_key') {
    console.error(`Expected NAME=value (not api_key: set NEON_API_KEY), got: ${argument}`)
    process.exit(2)
  }
  if (!declared.has(match[1])) {
    console.error(
      `Warning: Unexpected input '${match[1]}', valid inputs are ${[...declared].join(', ')}`
    )
  }
  inputs[match[1]] = match[2]
}
ensureFreshBundle()
inputs.api_key = process.env.NEON_API_KEY ?? ''
if (!inputs.api_key)
  console.error('NEON_API_KEY is not set; the action will reject the empty api_key.')

const run = await runBundle(inputs, { onStdout: logPrinter() })
console.log('')
console.log(renderRun(run))
process.exitCode = run.code ?? 1
