/**
 * The unit tests' coverage reporter ends a run whose coverage holds an entry without a transform
 * result (a module still loading when its test timed out) with a report, where
 * jest-monocart-coverage alone throws.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A Jest reporter as far as these tests call it (neither module declares its class's type). */
type CoverageReporter = new (
  globalConfig: object,
  options: object,
  context: object
) => {
  onTestResult(test: object, testResult: object, aggregatedResults: object): void
  onRunComplete(testContexts: Set<unknown>, results: object): Promise<void>
}

const reporterPath = join(
  import.meta.dirname,
  '..',
  '..',
  'script',
  'build',
  'unit-coverage-reporter.mjs'
)
const UnitCoverageReporter = ((await import(reporterPath)) as { default: CoverageReporter }).default
const MonocartCoverageReporter = createRequire(import.meta.url)(
  'jest-monocart-coverage'
) as CoverageReporter

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

const covered = (name: string) => ({
  scriptId: name,
  url: `file:///project/src/${name}.js`,
  functions: [
    {
      functionName: '',
      isBlockCoverage: true,
      ranges: [{ startOffset: 0, endOffset: 10, count: 1 }]
    }
  ]
})

/** The scripts a reporter's raw report holds coverage for. */
async function report(Reporter: CoverageReporter): Promise<string[]> {
  const outputDir = mkdtempSync(join(tmpdir(), 'unit-coverage-'))
  folders.push(outputDir)
  const reporter = new Reporter(
    { collectCoverage: true, coverageProvider: 'v8' },
    { outputDir, reports: [['raw', { outputDir: 'raw' }]], logging: 'error' },
    {}
  )
  reporter.onTestResult(
    {},
    {
      v8Coverage: [
        {
          result: covered('loaded'),
          codeTransformResult: { code: 'let a = 1;', wrapperLength: 0 }
        },
        { result: covered('still-loading') }
      ]
    },
    {}
  )
  await reporter.onRunComplete(new Set(), {})
  const raw = join(outputDir, 'raw')
  return readdirSync(raw)
    .filter((name) => name.startsWith('coverage-'))
    .flatMap((name) => JSON.parse(readFileSync(join(raw, name), 'utf8')).data)
    .map((entry: { url: string }) => entry.url)
}

describe('the unit tests’ coverage reporter', () => {
  it('reports the entries it can read and leaves out one without a transform result', async () => {
    expect(await report(UnitCoverageReporter)).toEqual(['file:///project/src/loaded.js'])
  })

  it('jest-monocart-coverage alone throws on that entry', async () => {
    await expect(report(MonocartCoverageReporter)).rejects.toThrow(TypeError)
  })
})
