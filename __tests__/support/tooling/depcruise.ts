/*
 * dependency-cruiser's command, as `npm run lint` and `npm run graph` run it: in a process of its
 * own, where it loads in well under a second, not in Jest's VM, where the same cruise took three.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const CLI = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'node_modules',
  'dependency-cruiser',
  'bin',
  'dependency-cruiser.mjs'
)

/** What `depcruise ARGS` writes on standard output in `cwd`, whatever its exit code. */
export function depcruise(args: string[], cwd: string): string {
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' })
  if (run.error) throw run.error
  if (!run.stdout) throw new Error(`depcruise ${args.join(' ')} wrote nothing: ${run.stderr}`)
  return run.stdout
}
