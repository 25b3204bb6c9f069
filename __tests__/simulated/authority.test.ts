/*
 * Verdicts from what the gate can read, not from windows, clocks and guesses (issue 65), in process
 * over the local API server on simulated time: an error still the newest on its compute fails at
 * any age, work in flight is waited on at any age, a Date header or a runner clock far off hides
 * nothing in flight, only a start or the same action's success supersedes an error, and where the
 * page cap comes first the computes' own state decides. Over the bundles: e2e/authority.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import { runSimulated, simulatedWorld } from '../support/simulated-gate.js'
import { PROJECT } from '../support/neon/ids.js'
import { renderSummary, renderTextReport } from '../../src/report/summary.js'
import { SECTIONS } from '../../src/gate/steps.js'

const BRANCH = 'br-preview-000065'
const COMPUTE = 'ep-preview-000065'
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/**
 * A world (the demo's history on main, one a minute: the list is busy) with the preview branch,
 * created `branchAgeMs` ago; `ended` adds an operation of it `agoMs` old, `tookMs` long.
 */
function world(
  branchAgeMs = 4 * DAY,
  options: Parameters<typeof simulatedWorld>[0] = { history: 300, historyEveryMs: MINUTE }
) {
  const setup = simulatedWorld(options)
  const now = setup.world.now()
  setup.world.addBranch(PROJECT, {
    id: BRANCH,
    name: 'preview/pr-65',
    createdAt: now - branchAgeMs
  })
  const add = (action: string, agoMs: number, timeline: { status: string; ms?: number }[]) =>
    setup.world.addOperation(PROJECT, {
      action,
      branchId: BRANCH,
      endpointId: COMPUTE,
      createdAt: now - agoMs,
      timeline
    })
  const ended = (action: string, status: string, agoMs: number, tookMs = 4000) =>
    add(action, agoMs, [{ status: 'running', ms: tookMs }, { status }])
  const running = (action: string, agoMs: number) => add(action, agoMs, [{ status: 'running' }])
  return { setup, ended, running }
}

const branchGate = { project_id: PROJECT, branch_id: BRANCH, timeout: '30s' }

describe('no age decides a verdict: the branch gate reads back to its branch, however old', () => {
  it.each([
    ['23 h', 23 * HOUR],
    ['25 h', 25 * HOUR],
    ['72 h', 72 * HOUR]
  ])(
    'a start_compute that ended in error %s ago, nothing run on the compute since: failure',
    async (_, agoMs) => {
      const { setup, ended } = world()
      ended('create_branch', 'finished', agoMs + MINUTE)
      const error = ended('start_compute', 'error', agoMs)
      const run = await runSimulated(setup, branchGate)
      expect(run.report.outcome).toBe('failure')
      expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([error.id])
    }
  )

  it.each([
    ['25 h', 25 * HOUR],
    ['72 h', 72 * HOUR]
  ])(
    'an operation running on the branch since %s ago is waited on: a timeout, never a pass',
    async (_, agoMs) => {
      const { setup, running } = world()
      const stuck = running('apply_config', agoMs)
      const run = await runSimulated(setup, branchGate)
      expect(run.report.outcome).toBe('timeout')
      expect(run.report.wait?.operations).toEqual([
        expect.objectContaining({ id: stuck.id, status: 'running' })
      ])
    }
  )

  it('the first read stops at the branch: a young branch in a busy project costs one page', async () => {
    const { setup, ended } = world(10 * MINUTE, { history: 3000, historyEveryMs: 20_000 })
    ended('start_compute', 'finished', 9 * MINUTE)
    const run = await runSimulated(setup, branchGate)
    expect(run.report.outcome).toBe('success')
    const first = run.requests.filter((request) => request.route === 'operations')
    expect(first).toHaveLength(1)
  })
})

describe('where the page cap comes first, the compute and the branch say, with a notice', () => {
  /** A branch 60 days old whose compute last ran 30 days ago, behind 1,200 newer operations. */
  function idleForWeeks(computeState: { current: string; pending?: string }) {
    // A server that caps pages at 50: the first read's 20 pages hold 1,000 operations.
    const { setup, ended } = world(60 * DAY, { history: 1200, historyEveryMs: 60_000 })
    setup.world.operationsPageCap = 50
    ended('start_compute', 'error', 30 * DAY)
    setup.world.addCompute(PROJECT, { id: COMPUTE, branchId: BRANCH, ...computeState })
    return setup
  }

  it('a compute the API shows idle with nothing pending: success, and a notice of how far back the read went', async () => {
    const run = await runSimulated(idleForWeeks({ current: 'idle' }), branchGate)
    expect(run.report.outcome).toBe('success')
    expect(run.lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^notice: Branch gate: read 1000 operations, back to \\S+, and stopped there \\(the page cap\\), short of the branch's creation \\(created \\S+\\): its older history was not judged; the own state of 1 compute whose operations it did not reach \\(${COMPUTE}\\) and the branch's stand for it$`
        )
      )
    )
    // Never a silent pass: the summary and the command's report say it too, under the outcome.
    for (const text of [
      renderSummary(SECTIONS, run.report),
      renderTextReport(SECTIONS, run.report)
    ]) {
      const [, after] = text.split('success')
      expect(after).toMatch(/stopped there \(the page cap\).*its older history was not judged/)
    }
  })

  it('a compute starting (init, pending active): the gate waits on it, and times out saying why', async () => {
    const run = await runSimulated(idleForWeeks({ current: 'init', pending: 'active' }), branchGate)
    expect(run.report.outcome).toBe('timeout')
    expect(run.lines.join('\n')).toContain(
      `compute ${COMPUTE} of the branch is init, pending active, and its operations were not read`
    )
  })
})

describe('no clock hides work', () => {
  it.each([
    ['a Date header 48 h ahead', { dateHeader: 48 * HOUR }],
    ['no Date header and a runner a day ahead', { dateHeader: 'none' as const, clockSkewMs: -DAY }]
  ])('%s: an operation running for 5 s is waited on by both gates', async (_, options) => {
    for (const values of [branchGate, { project_id: PROJECT, timeout: '30s' }]) {
      const { setup, running } = world(10 * MINUTE, { history: 40, ...options })
      const inFlight = running('apply_config', 5000)
      const run = await runSimulated(setup, values)
      expect(run.report.outcome).toBe('timeout')
      expect(run.report.wait?.operations).toEqual([
        expect.objectContaining({ id: inFlight.id, status: 'running' })
      ])
    }
  })

  it('a Date header 48 h ahead in a busy project: one running behind 600 newer operations is read and waited on', async () => {
    const { setup, running } = world(10 * MINUTE, { history: 0, dateHeader: 48 * HOUR })
    const inFlight = running('apply_config', 10 * MINUTE)
    setup.world.addHistory(PROJECT, 600, { everyMs: SECOND, ageMs: 10 * SECOND })
    const run = await runSimulated(setup, { project_id: PROJECT, timeout: '30s' })
    expect(run.report.outcome).toBe('timeout')
    expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([inFlight.id])
  })
})

describe('no clock ages work: a Date header 48 h ahead words nothing older than the runner allows', () => {
  const ahead = { history: 40, dateHeader: 48 * HOUR }

  it('an operation running for 5 s reads "at least 5.0 s so far", never 48 h, in every report', async () => {
    const { setup, running } = world(10 * MINUTE, ahead)
    running('apply_config', 5000)
    const run = await runSimulated(setup, { ...branchGate, timeout: '10s' })
    expect(run.report.outcome).toBe('timeout')
    expect(run.report.wait?.clocksDisagree).toBe(true)
    const text = renderTextReport(SECTIONS, run.report)
    const summary = renderSummary(SECTIONS, run.report)
    // Only the clock's own warning names the 48 h.
    const log = run.lines.filter((line) => !line.startsWith("warning: The runner's clock"))
    for (const words of [text, summary, log.join('\n')]) expect(words).not.toMatch(/4[78] h/)
    // 5 s old when the gate started, read again until its 10 s timeout.
    expect(text).toMatch(/apply_config on br-preview-000065, running for at least 1\d\.\d s so far/)
  })

  it('a failure 5 minutes old on the whole project is still warned about, its age a least', async () => {
    const { setup, ended } = world(10 * MINUTE, ahead)
    const error = ended('start_compute', 'error', 5 * MINUTE)
    const run = await runSimulated(setup, { project_id: PROJECT, timeout: '30s' })
    expect(run.report.outcome).toBe('success')
    expect(run.lines.join('\n')).toContain(
      `Ended in failure before the gate started: start_compute ${error.id} on ${BRANCH}, error at least 4 min 56 s before the gate started`
    )
  })
})

describe('what supersedes an error', () => {
  it.each(['start_compute', 'apply_config'])(
    'a %s that ended in error, then a suspend_compute that finished: failure',
    async (action) => {
      const { setup, ended } = world()
      const error = ended(action, 'error', 20 * MINUTE)
      ended('suspend_compute', 'finished', 10 * MINUTE)
      const run = await runSimulated(setup, branchGate)
      expect(run.report.outcome).toBe('failure')
      expect(run.report.wait?.operations.map((operation) => operation.id)).toEqual([error.id])
    }
  )

  it('a check_availability that finished after it: failure; a start_compute that finished: success', async () => {
    const failed = world()
    failed.ended('start_compute', 'error', 20 * MINUTE)
    failed.ended('check_availability', 'finished', 10 * MINUTE)
    expect((await runSimulated(failed.setup, branchGate)).report.outcome).toBe('failure')
    const started = world()
    started.ended('apply_config', 'error', 20 * MINUTE)
    started.ended('start_compute', 'finished', 10 * MINUTE)
    expect((await runSimulated(started.setup, branchGate)).report.outcome).toBe('success')
  })

  it('two at the same created_at: the list says which is newer, not updated_at', async () => {
    // Listed first (newer): the error, which ended long before the success listed after it.
    const errorFirst = world()
    errorFirst.ended('start_compute', 'error', 20 * MINUTE, 1000)
    errorFirst.ended('start_compute', 'finished', 20 * MINUTE, 60_000)
    expect((await runSimulated(errorFirst.setup, branchGate)).report.outcome).toBe('failure')
    const successFirst = world()
    successFirst.ended('start_compute', 'finished', 20 * MINUTE, 1000)
    successFirst.ended('start_compute', 'error', 20 * MINUTE, 60_000)
    expect((await runSimulated(successFirst.setup, branchGate)).report.outcome).toBe('success')
  })
})

describe('the project gate: what its 24 h read did not reach, the state decides, never its age', () => {
  /**
   * A project whose history spans 50 h (300 operations, one each 10 minutes), on a server that caps
   * pages at 50: the first read stops at its 24 h, after 3 pages.
   */
  function longHistory() {
    const made = world(4 * DAY, { history: 300, historyEveryMs: 10 * MINUTE })
    made.setup.world.operationsPageCap = 50
    return made
  }
  const projectGate = { project_id: PROJECT, timeout: '30s' }
  /** The gated branch's compute as the API shows it. */
  const computeShown = (
    setup: ReturnType<typeof longHistory>['setup'],
    current: string,
    pending: string
  ) => setup.world.addCompute(PROJECT, { id: COMPUTE, branchId: BRANCH, current, pending })

  it('an apply_config running since 30 h ago, its compute starting (init, pending active): waited on, a timeout that says why', async () => {
    const { setup, running } = longHistory()
    running('apply_config', 30 * HOUR)
    computeShown(setup, 'init', 'active')
    const run = await runSimulated(setup, projectGate)
    expect(run.report.outcome).toBe('timeout')
    expect(run.lines.join('\n')).toContain(
      `compute ${COMPUTE} is init, pending active, and its operations were older than the read`
    )
  })

  it('a create_branch running since 30 h ago, its branch still init: waited on, a timeout that says why', async () => {
    const { setup } = longHistory()
    setup.world.addBranch(PROJECT, {
      id: 'br-stuck-000030',
      name: 'preview/stuck',
      createdAt: setup.world.now() - 30 * HOUR,
      state: { current: 'init' }
    })
    setup.world.addOperation(PROJECT, {
      action: 'create_branch',
      branchId: 'br-stuck-000030',
      createdAt: setup.world.now() - 30 * HOUR,
      timeline: [{ status: 'running' }]
    })
    const run = await runSimulated(setup, projectGate)
    expect(run.report.outcome).toBe('timeout')
    expect(run.lines.join('\n')).toContain('branch preview/stuck (br-stuck-000030) is')
  })

  it('a compute whose operations the read reached is decided by them, whatever its state: success', async () => {
    const { setup, ended } = longHistory()
    ended('apply_config', 'finished', HOUR)
    // The API shows a change pending on it; its operations, read, are final.
    computeShown(setup, 'active', 'idle')
    const run = await runSimulated(setup, projectGate)
    expect(run.report.outcome).toBe('success')
    expect(run.lines.join('\n')).not.toContain(`compute ${COMPUTE} is`)
  })

  it('a compute the read did not reach, of no state the API gives: waited on, named as such', async () => {
    const { setup } = longHistory()
    setup.world.addCompute(PROJECT, {
      id: 'ep-no-state-000065',
      branchId: BRANCH,
      current: undefined
    })
    const run = await runSimulated(setup, projectGate)
    expect(run.report.outcome).toBe('timeout')
    expect(run.lines.join('\n')).toContain(
      'compute ep-no-state-000065 is of no state, and its operations were older than the read: the gate waits'
    )
  })

  it('the same project with every compute idle and every branch ready: success, the state read once', async () => {
    const { setup, running } = longHistory()
    running('apply_config', 30 * HOUR)
    const run = await runSimulated(setup, projectGate)
    expect(run.report.outcome).toBe('success')
    const paths = run.requests.map((request) => request.path)
    expect(paths.filter((path) => path.endsWith('/endpoints'))).toHaveLength(1)
    expect(paths.filter((path) => path.endsWith('/branches'))).toHaveLength(1)
  })

  it('a branch list longer than its page cap: the warning, and the summary, say the branches past it are not judged', async () => {
    const { setup } = longHistory()
    setup.world.branchesPageCap = 1
    for (let i = 0; i < 60; i++) {
      setup.world.addBranch(PROJECT, {
        id: `br-many-${String(i).padStart(6, '0')}`,
        name: `many/${i}`
      })
    }
    const run = await runSimulated(setup, projectGate)
    expect(run.lines).toContainEqual(
      `warning: Read 50 branches of project "${PROJECT}" and stopped there (50 pages): branches beyond it are not judged: the project gate's state check covers those read`
    )
    // Never a silent pass: the summary says what was not judged.
    expect(run.report.outcome).toBe('success')
    expect(run.report.historyNotJudged).toBe(
      'Project gate: its state check read 50 branches and stopped there (50 pages): a branch beyond them still changing was not judged'
    )
    expect(renderSummary(SECTIONS, run.report)).toContain(
      'its state check read 50 branches and stopped there'
    )
  })

  it('a project whose whole history was read reads the state once all the same: a tie at a page end hides from the list', async () => {
    const { setup } = world(4 * DAY, { history: 40, historyEveryMs: MINUTE })
    const run = await runSimulated(setup, projectGate)
    expect(run.report.outcome).toBe('success')
    const paths = run.requests.map((request) => request.path)
    expect(paths.filter((path) => /\/(endpoints|branches)$/.test(path))).toEqual([
      `/api/v2/projects/${PROJECT}/endpoints`,
      `/api/v2/projects/${PROJECT}/branches`
    ])
  })
})
