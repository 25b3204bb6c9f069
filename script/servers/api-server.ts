/*
 * npm run api-server -- [--port 4010] [--clock-skew 960] [--database-url URL] [--help]: the local API
 * server with the demo world, a branch creation in flight, and the demo keys printed, for trying
 * the action or run-local by hand. `--clock-skew` sets the server's clock that many seconds ahead
 * (negative: behind), as a runner whose clock is off by the opposite would see it. With
 * `--database-url`, the port takes writes too, as the recipes' tests have them (writes.ts): a new
 * branch (a child of the `parent_id` it names, as `neon branches create --parent` sends), its
 * connection string (Neon's CLI reads it), its delete; every branch's database is the
 * one at URL. The live workflow's local run (.github/workflows/live.yml) uses it.
 */
import { parseArgs } from 'node:util'
import { startApiServer } from '../../__tests__/support/neon/server.ts'
import { demoWorld } from '../../__tests__/support/neon/scenarios.ts'
import { KEYS, PROJECT } from '../../__tests__/support/neon/ids.ts'
import { startWritingFront } from '../../__tests__/support/neon/writes.ts'

const USAGE = `Usage: npm run api-server -- [--port N] [--clock-skew S] [--database-url URL]

The local Management API v2 with the demo world, a branch creation in flight, and the demo keys.
  --port N              the port to listen on (default 4010)
  --clock-skew S        the server's clock S seconds ahead (negative: behind)
  --database-url URL    take writes too (a new branch, its connection string, its delete)
  -h, --help            print this and exit`

/** The flags, or exit: 0 after --help, 2 with the usage on stderr for anything else. */
function readFlags(): { port: number; clockSkewS: number; databaseUrl?: string } {
  try {
    // Strict: an unknown flag or a stray argument throws.
    const { values } = parseArgs({
      args: withNegativeSkew(process.argv.slice(2)),
      options: {
        port: { type: 'string' },
        'clock-skew': { type: 'string' },
        'database-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      },
      allowNegative: false,
      strict: true
    })
    if (values.help) {
      console.log(USAGE)
      process.exit(0)
    }
    return {
      port: numberOf('--port', values.port ?? '4010'),
      clockSkewS: numberOf('--clock-skew', values['clock-skew'] ?? '0'),
      databaseUrl: values['database-url']
    }
  } catch (error) {
    console.error(`api-server: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
}

/** A negative skew as its own argument (`--clock-skew -960`) is its value, not a flag. */
function withNegativeSkew(args: string[]): string[] {
  const at = args.indexOf('--clock-skew')
  if (at < 0 || !/^-\d+$/.test(args[at + 1] ?? '')) return args
  return [...args.slice(0, at), `--clock-skew=${args[at + 1]}`, ...args.slice(at + 2)]
}

function numberOf(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new Error(`${flag} takes a whole number, not '${text}'`)
  return Number(text)
}

const { port, clockSkewS, databaseUrl } = readFlags()
const world = demoWorld({ history: 120, clockSkewMs: clockSkewS * 1000 })
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
