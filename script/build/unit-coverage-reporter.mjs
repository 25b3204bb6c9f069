// jest-monocart-coverage as the unit tests' coverage reporter, without the entries that carry no
// transform result. Jest leaves that out for a module still loading when its test timed out; its
// own reporter skips such entries, but jest-monocart-coverage 1.1 reads them and throws, so a run
// in which tests timed out ended in a TypeError instead of its summary and the global teardown.
import MonocartCoverageReporter from 'jest-monocart-coverage'

export default class UnitCoverageReporter extends MonocartCoverageReporter {
  onTestResult(test, testResult, aggregatedResults) {
    const v8Coverage = testResult.v8Coverage?.filter((entry) => entry.codeTransformResult)
    super.onTestResult(
      test,
      v8Coverage ? { ...testResult, v8Coverage } : testResult,
      aggregatedResults
    )
  }
}
