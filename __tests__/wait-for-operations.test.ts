import { describe, expect, it } from '@jest/globals'
import { ApiError, CancelledError } from '../src/domain/errors.js'
import type { Logger } from '../src/domain/logger.js'
import { isFinal } from '../src/domain/operation-status.js'
import { OperationIdsSource } from '../src/wait/operation-sources.js'
import { Pace } from '../src/api/pace.js'
import { type WaitOptions, waitForOperations } from '../src/wait/wait-for-operations.js'
import { FakeClock } from './fixtures/fake-clock.js'
import { OP_A, OP_B, OP_C, PROJECT } from './fixtures/operations.js'
import { ScriptedReader, deadlineError } from './fixtures/scripted-reader.js'

function setup(
  scripts: ConstructorParameters<typeof ScriptedReader>[0],
  options: Partial<WaitOptions> = {},
  intervalMs = 5000
) {
  const clock = new FakeClock(0)
  const lines: string[] = []
  const logger: Logger = {
    info: (message) => lines.push(`info: ${message}`),
    warning: (message) => lines.push(`warning: ${message}`),
    debug: () => undefined
  }
  const waitOptions: WaitOptions = {
    wait: true,
    deadline: 600_000,
    failFast: false,
    ...options
  }
  const reader = new ScriptedReader(scripts)
  const source = new OperationIdsSource(reader, PROJECT, Object.keys(scripts), (operation) =>
    isFinal(operation.status, waitOptions.failFast)
  )
  const controller = new AbortController()
  const pace = new Pace(intervalMs, logger, () => 0)
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
      `info: [+10.0 s] ${OP_A} start_compute on br-main-123456: running → ${final}`
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
      `info: [+0 ms] ${OP_A} start_compute on br-main-123456: scheduling`,
      `info: [+5.0 s] ${OP_A} start_compute on br-main-123456: scheduling → running`,
      `info: [+20.0 s] ${OP_A} start_compute on br-main-123456: running → finished`
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
    expect(result.reason).toContain('no retry fits before the deadline; last error: HTTP 429')
  })

  it('a 401 in the middle of a wait fails at once', async () => {
    const revoked = new ApiError({ status: 401, endpoint: 'GET /x', subject: 'x' })
    const { run, reader } = setup({ [OP_A]: ['running', 'running', revoked, 'finished'] })
    await expect(run()).rejects.toBe(revoked)
    expect(reader.reads).toHaveLength(3)
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
