/*
 * A Jest reporter: the run by tier (jest.config.js `projects`), before Jest's summary, so that a
 * failure of the docs or the project's tools reads apart from a failure of the product. Each tier
 * that ran a file gets a line, in the order of the option `order`: its files and tests, and the
 * files that failed. The tiers named in the
 * option `apart` (tooling) check the docs and the tools, not the gate: when only they failed, a
 * last line says so, and which of the product's tiers passed.
 *
 * It also leaves the names of the tiers that ran where the global teardown finds them (TIERS_RAN):
 * the coverage floors hold for a run of every tier, not for `npm run test:unit`.
 */
import { relative } from 'node:path'

/** Where the tiers that ran are left for the global teardown, in Jest's main process. */
export const TIERS_RAN = Symbol.for('neon-operations-gate.tiers-ran')

const plural = (count, word) => `${count} ${word}${count === 1 ? '' : 's'}`

/** The tier of a test file's result (its project's displayName), or '' outside any. */
const tierOf = (result) => result.displayName?.name ?? ''

/** Whether a test file failed: a test of it, or the file itself (it did not load, say). */
const failedFile = (result) => result.numFailingTests > 0 || Boolean(result.testExecError)

/** One line a tier: `  unit       34 files, 612 tests: passed`, or the files that failed. */
function tierLines(tiers, testResults, rootDir) {
  const width = Math.max(0, ...tiers.map((tier) => tier.length))
  return tiers.map((tier) => {
    const files = testResults.filter((result) => tierOf(result) === tier)
    const tests = files.reduce(
      (sum, file) => sum + file.numPassingTests + file.numFailingTests + file.numPendingTests,
      0
    )
    const failed = files.filter(failedFile)
    const verdict =
      failed.length === 0
        ? 'passed'
        : `${plural(failed.length, 'file')} failed: ${failed
            .map((file) => relative(rootDir, file.testFilePath))
            .join(', ')}`
    return `  ${tier.padEnd(width)}  ${plural(files.length, 'file')}, ${plural(tests, 'test')}: ${verdict}`
  })
}

/**
 * The last line when only tiers set apart failed, naming the product's tiers that ran and passed;
 * undefined otherwise.
 */
function apartLine(tiers, testResults, apart) {
  const failed = new Set(testResults.filter(failedFile).map(tierOf))
  if (failed.size === 0 || ![...failed].every((tier) => tier in apart)) return undefined
  const what = [...failed].map((tier) => `${tier} (${apart[tier]})`).join(', ')
  const passed = tiers.filter((tier) => !(tier in apart))
  return passed.length === 0
    ? `Only ${what} failed.`
    : `Only ${what} failed: the product's tiers passed (${passed.join(', ')}).`
}

export default class TierReporter {
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir
    this.apart = options.apart ?? {}
    this.order = options.order ?? []
  }

  /** The tiers in the configured order (Jest hands them in the order it set them up). */
  ordered(tiers) {
    const rank = (tier) =>
      this.order.includes(tier) ? this.order.indexOf(tier) : this.order.length
    return [...tiers].sort((a, b) => rank(a) - rank(b))
  }

  onRunComplete(testContexts, results) {
    const selected = [...testContexts].map((context) => context.config.displayName?.name ?? '')
    globalThis[TIERS_RAN] = selected
    // The tiers with a file in this run (a run of some files leaves the others out).
    const tiers = this.ordered(selected).filter(
      (tier) => tier !== '' && results.testResults.some((result) => tierOf(result) === tier)
    )
    if (tiers.length === 0) return
    const lines = ['By tier (docs/development.md, "Tiers"):']
    lines.push(...tierLines(tiers, results.testResults, this.rootDir))
    const apart = apartLine(tiers, results.testResults, this.apart)
    if (apart) lines.push(apart)
    process.stderr.write(`${lines.join('\n')}\n`)
  }
}
