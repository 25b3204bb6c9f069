/*
 * Mutation testing of the gate's core rules (npm run mutation): the statuses, the wait loop, the
 * pace, the operation sources and the judgement of recent failures. script/build/mutation-floor.ts
 * then holds each module to its own floor.
 */
export default {
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  // Every suite in the dry run: Jest's related-tests lookup misses those that reach src/ through
  // script/ (the simulated ones); with perTest coverage each mutant still runs only its own tests.
  jest: { configFile: 'jest.mutation.config.js', enableFindRelatedTests: false },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 8000,
  mutate: [
    'src/domain/operation-status.ts',
    'src/wait/wait-for-operations.ts',
    'src/api/pace.ts',
    'src/wait/operation-sources.ts',
    'src/wait/recent-failures.ts'
  ],
  ignorePatterns: ['dist', 'docs', 'examples', 'coverage', 'build', 'reports'],
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always'
}
