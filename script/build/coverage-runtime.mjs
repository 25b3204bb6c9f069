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
 * The end-to-end and tooling suites count no coverage in process. The e2e suites prove src/
 * through the bundles, whose coverage coverage-preload.mjs counts; what runs in their process is
 * test support. The tooling checks call src/ only to compare the docs with it. Leaving both out changed
 * no figure of any file (2026-11-26). A file of theirs is not taken at all; the next file that
 * counts takes once first, so that what they ran is not counted as its own.
 *
 * Tied to jest-runtime 30's V8CoverageCollector (its `instrumenter` and `sources`); if a Jest
 * update breaks it, the unit tests' coverage vanishes and the coverage floors fail the run.
 */
import { Session } from 'node:inspector'
import { relative } from 'node:path'
import { promisify } from 'node:util'
import Runtime from 'jest-runtime'

/** Test files whose coverage is not counted in process (see above), from the root folder. */
const UNCOUNTED = /^__tests__[\\/](e2e|tooling)[\\/]/

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
 * new: an earlier file's copy of a module that did not run adds nothing, and a script V8 compiled
 * before can come back for a module loaded again with the same source (its compilation cache).
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
    const testFile = relative(this._config.rootDir, this._testPath)
    this.v8Coverage.instrumenter = UNCOUNTED.test(testFile) ? uncounted : counted
    return this.v8Coverage.instrumenter.startInstrumenting()
  }
}
