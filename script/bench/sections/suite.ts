/*
 * The test suite against its yardstick: `npm run test:unit` and `npm test` (coverage check
 * included) timed whole, in turn with `node -e "let s=0;for(let i=0;i<1e9;i++)s+=i"` run by the
 * project's Node (node_modules/.bin/node, the one `npm test` and .ci/run put first on PATH), set by
 * set. The bounds are 2 and 8 times the loop. Each command's CPU time is shown too (its processes'
 * and every one they waited for, from /proc/self/stat): on a machine of few cores the wall time
 * cannot fall below it shared out over the cores. A set is invalid, never a pass, when the machine
 * was busy before it (load average over 1) or its load changed during it (the loop's times spread
 * over 10 %). Runs only when named (`npm run benchmark -- suite`): it takes minutes. A SIGINT or
 * SIGTERM ends the running command's whole process group (`npm run benchmark` execs Node, so
 * npm's SIGTERM gets here).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { median, type Row } from '../common.ts'

const ROOT = join(import.meta.dirname, '..', '..', '..')
const NODE = join(ROOT, 'node_modules', '.bin', 'node')
const LOOP = 'let s=0;for(let i=0;i<1e9;i++)s+=i'
const SETS = 3
/** The commands timed against the loop, each with its bound (issue 67). */
const COMMANDS: { npmArgs: string[]; bound: number }[] = [
  { npmArgs: ['run', 'test:unit'], bound: 2 },
  { npmArgs: ['test'], bound: 8 }
]
const MAX_LOAD_BEFORE = 1
const MAX_LOOP_SPREAD = 1.1
/** What a failing command printed last, shown with its failure. */
const TAIL_BYTES = 4000

/** The command running now, in a process group of its own: a signal to the benchmark ends it. */
let running: ChildProcess | undefined

function endRunning(signal: NodeJS.Signals) {
  if (running?.pid) process.kill(-running.pid, 'SIGTERM')
  process.exit(signal === 'SIGINT' ? 130 : 143)
}

/** Clock ticks a second, for /proc's times: read once a suite section runs. */
let ticks: number | undefined

/**
 * CPU seconds of this process's children that have ended and been waited for, with theirs
 * (cutime and cstime, fields 16 and 17 of /proc/self/stat; its name, field 2, may hold spaces).
 */
function childrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }))
  return (Number(fields[13]) + Number(fields[14])) / ticks
}

/** A command's run: seconds from the spawn to the exit (monotonic), and its CPU seconds. */
interface Timed {
  wall: number
  cpu: number
}

/** The command to its end, timed; throws with the output's end when it fails. */
function timed(program: string, args: string[]): Promise<Timed> {
  const start = performance.now()
  const cpuBefore = childrenCpu()
  const child = spawn(program, args, { cwd: ROOT, detached: true, stdio: 'pipe' })
  running = child
  let output = ''
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-TAIL_BYTES))
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      running = undefined
      if (code === 0) {
        return resolve({ wall: (performance.now() - start) / 1000, cpu: childrenCpu() - cpuBefore })
      }
      const ended = signal ?? `exit ${code}`
      reject(
        new Error(`${program} ${args.join(' ')} ended with ${ended}; its last output:\n${output}`)
      )
    })
  })
}

const loop = () => timed(NODE, ['-e', LOOP])

/** Why a set says nothing of the suite, or undefined when it is valid. */
function whyInvalid(loadBefore: number, loopSpread: number): string | undefined {
  if (loadBefore > MAX_LOAD_BEFORE)
    return `the machine was busy before the set (load average ${loadBefore.toFixed(2)})`
  if (loopSpread > MAX_LOOP_SPREAD)
    return `the loop's times spread ${loopSpread.toFixed(2)}×: the machine's load changed`
  return undefined
}

export async function suiteSpeed(row: Row): Promise<void> {
  process.once('SIGINT', endRunning).once('SIGTERM', endRunning)
  const nodeVersion = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim()
  const loadBefore = loadavg()[0]
  await loop()
  for (const { npmArgs } of COMMANDS) await timed('npm', npmArgs)
  const sets: { loop: number; runs: Timed[] }[] = []
  for (let i = 0; i < SETS; i++) {
    const set = { loop: (await loop()).wall, runs: [] as Timed[] }
    for (const { npmArgs } of COMMANDS) set.runs.push(await timed('npm', npmArgs))
    sets.push(set)
  }
  const loops = sets.map((set) => set.loop)
  const invalid = whyInvalid(loadBefore, Math.max(...loops) / Math.min(...loops))
  COMMANDS.forEach(({ npmArgs, bound }, index) => {
    const runs = sets.map((set) => ({ loop: set.loop, run: set.runs[index] }))
    row(...measuredRow(`npm ${npmArgs.join(' ')}`, bound, runs, invalid, nodeVersion))
  })
}

/** One command's row: its median against the loop's, its CPU time, and the verdict. */
function measuredRow(
  name: string,
  bound: number,
  runs: { loop: number; run: Timed }[],
  invalid: string | undefined,
  nodeVersion: string
): [string, string, string] {
  const loop = median(runs.map((each) => each.loop))
  const ratios = runs.map((each) => each.run.wall / each.loop)
  const ratio = median(ratios)
  const cpu = median(runs.map((each) => each.run.cpu))
  const cores = availableParallelism()
  const verdict =
    invalid ??
    `${ratio.toFixed(2)}× the loop: ${ratio <= bound ? 'within' : 'OVER'} the bound of ${bound}×`
  return [
    `${invalid ? 'INVALID: ' : ''}${name} against the loop (Node ${nodeVersion}), ${runs.length} sets after a warm-up`,
    `median ${median(runs.map((each) => each.run.wall)).toFixed(1)} s against ${loop.toFixed(2)} s; ` +
      `its CPU ${cpu.toFixed(0)} s, so on ${cores} cores at least ${(cpu / cores / loop).toFixed(1)}× the loop`,
    `${verdict}; set by set ${ratios.map((each) => each.toFixed(2)).join(', ')}`
  ]
}
