import { availableParallelism } from 'node:os'

/**
 * What every tier shares: ES-module TypeScript through ts-jest, and the coverage runtime
 * (script/build/coverage-runtime.mjs), which counts the coverage of src/ once a worker and only
 * for the unit and simulated tiers. jest.mutation.config.js builds on it too.
 */
export const common = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1'
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }]
  },
  clearMocks: true,
  runtime: '<rootDir>/script/build/coverage-runtime.mjs'
}

/** The tiers' folders; a test file anywhere else in __tests__/ is a unit test. */
const FOLDERS = ['simulated', 'e2e', 'tooling']

/**
 * The tiers (docs/development.md, "Tiers"), each a Jest project: `npm run test:<name>` runs one,
 * and Jest names each file's and each failure's tier. Those that run dist/ have its fresh build
 * first (global-setup.mjs); every tier has the shared PostgreSQL (global-setup-postgres.mjs).
 */
export const tiers = [
  {
    ...common,
    displayName: { name: 'unit', color: 'cyan' },
    testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
    testPathIgnorePatterns: ['/node_modules/', `^<rootDir>/__tests__/(${FOLDERS.join('|')})/`],
    globalSetup: '<rootDir>/__tests__/global-setup-postgres.mjs'
  },
  {
    ...common,
    displayName: { name: 'simulated', color: 'blue' },
    testMatch: ['<rootDir>/__tests__/simulated/**/*.test.ts'],
    globalSetup: '<rootDir>/__tests__/global-setup-postgres.mjs'
  },
  {
    ...common,
    displayName: { name: 'e2e', color: 'magenta' },
    testMatch: ['<rootDir>/__tests__/e2e/**/*.test.ts'],
    globalSetup: '<rootDir>/__tests__/global-setup.mjs'
  },
  {
    ...common,
    displayName: { name: 'tooling', color: 'yellow' },
    testMatch: ['<rootDir>/__tests__/tooling/**/*.test.ts'],
    globalSetup: '<rootDir>/__tests__/global-setup.mjs'
  }
]

/** @type {import('jest').Config} */
export default {
  projects: tiers,
  // Coverage of src/ from the unit tests here, and from the bundle runs (global setup and
  // teardown, script/build/coverage.ts); the teardown checks the threshold after a whole-suite run.
  collectCoverage: true,
  collectCoverageFrom: ['src/**/*.ts'],
  // V8's own counts (blocks, branches, functions), handed raw to monocart-coverage-reports, which
  // script/build/coverage.ts merges with the bundle runs'.
  coverageProvider: 'v8',
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
    ],
    // A line a tier before Jest's summary, in this order; a failure of tooling alone told apart.
    [
      '<rootDir>/script/build/tier-reporter.mjs',
      {
        order: tiers.map((tier) => tier.displayName.name),
        apart: { tooling: "the docs and the project's own tools, not the gate" }
      }
    ]
  ],
  globalTeardown: '<rootDir>/__tests__/global-teardown.mjs',
  testTimeout: 30000,
  // From the machine's cores: the e2e suites spawn the bundles and partly wait on 1 s intervals
  // (the command's, the recipes', a resolver failing for 3 intervals), so four workers a core (on
  // 2 cores, 2026-11-26: 6 workers 49.1-50.8 s, 8 46.4-46.7 s, 10 47.9 s, 12 49.7 s, at the same
  // CPU time; 2026-11-30: 4 workers 145-149 s, 6 133-135 s, 8 132-135 s, at 245-260 CPU-s); at
  // most 12, since each worker holds its own modules (a few hundred MB).
  maxWorkers: Math.min(4 * availableParallelism(), 12),
  // A worker ends on its own 400-550 ms after its last test on 2 cores (its 'exit' event comes at
  // once; the rest is the process tearing down, all workers at once), so Jest's 500 ms called
  // workers that hold nothing open leaking. A handle held for longer still shows.
  workerGracefulExitTimeout: 1500
}
