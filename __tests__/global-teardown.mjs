// After a whole-suite run: coverage of src/ from the unit tests and the bundle runs together,
// checked against its floors (script/build/coverage.ts). A run that cannot check it says so.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'

export default async function globalTeardown(globalConfig) {
  await globalThis.localPostgres?.stop()
  const partial =
    globalConfig.nonFlagArgs.length > 0 || globalConfig.testNamePattern || globalConfig.onlyChanged
  if (!globalConfig.collectCoverage) {
    console.log(
      'Coverage of src/ was not checked: coverage is off in this run (CI never turns it off).'
    )
    return
  }
  if (partial) {
    console.log('Coverage of src/ was not checked: only some tests ran.')
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
