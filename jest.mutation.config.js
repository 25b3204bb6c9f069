/*
 * The suites that run src/ in process, for mutation testing (npm run mutation): the unit tests and
 * the simulated ones. Not the e2e suites (they run dist/, which no mutant reaches), nor those that
 * need the global setup's servers (a real PostgreSQL), nor the tooling checks; no coverage.
 */
import base from './jest.config.js'

/** @type {import('jest').Config} */
export default {
  preset: base.preset,
  testEnvironment: base.testEnvironment,
  // src/ too, so that Jest's related-tests lookup (Stryker runs each mutant's tests with it)
  // follows the imports from a test through __tests__/support/ (the simulated suites) to src/.
  roots: ['<rootDir>/__tests__', '<rootDir>/src'],
  extensionsToTreatAsEsm: base.extensionsToTreatAsEsm,
  moduleNameMapper: base.moduleNameMapper,
  transform: base.transform,
  clearMocks: true,
  testMatch: ['<rootDir>/__tests__/*.test.ts', '<rootDir>/__tests__/simulated/*.test.ts'],
  // The suites that need the global setup's PostgreSQL: the probe's, and the command's property
  // test (some of its generated runs end with the database check).
  testPathIgnorePatterns: [
    '/database-probe\\.test\\.ts$',
    '/command-properties\\.test\\.ts$',
    '/simulated/contract\\.test\\.ts$'
  ],
  testTimeout: 30000
}
