import { describe, expect, it } from '@jest/globals'
import { ApiError, CancelledError, DeadlineExceededError } from '../src/domain/errors.js'
import type { Logger } from '../src/domain/logger.js'
import { isFinal } from '../src/domain/operation-status.js'
import type { Branch, Operation } from '../src/domain/schemas.js'
import { OperationIdsSource, type OperationSource } from '../src/wait/operation-sources.js'
import { Pace } from '../src/api/pace.js'
import { type WaitOptions, waitForOperations } from '../src/wait/wait-for-operations.js'
import { FakeClock } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'
import {
  ScriptedReader,
  type StatusScripts,
  deadlineError
} from './support/neon/scripted-reader.js'
import { OP_A, OP_B, OP_C, PROJECT } from './support/neon/ids.js'

function setup(scripts: StatusScripts, options: Partial<WaitOptions> = {}, intervalMs = 5000) {
  const clock = new FakeClock(0)
  const lines: string[] = []
  const logger: Logger = {
    info: (message) => lines.push(`info: ${message}`),
    warning: (message) => lines.push(`warning: ${message}`),
    notice: (message) => lines.push(`notice: ${message}`),
    debug: () => undefined
  }
  const waitOptions: WaitOptions = {
    wait: true,
    startedAt: 0,
    deadline: 600_000,
    failFast: false,
    ...options
  }
  const reader = new ScriptedReader(scripts)
  const source = new OperationIdsSource(reader, PROJECT, Object.keys(scripts), (operation) =>
    isFinal(operation.status, waitOptions.failFast)
  )
  const controller = new AbortController()
  const pace = new Pace(intervalMs, clock, logger, () => 0)
  const run = () =>
    waitForOperations(waitOptions, { source, pace, clock, logger, signal: controller.signal })
  return { clock, lines, reader, run, controller, pace }
}

describe('waitForOperations: one operation', () => {
  it.each([
    ['finished', 'success'],
    ['skipped', 'success'],
    ['cancelled', 'failure'],
    ['error', 'failure']
  ])('running → %s gives %s', async (final, outcome) => {
    const { run, clock, reader, lines } = setup({ [OP_A]: ['running', 'running', final] })
    const result = await run()
    expect(result.outcome).toBe(outcome)
    expect(result.polls).toBe(3)
    expect(reader.reads).toEqual([OP_A, OP_A, OP_A])
    expect(clock.sleeps).toEqual([5000, 5000])
    expect(result.elapsedMs).toBe(10_000)
    expect(result.operations[0]).toMatchObject({ id: OP_A, status: final })
    expect(lines).toContain(
      `info: [+10.0 s] ${OP_A} start_compute on br-main-000001: running → ${final}`
    )
    expect(lines).toContain(`info: [+10.0 s] outcome: ${outcome}`)
  })

  it('reads at once: an operation already finished needs no sleep', async () => {
    const { run, clock } = setup({ [OP_A]: ['finished'] })
    expect((await run()).outcome).toBe('success')
    expect(clock.sleeps).toEqual([])
  })

  it('logs status changes only, not unchanged polls', async () => {
    const { run, lines } = setup({
      [OP_A]: ['scheduling', 'running', 'running', 'running', 'finished']
    })
    await run()
    expect(lines.filter((line) => line.includes(OP_A))).toEqual([
      `info: [+0 ms] ${OP_A} start_compute on br-main-000001: scheduling`,
      `info: [+5.0 s] ${OP_A} start_compute on br-main-000001: scheduling → running`,
      `info: [+20.0 s] ${OP_A} start_compute on br-main-000001: running → finished`
    ])
  })

  it('failed is not final: the control plane retry is awaited', async () => {
    const { run } = setup({ [OP_A]: ['running', 'failed', 'failed', 'running', 'finished'] })
    const result = await run()
    expect(result.outcome).toBe('success')
    expect(result.polls).toBe(5)
  })

  it('failed with fail_fast is a final failure', async () => {
    const { run, reader } = setup({ [OP_A]: ['running', 'failed', 'finished'] }, { failFast: true })
    const result = await run()
    expect(result.outcome).toBe('failure')
    expect(reader.reads).toHaveLength(2)
  })

  it('an unknown status is in flight, with one warning', async () => {
    const { run, lines } = setup({ [OP_A]: ['teleporting', 'teleporting', 'finished'] })
    const result = await run()
    expect(result.outcome).toBe('success')
    expect(lines.filter((line) => line.startsWith('warning:'))).toEqual([
      'warning: Unknown operation status "teleporting"; treating it as in flight'
    ])
  })

  it('times out while running, after a final read at the deadline', async () => {
    const { run, clock, reader } = setup({ [OP_A]: ['running'] }, { deadline: 12_000 })
    const result = await run()
    expect(result.outcome).toBe('timeout')
    expect(clock.sleeps).toEqual([5000, 5000, 2000])
    expect(reader.reads).toHaveLength(4)
    expect(result.operations[0].status).toBe('running')
  })

  it('times out while failed', async () => {
    const { run } = setup({ [OP_A]: ['failed'] }, { deadline: 30_000 })
    const result = await run()
    expect(result.outcome).toBe('timeout')
    expect(result.operations[0].status).toBe('failed')
  })

  it('wait: false reads once and reports pending', async () => {
    const { run, reader, clock } = setup({ [OP_A]: ['running', 'finished'] }, { wait: false })
    expect((await run()).outcome).toBe('pending')
    expect(reader.reads).toEqual([OP_A])
    expect(clock.sleeps).toEqual([])
  })

  it('a retry that cannot fit before the deadline ends in timeout with the last known state', async () => {
    const { run } = setup({ [OP_A]: ['running', deadlineError()] })
    const result = await run()
    expect(result.outcome).toBe('timeout')
    expect(result.operations[0].status).toBe('running')
    const noRetryFits =
      'no retry fits before the deadline: the retry after HTTP 429, Retry-After 60 would wait 1 min 05 s, with 4.0 s of the timeout left'
    expect(result.reason).toBe(`${noRetryFits}; last error: HTTP 429`)
    expect(result.noRetryFits).toBe(noRetryFits)
  })

  it('the timeout that did run out, with no time left for a retry, is no "no retry fits"', async () => {
    const ranOut = new DeadlineExceededError(new Error('HTTP 503'), {
      reason: 'HTTP 503',
      delayMs: 5000,
      leftMs: 0
    })
    const { run } = setup({ [OP_A]: ['running', ranOut] })
    const result = await run()
    expect(result).toMatchObject({ outcome: 'timeout', reason: 'last error: HTTP 503' })
    expect(result).not.toHaveProperty('noRetryFits')
  })

  it('where the clocks disagree, each read time is the earliest both allow, and the result says so', async () => {
    for (const [disagreementMs, readAt] of [
      [48 * 3_600_000, 5000 - 48 * 3_600_000],
      [-48 * 3_600_000, 5000],
      [0, 5000]
    ]) {
      const { run, clock } = setup({ [OP_A]: ['running', 'running', new Error('cut')] })
      Object.assign(clock, { disagreementMs: () => disagreementMs })
      const result = await run()
      expect(result.readAt).toEqual(new Map([[OP_A, readAt]]))
      if (disagreementMs) expect(result.clocksDisagree).toBe(true)
      else expect(result).not.toHaveProperty('clocksDisagree')
    }
  })

  it('a 401 in the middle of a wait ends it at once, with the error and the state last read', async () => {
    const revoked = new ApiError({ status: 401, endpoint: 'GET /x', subject: 'x' })
    const { run, reader, clock, lines } = setup({
      [OP_A]: ['running', 'running', revoked, 'finished']
    })
    const result = await run()
    expect(result).toMatchObject({ outcome: 'error', error: revoked, polls: 3, observed: true })
    expect(result.operations).toEqual([expect.objectContaining({ id: OP_A, status: 'running' })])
    // Read last at the second poll, 5 s in; the error came at the third, 10 s in.
    expect(result.readAt).toEqual(new Map([[OP_A, 5000]]))
    expect(result.elapsedMs).toBe(10_000)
    expect(clock.sleeps).toEqual([5000, 5000])
    expect(reader.reads).toHaveLength(3)
    // The caller reports the error: the wait says no outcome of its own.
    expect(lines.filter((line) => line.includes('outcome'))).toEqual([])
  })

  it('cancellation during a sleep stops at once with the last known state', async () => {
    const { run, clock, controller, reader } = setup({ [OP_A]: ['running'] })
    clock.onSleep = () => {
      if (clock.sleeps.length === 2) controller.abort(new CancelledError('SIGTERM'))
    }
    const result = await run()
    expect(result.outcome).toBe('cancelled')
    expect(result.reason).toBe('Cancelled by SIGTERM')
    expect(reader.reads).toHaveLength(2)
    expect(result.operations[0].status).toBe('running')
  })
})

describe('waitForOperations: several operations', () => {
  it('waits for all, each read until it is final and never again', async () => {
    const { run, reader } = setup({
      [OP_A]: ['running', 'finished'],
      [OP_B]: ['scheduling', 'running', 'running', 'finished'],
      [OP_C]: ['skipped']
    })
    const result = await run()
    expect(result.outcome).toBe('success')
    expect(reader.reads).toEqual([OP_A, OP_B, OP_C, OP_A, OP_B, OP_B, OP_B])
    expect(result.operations.map((operation) => [operation.id, operation.status])).toEqual([
      [OP_A, 'finished'],
      [OP_B, 'finished'],
      [OP_C, 'skipped']
    ])
  })

  it('one final failure ends the wait with failure', async () => {
    const { run } = setup({ [OP_A]: ['running'], [OP_B]: ['running', 'cancelled'] })
    const result = await run()
    expect(result.outcome).toBe('failure')
    expect(result.polls).toBe(2)
  })
})

/**
 * A source that hands out, poll by poll, the states a script gives (the last one repeats); a step
 * that is an Error is thrown by that poll. Each poll gives new objects, as a read does.
 */
class ScriptedSource implements OperationSource {
  operations: Operation[] = []
  completedPolls = 0
  branch?: Branch
  behind?: string
  constructor(private readonly steps: (Partial<Operation>[] | Error)[]) {}

  async poll(): Promise<void> {
    const step = this.steps.length > 1 ? this.steps.shift()! : this.steps[0]
    if (step instanceof Error) throw step
    this.operations = step.map((fields) => operation({ id: OP_A, ...fields }))
    this.completedPolls++
  }
}

/** The wait over `source` from 1,000 s to 1,600 s of `clock`, at a pace of 5 s. */
function waitOnIds(source: OperationSource, clock: FakeClock, logger: Logger) {
  return waitForOperations(
    {
      wait: true,
      startedAt: 1_000_000,
      deadline: 1_600_000,
      failFast: false
    },
    { source, pace: new Pace(5000, clock, logger, () => 0.5), clock, logger }
  )
}

function scripted(
  steps: (Partial<Operation>[] | Error)[],
  options: Partial<WaitOptions> = {},
  dependencies: { pace?: Pace; signal?: AbortSignal; clock?: FakeClock } = {}
) {
  const clock = dependencies.clock ?? new FakeClock(0)
  const { logger, lines } = collectingLogger()
  const source = new ScriptedSource(steps)
  const pace = dependencies.pace ?? new Pace(5000, clock, logger, () => 0.5)
  const run = () =>
    waitForOperations(
      {
        wait: true,
        startedAt: clock.now(),
        deadline: 600_000,
        failFast: false,
        ...options
      },
      { source, pace, clock, logger, signal: dependencies.signal }
    )
  return { clock, lines, source, run }
}

const ids = (count: number) =>
  Array.from({ length: count }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)

describe('waitForOperations: the log', () => {
  it('at most 20 status changes a poll, then one line that counts the rest', async () => {
    const many = (count: number, status: string) => ids(count).map((id) => ({ id, status }))
    const { run, lines } = scripted([many(21, 'running'), many(20, 'finished')])
    await run()
    const first = lines.filter((line) => line.startsWith('info: [+0 ms]'))
    expect(first).toHaveLength(21)
    expect(first[19]).toMatch(/: running$/)
    expect(first[20]).toBe('info: [+0 ms] … and 1 more status changes')
    // Twenty changes (the 21st operation is gone from the read): all logged, no count.
    const second = lines.filter((line) => line.startsWith('info: [+5.0 s]'))
    expect(second).toHaveLength(21)
    expect(second.filter((line) => line.includes('more status changes'))).toEqual([])
    expect(second.filter((line) => line.endsWith('running → finished'))).toHaveLength(20)
  })

  it('each unknown status warned about once, the first five statuses only', async () => {
    const strange = ['a', 'b', 'c', 'd', 'e', 'f'].map((letter, i) => ({
      id: ids(6)[i],
      status: `strange_${letter}`
    }))
    const { run, lines } = scripted([
      strange,
      strange,
      strange.map((op) => ({ ...op, status: 'finished' }))
    ])
    expect((await run()).outcome).toBe('success')
    expect(lines.filter((line) => line.startsWith('warning:'))).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map(
        (letter) =>
          `warning: Unknown operation status "strange_${letter}"; treating it as in flight`
      )
    )
  })

  it("names an operation by what it has, and cuts the API's texts", async () => {
    const { run, lines } = scripted([
      [
        { id: 'op-1', action: undefined, branch_id: undefined, status: 'running' },
        { id: 'op-2', action: 'apply_config', branch_id: null, status: 'running' },
        { id: 'op-3', action: 'x'.repeat(81), branch_id: 'b'.repeat(81), status: 's'.repeat(41) }
      ],
      [{ id: 'op-1', status: 'finished' }]
    ])
    await run()
    expect(lines.slice(0, 3)).toEqual([
      'info: [+0 ms] op-1: running',
      'info: [+0 ms] op-2 apply_config: running',
      `info: [+0 ms] op-3 ${'x'.repeat(80)}… [1 more characters] ${'on ' + 'b'.repeat(77)}… [4 more characters]: ${'s'.repeat(40)}… [1 more characters]`
    ])
    expect(lines).toContain(
      'warning: Unknown operation status "' +
        's'.repeat(40) +
        '… [1 more characters]"; treating it as in flight'
    )
  })

  it('the outcome line says when nothing could be read, and why the wait was cut', async () => {
    const { run, lines } = scripted([deadlineError()])
    const result = await run()
    expect(result).toMatchObject({ outcome: 'timeout', observed: false, polls: 1, operations: [] })
    expect(lines).toEqual([
      'info: [+0 ms] outcome: timeout, before the operations could be read (no retry fits before the deadline: the retry after HTTP 429, Retry-After 60 would wait 1 min 05 s, with 4.0 s of the timeout left; last error: HTTP 429)'
    ])
  })

  it('an outcome without a reason has no reason, in the line or the result', async () => {
    const { run, lines } = scripted([[{ status: 'finished' }]])
    const result = await run()
    expect(lines.at(-1)).toBe('info: [+0 ms] outcome: success')
    expect(Object.keys(result).sort()).toEqual(
      ['elapsedMs', 'observed', 'operations', 'outcome', 'polls', 'readAt'].sort()
    )
  })
})

describe('waitForOperations: when each state was read', () => {
  it('each operation keeps the time of the read that gave its last-seen state', async () => {
    const clock = new FakeClock(1_000_000)
    const { logger } = collectingLogger()
    // OperationIdsSource reads a final operation no more: its state, and its time, stay.
    const reader = new ScriptedReader({
      [OP_A]: ['running', 'finished'],
      [OP_B]: ['running', 'running', 'running', 'finished']
    })
    const source = new OperationIdsSource(reader, PROJECT, [OP_A, OP_B], (op) =>
      isFinal(op.status, false)
    )
    const result = await waitOnIds(source, clock, logger)
    expect(result.outcome).toBe('success')
    expect(result.readAt).toEqual(
      new Map([
        [OP_A, 1_005_000],
        [OP_B, 1_015_000]
      ])
    )
    expect(result.elapsedMs).toBe(15_000)
  })

  it("the log and elapsedMs count time from the gate's start, whatever the clock read then", async () => {
    const clock = new FakeClock(1_000_000)
    const { run, lines } = scripted(
      [[{ status: 'running' }], [{ status: 'finished' }]],
      { startedAt: 998_000, deadline: 1_600_000 },
      { clock }
    )
    const result = await run()
    expect(lines).toEqual([
      `info: [+2.0 s] ${OP_A} start_compute on br-main-000001: running`,
      `info: [+7.0 s] ${OP_A} start_compute on br-main-000001: running → finished`,
      'info: [+7.0 s] outcome: success'
    ])
    expect(result.elapsedMs).toBe(7000)
  })

  it('with a database check next, a success ends saying the control plane is done, not the outcome', async () => {
    const done = scripted([[{ status: 'finished' }]], {
      next: 'control plane done; the database check comes next'
    })
    expect((await done.run()).outcome).toBe('success')
    expect(done.lines.at(-1)).toBe(
      'info: [+0 ms] control plane done; the database check comes next'
    )
    expect(done.lines.join('\n')).not.toContain('outcome')
    // Any other ending is the outcome: no database check follows it.
    const failed = scripted([[{ status: 'error' }]], {
      next: 'control plane done; the database check comes next'
    })
    expect((await failed.run()).outcome).toBe('failure')
    expect(failed.lines.at(-1)).toBe('info: [+0 ms] outcome: failure')
  })

  it('until idle (before a teardown): a failure does not end the wait; every operation final is a success, said as the project idle', async () => {
    const next = 'the project is idle; the branch check comes next'
    const { run, lines, clock } = setup(
      { [OP_A]: ['running', 'error'], [OP_B]: ['running', 'running', 'finished'] },
      { untilIdle: true, next }
    )
    const result = await run()
    expect(result.outcome).toBe('success')
    expect(result.polls).toBe(3)
    expect(clock.sleeps).toEqual([5000, 5000])
    expect(result.operations.map((operation) => operation.status)).toEqual(['error', 'finished'])
    expect(lines.at(-1)).toBe('info: [+10.0 s] the project is idle; the branch check comes next')
    expect(lines.join('\n')).not.toContain('outcome')
    // Any other ending is the outcome: no check follows it.
    const pending = setup({ [OP_A]: ['running'] }, { untilIdle: true, next, wait: false })
    expect((await pending.run()).outcome).toBe('pending')
    expect(pending.lines.at(-1)).toBe('info: [+0 ms] outcome: pending')
  })

  it('a poll cut short keeps the time of what it read before the cut', async () => {
    const clock = new FakeClock(1_000_000)
    const { logger } = collectingLogger()
    const reader = new ScriptedReader({
      [OP_A]: ['running', 'finished'],
      [OP_B]: ['running', deadlineError()]
    })
    const source = new OperationIdsSource(reader, PROJECT, [OP_A, OP_B], (op) =>
      isFinal(op.status, false)
    )
    const result = await waitOnIds(source, clock, logger)
    expect(result.outcome).toBe('timeout')
    // The second poll read OP_A, finished, then OP_B's read found no time left.
    expect(result.operations.map((op) => op.status)).toEqual(['finished', 'running'])
    expect(result.readAt).toEqual(
      new Map([
        [OP_A, 1_005_000],
        [OP_B, 1_000_000]
      ])
    )
  })
})

describe('waitForOperations: the pace and the end of a wait', () => {
  it('every poll done moves the pace: after a 429 the waits shorten poll by poll', async () => {
    const { logger } = collectingLogger()
    const clock = new FakeClock(0)
    const pace = new Pace(5000, clock, logger, () => 0.5)
    pace.onRateLimited() // the first poll met a 429
    const running = Array.from({ length: 4 }, () => [{ status: 'running' }])
    const { run } = scripted([...running, [{ status: 'finished' }]], {}, { pace, clock })
    expect((await run()).outcome).toBe('success')
    expect(clock.sleeps).toEqual([15_000, 13_500, 12_150, 10_935])
  })

  it('a poll that fails for another reason ends the wait with that error, with or without a signal', async () => {
    const broken = new Error('the reader broke')
    const alone = await scripted([broken]).run()
    expect(alone).toMatchObject({ outcome: 'error', error: broken, observed: false, polls: 1 })
    expect(alone.operations).toEqual([])
    const controller = new AbortController()
    const signalled = await scripted([broken], {}, { signal: controller.signal }).run()
    expect(signalled).toMatchObject({ outcome: 'error', error: broken })
  })

  it('cancelled while a poll is under way: cancelled, with the reason, the state as last seen', async () => {
    const controller = new AbortController()
    const { run, source } = scripted(
      [[{ status: 'running' }], new Error('aborted by the signal')],
      {},
      { signal: controller.signal }
    )
    const polling = source.poll.bind(source)
    let polls = 0
    source.poll = async () => {
      if (++polls === 2) controller.abort(new CancelledError('SIGINT'))
      return polling()
    }
    const result = await run()
    expect(result).toMatchObject({ outcome: 'cancelled', reason: 'Cancelled by SIGINT', polls: 2 })
    expect(result.observed).toBe(true)
    expect(result.operations.map((op) => op.status)).toEqual(['running'])
  })

  it('a sleep that fails for another reason fails the wait', async () => {
    const clock = new FakeClock(0)
    const broken = new Error('the clock broke')
    clock.sleep = async () => {
      throw broken
    }
    const controller = new AbortController()
    const { run } = scripted([[{ status: 'running' }]], {}, { clock, signal: controller.signal })
    await expect(run()).rejects.toBe(broken)
    await expect(scripted([[{ status: 'running' }]], {}, { clock }).run()).rejects.toBe(broken)
  })

  it('a branch that cannot be queried keeps the gate open once every operation is final', async () => {
    const { run, source, clock } = scripted([[{ status: 'finished' }]], { deadline: 20_000 })
    source.branch = { id: 'br-1', name: 'preview', current_state: 'init' }
    clock.onSleep = () => {
      if (clock.sleeps.length === 2)
        source.branch = { id: 'br-1', name: 'preview', current_state: 'ready' }
    }
    const result = await run()
    expect(result).toMatchObject({ outcome: 'success', polls: 3 })
    expect(clock.sleeps).toEqual([5000, 5000])
  })

  it('a list not read back to what an earlier poll had seen keeps the gate open, whatever the operations', async () => {
    const { run, source, clock } = scripted([[{ status: 'finished' }]], { deadline: 20_000 })
    source.behind = 'the list is behind'
    clock.onSleep = () => {
      if (clock.sleeps.length === 2) source.behind = undefined
    }
    const result = await run()
    expect(result).toMatchObject({ outcome: 'success', polls: 3 })
    expect(result.reason).toBeUndefined()
  })

  it('still behind at the deadline: a timeout that says why; a failure still ends it at once', async () => {
    const behind = scripted([[{ status: 'finished' }]], { deadline: 12_000 })
    behind.source.behind = 'the list is behind'
    const result = await behind.run()
    expect(result).toMatchObject({ outcome: 'timeout', reason: 'the list is behind', polls: 4 })
    expect(behind.lines.at(-1)).toBe('info: [+12.0 s] outcome: timeout (the list is behind)')
    const failed = scripted([[{ status: 'error' }]], { deadline: 12_000 })
    failed.source.behind = 'the list is behind'
    expect(await failed.run()).toMatchObject({ outcome: 'failure', polls: 1 })
    // Read once and report: behind is pending, not a pass.
    const once = scripted([[{ status: 'finished' }]], { wait: false })
    once.source.behind = 'the list is behind'
    expect(await once.run()).toMatchObject({ outcome: 'pending', polls: 1 })
  })
})
