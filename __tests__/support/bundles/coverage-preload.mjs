// Coverage of one bundle run for the test suite, loaded with `node --import` before dist/index.js:
// V8's block counts of dist/'s scripts only, written when the process exits, where the coverage
// check (script/build/coverage.ts) reads them. NODE_V8_COVERAGE would do the same, but it also
// makes Node read, parse and write again the bundle's 1.8 MB source map at every run, and write
// every internal script's counts: a quarter of a run's CPU time, spent about 140 times a suite.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { enableCompileCache } from 'node:module'
import { join } from 'node:path'

// The bundles' compiled code is kept between runs (V8's code cache, beside the coverage): each run
// then skips compiling 2 MB of JavaScript, which cut the suite's CPU time by a fifteenth, and the
// block counts are the same to the statement.
enableCompileCache(join(process.env.BUNDLE_V8_COVERAGE ?? '.', '..', 'bundle-compile-cache'))

const session = new Session()
session.connect()
session.post('Profiler.enable')
session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true })
// The inspector answers a session of its own thread at once, so this runs within 'exit'.
process.on('exit', () => {
  session.post('Profiler.takePreciseCoverage', (error, coverage) => {
    if (error) return
    const result = coverage.result.filter((script) => script.url.includes('/dist/'))
    const name = `coverage-${process.pid}-${Date.now()}.json`
    writeFileSync(join(process.env.BUNDLE_V8_COVERAGE ?? '.', name), JSON.stringify({ result }))
  })
})
