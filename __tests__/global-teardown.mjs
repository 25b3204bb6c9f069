// After a whole-suite run: coverage of src/ from the unit tests and the bundle runs together,
// checked against its floors (script/build/coverage.ts). A run that cannot check it says so.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { tiers } from '../jest.config.js'
import { TIERS_RAN } from '../script/build/tier-reporter.mjs'

/**
 * Why this run cannot check the floors, or undefined for a run of every test: some files, names or
 * changes picked, or some tiers (`npm run test:unit`, `--selectProjects`). `ran` is the tiers that
 * ran, as the tier reporter left them (undefined when it did not run).
 */
export function partialRun(globalConfig, ran) {
  const picked =
    globalConfig.nonFlagArgs.length > 0 ||
    globalConfig.testPathPatterns?.isSet() ||
    globalConfig.testNamePattern ||
    globalConfig.onlyChanged ||
    globalConfig.onlyFailures ||
    globalConfig.findRelatedTests ||
    globalConfig.shard
  if (picked) return 'only some tests ran'
  const missing = tiers.map((tier) => tier.displayName.name).filter((name) => !ran?.includes(name))
  if (missing.length > 0) return `not every tier ran (not ${missing.join(', ')})`
  return undefined
}

export default async function globalTeardown(globalConfig) {
  await globalThis.localPostgres?.stop()
  if (!globalConfig.collectCoverage) {
    console.log(
      'Coverage of src/ was not checked: coverage is off in this run (CI never turns it off).'
    )
    return
  }
  const partial = partialRun(globalConfig, globalThis[TIERS_RAN])
  if (partial) {
    console.log(`Coverage of src/ was not checked: ${partial}.`)
    return
  }
  try {
    execFileSync(
      process.execPath,
      [join(import.meta.dirname, '..', 'script', 'build', 'coverage.ts')],
      {
        stdio: 'inherit'
      }
    )
  } catch {
    throw new Error('Coverage of src/ is below its floors (script/build/coverage.ts)')
  }
}
