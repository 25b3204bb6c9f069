/*
 * The suites that run src/ in process, for mutation testing (npm run mutation): the unit tier and
 * the simulated one (jest.config.js `projects`). Not the e2e tier (it runs dist/, which no mutant
 * reaches), nor the suites that need the global setup's servers (a real PostgreSQL), nor the
 * tooling tier; no coverage. One config, not projects: Stryker's Jest runner runs one.
 */
import { common, tiers } from './jest.config.js'

const unit = tiers.find((project) => project.displayName.name === 'unit')

/** @type {import('jest').Config} */
export default {
  preset: common.preset,
  testEnvironment: common.testEnvironment,
  // src/ too, so that Jest's related-tests lookup (Stryker runs each mutant's tests with it)
  // follows the imports from a test through __tests__/support/ (the simulated suites) to src/.
  roots: [...common.roots, '<rootDir>/src'],
  extensionsToTreatAsEsm: common.extensionsToTreatAsEsm,
  moduleNameMapper: common.moduleNameMapper,
  transform: common.transform,
  clearMocks: common.clearMocks,
  // Every test file of __tests__/ (the unit tier's match, which holds the simulated one) but the
  // e2e and tooling tiers', and the suites that need the global setup's PostgreSQL: the probe's,
  // and the command's property test (some of its generated runs end with the database check).
  testMatch: unit.testMatch,
  testPathIgnorePatterns: [
    '/node_modules/',
    '^<rootDir>/__tests__/(e2e|tooling)/',
    '/database-probe\\.test\\.ts$',
    '/command-properties\\.test\\.ts$',
    '/simulated/contract\\.test\\.ts$'
  ],
  testTimeout: 30000
}
