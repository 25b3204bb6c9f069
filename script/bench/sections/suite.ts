/*
 * The test suite against its yardstick: `npm test` (coverage check included) timed whole, in turn
 * with `node -e "let s=0;for(let i=0;i<1e9;i++)s+=i"` run by the Node that runs this, the
 * project's own (the one `npm test` and .ci/run put first on PATH), pair by pair. The bound is 8
 * times the loop. A set whose loops differ by more than 15 % shared the machine with other work:
 * it is printed as invalid, never as a pass. Runs only when named (`npm run benchmark -- suite`):
 * it takes minutes.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { median, type Row } from '../common.ts'

const ROOT = join(import.meta.dirname, '..', '..', '..')
const LOOP = 'let s=0;for(let i=0;i<1e9;i++)s+=i'
const PAIRS = 3
const BOUND = 8
/** The largest spread of the loop's times (slowest over fastest) a valid set may have. */
const STEADY = 1.15

/** Seconds from the spawn to the exit, monotonic; throws when the command fails. */
function timed(program: string, args: string[]): Promise<number> {
  const start = performance.now()
  const child = spawn(program, args, { cwd: ROOT, stdio: 'ignore' })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (code === 0) resolve((performance.now() - start) / 1000)
      else reject(new Error(`${program} ${args.join(' ')} ended with ${signal ?? `exit ${code}`}`))
    })
  })
}

const loop = () => timed(process.execPath, ['-e', LOOP])
const suite = () => timed('npm', ['test'])

export async function suiteSpeed(row: Row): Promise<void> {
  await loop()
  await suite()
  const pairs: { loop: number; suite: number }[] = []
  for (let i = 0; i < PAIRS; i++) pairs.push({ loop: await loop(), suite: await suite() })
  const loops = pairs.map((pair) => pair.loop)
  const ratios = pairs.map((pair) => pair.suite / pair.loop)
  const spread = Math.max(...loops) / Math.min(...loops)
  const verdict =
    spread > STEADY
      ? `invalid: the loop's times spread ${spread.toFixed(2)}×, the machine was busy`
      : `${median(ratios).toFixed(2)}× the loop (bound ${BOUND}×)`
  row(
    `npm test against the loop (Node ${process.versions.node}), ${PAIRS} pairs after a warm-up`,
    `median ${median(pairs.map((pair) => pair.suite)).toFixed(1)} s against ${median(loops).toFixed(2)} s`,
    `${verdict}; pair by pair ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`
  )
}
