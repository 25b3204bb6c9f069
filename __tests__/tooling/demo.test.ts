/*
 * npm run demo, as a newcomer runs it on a fresh clone: the gate green, then red, each named for
 * what it gates, the timeline's bars labelled (the database's included), no project listing, and a
 * failure a person can read. `.ci/run` runs it too; here its output is held to that.
 */
import { describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { timelineText } from '../../script/demo/terminal-render.ts'
import { serverFolders } from '../support/postgres/folders.ts'

const root = join(import.meta.dirname, '..', '..')

function demo(...args: string[]): Promise<{ code: number | null; output: string; pid: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'script', 'demo', 'demo.ts'), ...args], {
      cwd: root,
      // As from a shell: not Jest's NODE_OPTIONS.
      env: { ...process.env, NODE_OPTIONS: '' }
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk))
    child.on('close', (code) => resolve({ code, output, pid: child.pid! }))
  })
}

describe('npm run demo', () => {
  it('shows the branch gate passing, then a failure a person can read, and exits 0', async () => {
    const { code, output, pid } = await demo()
    expect(code).toBe(0)
    // Its own PostgreSQL left no folder behind.
    expect(serverFolders().filter((folder) => folder.pid === pid)).toEqual([])
    const [green, red] = output.split(/^Scenario 2 of 2, failure: .*$/m)
    expect(green).toContain('Scenario 1 of 2, success: ')
    expect(green).toContain('with the branch gate on preview/pr-42, then its database:')
    expect(green).not.toContain('project gate')
    expect(green).not.toMatch(/Projects \(|INPUT_LIST_PROJECTS/)
    // The demo runs on real time: on a loaded machine the bundle can start after the create (3 s)
    // has ended, and the timeline then shows the start alone.
    const [, count] = green.match(
      /^Timeline .*: (2 operations|1 operation), then the database check$/m
    )!
    const first = count === '2 operations' ? 'create_branch' : 'start_compute'
    for (const bar of [`${first}  br-preview-pr-42 finished`, 'database  preview_app ready'])
      expect(green).toMatch(new RegExp(`^  ${bar} +\\|[ █]{40}\\|  from \\d+\\.\\d s$`, 'm'))
    expect(green).toContain('Green: the step passed (exit code 0)')
    // Each scenario names one pull request: its branch, its event, its comment.
    expect(green).toContain('as a pull_request run for #42 of octo/app')
    expect(green).toContain('https://github.com/octo/app/pull/42#issuecomment-')
    expect(red).toContain('as a pull_request run for #7 of octo/app')
    expect(red).toContain('pull request #7 (head ')
    expect(red).toContain('https://github.com/octo/app/pull/7#issuecomment-')
    expect(red).not.toMatch(/#42\b|pull\/42/)

    expect(red).toContain('with the project gate (every operation of the project):')
    expect(red).toContain(
      'Red: the step failed (exit code 1), so a job that needs it does not start.'
    )
    expect(red).toMatch(
      /^Why, .*\n {2}❌ failure: start_compute on br-preview-pr-7 ended in error after [\d.]+ s: “compute failed to start: out of capacity”\n {2}⏳ 1 still in flight: apply_config on br-main-000001/m
    )
  }, 180_000)

  it('teardown: the delete blocked by a child branch, then clear once the child is gone', async () => {
    const { code, output } = await demo('teardown')
    expect(code).toBe(0)
    const [blocked, clear] = output.split(
      'preview/pr-42-debug is deleted; the same gate runs again'
    )
    expect(blocked).toContain('Red: the step failed (exit code 1), so the branch is not deleted.')
    // The step's error is one line of the log (and one annotation), not the line and its copy.
    expect(blocked.split('\n').filter((line) => line.startsWith('  | ERROR'))).toEqual([
      '  | ERROR: Branch preview/pr-42 (br-preview-pr-42) cannot be deleted: it has 1 child branch, to delete first: preview/pr-42-debug (br-preview-pr-42-debug)'
    ])
    expect(blocked).toMatch(
      /^Why, .*\n {2}❌ failure: branch preview\/pr-42 \(br-preview-pr-42\) cannot be deleted: it has 1 child branch, to delete first: preview\/pr-42-debug \(br-preview-pr-42-debug\)$/m
    )
    expect(clear).toContain('Green: the step passed (exit code 0), so the step that deletes')
    expect(clear).toMatch(
      /^What, .*\n {2}✅ success: branch preview\/pr-42 \(br-preview-pr-42\) can be deleted now: nothing blocks it/m
    )
  }, 180_000)

  it('sweep: the stale previews listed, a closed pull request among them, never a protected or root branch', async () => {
    const { code, output } = await demo('sweep')
    expect(code).toBe(0)
    expect(output).toContain('as a schedule run of octo/app')
    expect(output).toMatch(
      /^What, .*\n {2}✅ success: 4 stale branches among 7 that match preview\/pr-\{pr\} \(no activity for 7 days, or a pull request closed or merged\)$/m
    )
    expect(output).toMatch(/preview\/pr-8 +br-preview-pr-8 +.+ +pull request closed/)
    expect(output).toMatch(/preview\/pr-4 +br-preview-pr-4 +.+ +no activity +children/)
    for (const never of ['br-preview-pr-5', 'br-preview-pr-9', 'br-preview-pr-10']) {
      expect(output).not.toContain(never)
    }
    expect(output).toContain('The sweep found 4 stale branches')
  }, 180_000)

  it('runs a named scenario alone, and refuses an unknown one', async () => {
    const unknown = await demo('sunshine')
    expect([unknown.code, unknown.output]).toEqual([
      2,
      'Unknown scenario "sunshine"; one of: success, failure, timeout, teardown, sweep\n'
    ])
  })
})

describe('the timeline as text', () => {
  it('one bar a line, labelled with its section and name, placed on the span', () => {
    const chart = [
      'gantt',
      '    dateFormat x',
      '    section create_branch',
      '    ▸ br-1 finished :done, 1000, 3000',
      '    section database',
      '    ▸ app ready :active, 3000, 5000'
    ].join('\n')
    expect(timelineText(chart)).toEqual([
      'Timeline (GitHub draws it as a chart): 1 operation, then the database check',
      `  create_branch  br-1 finished  |${'█'.repeat(20)}${' '.repeat(20)}|  from 0.0 s`,
      `  database  app ready           |${' '.repeat(20)}${'█'.repeat(20)}|  from 2.0 s`
    ])
    expect(timelineText('gantt')).toEqual([])
  })
})
