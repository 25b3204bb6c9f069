/*
 * Jest's runtime (jest.config.js `runtime`), with V8's coverage counted once per worker instead of
 * once per test file, and only for the suites whose coverage counts.
 *
 * Jest 30 (collect-v8-coverage) enables the debugger and starts V8's precise coverage before each
 * test file, then takes the counts and stops both after it. Each start makes V8 drop all compiled
 * code and walk the heap of a worker that holds every earlier file's modules, and enabling the
 * debugger reports every script loaded so far: on 2 cores that was 13 of the unit suites' 37
 * CPU-seconds (2026-11-26). Here a worker starts counting once, and each test file takes the
 * counts at its end, which resets them.
 *
 * The end-to-end and tooling suites count no coverage in process: what they prove of src/ runs in
 * the bundles, whose coverage coverage-preload.mjs counts. What they run here is test support, and
 * counting it changed no figure of any file (2026-11-26). A file of theirs is not taken at all; the
 * next file that counts takes once first, so that their scripts are not counted as its own.
 *
 * Tied to jest-runtime 30's V8CoverageCollector (its `instrumenter` and `sources`); if a Jest
 * update breaks it, the unit tests' coverage vanishes and the coverage floors fail the run.
 */
import { Session } from 'node:inspector'
import { promisify } from 'node:util'
import Runtime from 'jest-runtime'

/** Test files whose coverage is not counted in process (see above). */
export const UNCOUNTED = /[\\/]__tests__[\\/](e2e|tooling)[\\/]/

/** This worker's inspector session, counting from its first test file on. */
let post
/** The scripts an earlier take reported. */
const taken = new Set()
/** Whether a file that counts nothing ran since the last take. */
let untaken = false

async function counting() {
  if (!post) {
    const session = new Session()
    session.connect()
    post = promisify(session.post.bind(session))
    await post('Profiler.enable')
    await post('Profiler.startPreciseCoverage', { callCount: true, detailed: true })
  }
  return post
}

/** Whether any code of the script ran. */
const ran = (script) => script.functions.some((fn) => fn.ranges.some((range) => range.count > 0))

/**
 * The counts since the last take (which a take resets), of the scripts that ran since then or are
 * new: an earlier file's copy of a module that did not run adds nothing, and V8 gives a module of
 * the same source and name loaded again by a CommonJS test the script it compiled before.
 */
async function take() {
  const { result } = await (await counting())('Profiler.takePreciseCoverage')
  const since = result.filter((script) => !taken.has(script.scriptId) || ran(script))
  for (const script of result) taken.add(script.scriptId)
  untaken = false
  return since
}

/** collect-v8-coverage's CoverageInstrumenter, for one test file. */
const counted = {
  async startInstrumenting() {
    if (untaken) await take()
    else await counting()
  },
  stopInstrumenting: take
}

const uncounted = {
  async startInstrumenting() {
    untaken = true
  },
  async stopInstrumenting() {
    return []
  }
}

export default class CoverageRuntime extends Runtime {
  collectV8Coverage() {
    this.v8Coverage.sources = new Map()
    this.v8Coverage.instrumenter = UNCOUNTED.test(this._testPath) ? uncounted : counted
    return this.v8Coverage.instrumenter.startInstrumenting()
  }
}
