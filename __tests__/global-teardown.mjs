// After a whole-suite run: coverage of src/ from the unit tests and the bundle runs together,
// checked against its threshold (script/coverage.ts). A run of some files or tests skips it.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'

export default function globalTeardown(globalConfig) {
  const partial =
    globalConfig.nonFlagArgs.length > 0 || globalConfig.testNamePattern || globalConfig.onlyChanged
  if (partial || !globalConfig.collectCoverage) return
  try {
    execFileSync(process.execPath, [join(import.meta.dirname, '..', 'script', 'coverage.ts')], {
      stdio: 'inherit'
    })
  } catch {
    throw new Error('Coverage of src/ is below its threshold (script/coverage.ts)')
  }
}
