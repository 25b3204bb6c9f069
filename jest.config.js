import { availableParallelism } from 'node:os'

/** @type {import('jest').Config} */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1'
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }]
  },
  clearMocks: true,
  // Coverage of src/ from the unit tests here, and from the bundle runs (global setup and
  // teardown, script/build/coverage.ts); the teardown checks the threshold after a whole-suite run.
  collectCoverage: true,
  collectCoverageFrom: ['src/**/*.ts'],
  // V8's own counts (blocks, branches, functions), handed raw to monocart-coverage-reports, which
  // script/build/coverage.ts merges with the bundle runs'.
  coverageProvider: 'v8',
  runtime: '<rootDir>/script/build/coverage-runtime.mjs',
  coverageReporters: ['none'],
  reporters: [
    'default',
    [
      '<rootDir>/script/build/unit-coverage-reporter.mjs',
      {
        name: 'unit tests',
        outputDir: 'coverage/unit',
        reports: [['raw', { outputDir: 'raw' }]],
        entryFilter: (entry) => entry.url.includes('/src/'),
        sourceFilter: (path) => path.startsWith('src/'),
        logging: 'error'
      }
    ]
  ],
  globalTeardown: '<rootDir>/__tests__/global-teardown.mjs',
  testTimeout: 30000,
  // dist/ is rebuilt first if its build stamp is not src/'s: the e2e suites run it.
  globalSetup: '<rootDir>/__tests__/global-setup.mjs',
  // From the machine's cores: the e2e suites spawn the bundles and partly wait on 1 s intervals
  // (the command's, the recipes', a resolver failing for 3 intervals), so four workers a core (on
  // 2 cores, 2026-11-26: 6 workers 49.1-50.8 s, 8 46.4-46.7 s, 10 47.9 s, 12 49.7 s, at the same
  // CPU time); at most 12, since each worker holds its own modules (a few hundred MB).
  maxWorkers: Math.min(4 * availableParallelism(), 12),
  // A worker ends on its own 400-550 ms after its last test on 2 cores (its 'exit' event comes at
  // once; the rest is the process tearing down, all workers at once), so Jest's 500 ms called
  // workers that hold nothing open leaking. A handle held for longer still shows.
  workerGracefulExitTimeout: 1500
}
