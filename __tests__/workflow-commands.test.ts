import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals'
import * as core from '@actions/core'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as runner from '../src/workflow-commands.js'
import { parseOutputFile } from '../script/run-bundle.js'

// Text a hostile server or a careless caller could hand to each call.
const MESSAGES = [
  'plain line',
  '',
  '100% done',
  'two\nlines\r\nand a carriage return\r',
  '::set-output name=outcome::success',
  'already escaped %0A::error::x',
  'title: with, commas and colons',
  'ünïcödé ✅ and a tab\t'
]

let dir: string
let written: string[]
const ENV = ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'INPUT_API_KEY', 'INPUT_PR_COMMENT']

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'workflow-commands-'))
  written = []
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk))
    return true
  })
  for (const name of ENV) delete process.env[name]
})

afterEach(() => {
  jest.restoreAllMocks()
  process.exitCode = undefined
  for (const name of ENV) delete process.env[name]
  rmSync(dir, { recursive: true, force: true })
})

/**
 * What `call` writes to standard output. @actions/core writes `::error ::` when it is given a
 * property object whose values are all empty; the runner reads that the same as `::error::`.
 */
function stdoutOf(call: () => void): string {
  written.length = 0
  call()
  return written.join('').replace(/^::([a-z-]+) ::/gm, '::$1::')
}

describe('the same bytes as @actions/core', () => {
  it.each(MESSAGES)('info, debug, warning, error and add-mask of %j', (message) => {
    expect(stdoutOf(() => runner.info(message))).toBe(stdoutOf(() => core.info(message)))
    expect(stdoutOf(() => runner.debug(message))).toBe(stdoutOf(() => core.debug(message)))
    expect(stdoutOf(() => runner.warning(message))).toBe(stdoutOf(() => core.warning(message)))
    expect(stdoutOf(() => runner.setSecret(message))).toBe(stdoutOf(() => core.setSecret(message)))
    for (const title of [undefined, '', message, 'create_branch failed on br-1: a, b']) {
      expect(stdoutOf(() => runner.error(message, { title }))).toBe(
        stdoutOf(() => core.error(message, { title }))
      )
    }
  })

  it.each(MESSAGES)('setFailed of %j, which also sets the exit code', (message) => {
    const ours = stdoutOf(() => runner.setFailed(message))
    expect(process.exitCode).toBe(1)
    process.exitCode = undefined
    expect(ours).toBe(stdoutOf(() => core.setFailed(message)))
    expect(process.exitCode).toBe(1)
  })

  it.each(MESSAGES)('setOutput of %j into GITHUB_OUTPUT, up to the random delimiter', (value) => {
    const file = join(dir, 'output')
    process.env.GITHUB_OUTPUT = file
    const outputOf = (call: () => void) => {
      writeFileSync(file, '')
      call()
      return readFileSync(file, 'utf8').replace(/ghadelimiter_[0-9a-f-]{36}/g, 'DELIMITER')
    }
    const ours = outputOf(() => runner.setOutput('operations', value))
    expect(ours).toBe(outputOf(() => core.setOutput('operations', value)))
    expect(ours).toMatch(/^operations<<DELIMITER\n[\s\S]*\nDELIMITER\n$/)
  })

  it.each(MESSAGES)('setOutput of %j without GITHUB_OUTPUT falls back to ::set-output', (value) => {
    expect(stdoutOf(() => runner.setOutput('status', value))).toBe(
      stdoutOf(() => core.setOutput('status', value))
    )
  })

  it('getInput reads INPUT_<NAME> trimmed, and an unset input is empty', () => {
    process.env.INPUT_API_KEY = '  napi_key \n'
    expect(runner.getInput('api_key')).toBe(core.getInput('api_key'))
    expect(runner.getInput('api_key')).toBe('napi_key')
    process.env.INPUT_PR_COMMENT = 'failure'
    expect(runner.getInput('pr comment')).toBe(core.getInput('pr comment'))
    expect(runner.getInput('github_token')).toBe('')
  })

  it('appendSummary appends to GITHUB_STEP_SUMMARY like summary.addRaw().write()', async () => {
    const file = join(dir, 'summary')
    process.env.GITHUB_STEP_SUMMARY = file
    writeFileSync(file, 'earlier step\n')
    await runner.appendSummary('<h2>Gate</h2>\n<p>ok</p>')
    const ours = readFileSync(file, 'utf8')
    writeFileSync(file, 'earlier step\n')
    await core.summary.addRaw('<h2>Gate</h2>\n<p>ok</p>').write()
    expect(ours).toBe(readFileSync(file, 'utf8'))
    expect(ours).toBe('earlier step\n<h2>Gate</h2>\n<p>ok</p>')
  })
})

describe('what the runner reads back', () => {
  it('every value, line breaks and text that looks like a delimiter included, parses back intact', () => {
    const file = join(dir, 'output')
    writeFileSync(file, '')
    process.env.GITHUB_OUTPUT = file
    // (The runner reads the file line by line, so a carriage return is a line break there.)
    const values = Object.fromEntries(
      MESSAGES.filter((value) => !value.includes('\r')).map((value, index) => [`o${index}`, value])
    )
    values.fake = 'x\nghadelimiter_00000000-0000-0000-0000-000000000000\nfake<<EOF\n'
    for (const [name, value] of Object.entries(values)) runner.setOutput(name, value)
    expect(parseOutputFile(readFileSync(file, 'utf8'))).toEqual(values)
  })

  it('a command smuggled into a message stays on its own line', () => {
    const out = stdoutOf(() => runner.warning('x\n::set-output name=outcome::success'))
    expect(out.split('\n').filter(Boolean)).toEqual([
      '::warning::x%0A::set-output name=outcome::success'
    ])
  })

  it('refuses a GITHUB_OUTPUT or GITHUB_STEP_SUMMARY file that is not there', async () => {
    process.env.GITHUB_OUTPUT = join(dir, 'missing-output')
    expect(() => runner.setOutput('outcome', 'success')).toThrow(/Missing file at path/)
    process.env.GITHUB_STEP_SUMMARY = join(dir, 'missing-summary')
    await expect(runner.appendSummary('x')).rejects.toThrow(/Unable to access summary file/)
    await expect(
      (async () => {
        delete process.env.GITHUB_STEP_SUMMARY
        await runner.appendSummary('x')
      })()
    ).rejects.toThrow(/GITHUB_STEP_SUMMARY is not set/)
  })
})
