/*
 * Runner files that would block or cannot be written, over the bundle: GITHUB_STEP_SUMMARY or
 * GITHUB_OUTPUT naming a FIFO that nobody reads, or a GITHUB_OUTPUT that cannot be written. The step
 * must end by itself: an unwritable summary is a warning, and unwritable outputs are an error that
 * names GITHUB_OUTPUT.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, serve } from '../support/bundles/action.js'
import { PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'

const dirs: string[] = []

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function fifo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fifo-'))
  dirs.push(dir)
  const path = join(dir, 'nobody-reads')
  execFileSync('mkfifo', [path])
  return path
}

/** The action, with the runner file `variable` names a FIFO that nobody reads. */
async function runWithFifoAs(variable: string) {
  const { server } = await serve()
  return runAction(
    server,
    { project_id: PROJECT, timeout: '3s' },
    { env: { [variable]: fifo() }, killAfterMs: 15_000 }
  )
}

describe('runner files that nobody reads', () => {
  it('GITHUB_STEP_SUMMARY is a FIFO: a warning, and the step ends by itself', async () => {
    const run = await runWithFifoAs('GITHUB_STEP_SUMMARY')
    expect(run.signal).toBeNull()
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.stdout).toMatch(
      /^::warning::Could not write the job summary \(GITHUB_STEP_SUMMARY\): .*is not a regular file/m
    )
  })

  it('GITHUB_OUTPUT is a FIFO: an error naming GITHUB_OUTPUT, and the step ends by itself', async () => {
    const run = await runWithFifoAs('GITHUB_OUTPUT')
    expect(run.signal).toBeNull()
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^::error::Could not write the step's outputs \(GITHUB_OUTPUT\): /m)
    expect(run.summary).toContain('✅ success')
  })
})

describe('runner files that cannot be written', () => {
  it('an unwritable GITHUB_OUTPUT is one clear error; the summary is still written', async () => {
    const { world, server } = await serve()
    const op = operationIn(world, 'finished')
    const dir = mkdtempSync(join(tmpdir(), 'output-dir-'))
    try {
      const run = await runAction(
        server,
        { project_id: PROJECT, operation_id: op.id },
        { env: { GITHUB_OUTPUT: dir } }
      )
      expect(run.code).toBe(1)
      expect(run.stdout).toContain("::error::Could not write the step's outputs (GITHUB_OUTPUT)")
      expect(run.summary).toContain('✅ success')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
