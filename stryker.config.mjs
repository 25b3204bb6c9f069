/*
 * Mutation testing of the gate's core rules (npm run mutation, script/build/mutation.ts): the
 * statuses, the wait loop, the pace, the operation sources, the judgement of recent failures, the
 * branch's history and its near matches, the project's state past the first read, the check
 * before a teardown (its rules and its reads), and the action's runner (src/runner/): the
 * pull-request comment's protocol and its calls to GitHub, the context, inputs, annotations, what
 * is published and run() around them.
 * script/build/mutation-floor.ts then holds each module to its own floor and fails on any survivor
 * that stryker.survivors.json does not accept.
 */
export default {
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  // Each mutant loads only the suites that import its module (Jest's related tests: the roots of
  // jest.mutation.config.js take in src/, so the simulated suites are found through
  // __tests__/support/), and runs only the tests that reached the mutant (perTest coverage; a
  // mutant in what runs as a module loads, such as a table, runs them all). Loading a suite costs about 0.1 s for
  // every mutant, whether a test of it runs or not.
  jest: { configFile: 'jest.mutation.config.js', enableFindRelatedTests: true },
  coverageAnalysis: 'perTest',
  // Incremental: the results of the last run are kept in a committed baseline, and a run re-tests
  // only the mutants whose code, or whose covering tests, changed since (docs/development.md).
  incremental: true,
  incrementalFile: 'stryker.incremental.json',
  concurrency: 2,
  // Added to the covering tests' time. A mutant's run also loads every related suite (about 30 for
  // a wait module, some 40 s of CPU on two cores): with 8 s every mutant timed out, even on a quiet
  // machine, a hang or not. 60 s leaves a timeout to real hangs.
  timeoutMS: 60000,
  mutate: [
    'src/domain/operation-status.ts',
    'src/wait/wait-for-operations.ts',
    'src/api/pace.ts',
    'src/wait/operation-sources.ts',
    'src/wait/project-gate-source.ts',
    'src/wait/gated-branch.ts',
    'src/wait/later-polls.ts',
    'src/wait/recent-failures.ts',
    'src/wait/branch-history.ts',
    'src/wait/near-branch.ts',
    'src/wait/project-state.ts',
    'src/domain/teardown-rules.ts',
    'src/steps/teardown/teardown-check.ts',
    'src/runner/comment-records.ts',
    'src/runner/comment-view.ts',
    'src/runner/comment-round.ts',
    'src/runner/comment-protocol.ts',
    'src/runner/comment-writes.ts',
    'src/runner/comment-leg.ts',
    'src/runner/github-comments.ts',
    'src/runner/pr-comment.ts',
    'src/runner/pull-request-states.ts',
    'src/runner/github-context.ts',
    'src/runner/input-helper.ts',
    'src/runner/annotations.ts',
    'src/runner/publish.ts',
    'src/runner/octokit.ts',
    'src/runner/main.ts'
  ],
  ignorePatterns: ['dist', 'docs', 'examples', 'coverage', 'build', 'reports'],
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always'
}
