/*
 * The gate's run (src/gate/gate-run.ts), the seam both front ends start: the secrets in every form
 * (which inputs are secrets: the input catalog's), the report of an error outside the gate,
 * signals to an abort (a repeated one as the front end asks), the banner and the warnings in their
 * order, and the timeout counted from the run's start. A unit test, with a transport of its own:
 * how each front end shows it is main.test.ts and command-run.test.ts (in process) and e2e/.
 */
import { describe, expect, it } from '@jest/globals'
import { EventEmitter } from 'node:events'
import type { HttpGet } from '../src/api/http-transport.js'
import { RetryPolicy } from '../src/api/retry-policy.js'
import { CancelledError } from '../src/domain/errors.js'
import { CONTRACT_NAMING } from '../src/domain/input-naming.js'
import { Redactor } from '../src/domain/untrusted-text.js'
import { ACTION_VERSION } from '../src/domain/version.js'
import {
  addSecret,
  addSecretInput,
  addSecretInputs,
  errorReport,
  GateRun,
  type GateRunOptions,
  messageOf
} from '../src/gate/gate-run.js'
import { parseInputs } from '../src/gate/inputs.js'
import { FakeClock } from './support/time/clock.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'
import { OP_A, PROJECT } from './support/neon/ids.js'

const KEY = 'napi_gate_run_test_key_0123456789'

const inputsOf = (values: Record<string, string>) =>
  parseInputs(
    (name) => ({ api_key: KEY, api_host: 'http://127.0.0.1:9/api/v2', ...values })[name],
    CONTRACT_NAMING
  )

/** A transport that answers every read with one finished operation, and counts the reads. */
function finishedOperation(): { transport: HttpGet; reads: URL[] } {
  const reads: URL[] = []
  const transport: HttpGet = async (url) => {
    reads.push(url)
    const body = JSON.stringify({ operation: operation({ id: OP_A, status: 'finished' }) })
    return { status: 200, headers: {}, body }
  }
  return { transport, reads }
}

function gateRun(options: Partial<GateRunOptions> = {}) {
  const { logger, lines } = collectingLogger()
  const signals = new EventEmitter()
  const clock = new FakeClock()
  const run = new GateRun({
    logger,
    redactor: new Redactor(),
    signals: signals as unknown as Pick<NodeJS.Process, 'once' | 'off'>,
    clock,
    retryPolicy: new RetryPolicy({ random: () => 0 }),
    random: () => 0,
    ...finishedOperation(),
    ...options
  })
  return { run, lines, signals, clock }
}

describe('addSecret', () => {
  it('a secret as given; a database URL with its password, plain and decoded; nothing for empty', () => {
    const redactor = new Redactor()
    expect(addSecret(redactor, KEY)).toEqual([KEY])
    expect(
      addSecret(redactor, 'postgresql://app:p%40ss@db.example.test/app', 'database_url')
    ).toEqual(['postgresql://app:p%40ss@db.example.test/app', 'p%40ss', 'p@ss'])
    expect(addSecret(redactor, '')).toEqual([])
    expect(redactor.redact(`${KEY} p@ss p%40ss`)).not.toMatch(/napi_|p@ss|p%40ss/)
  })
})

describe('addSecretInputs', () => {
  const URL = 'postgresql://app:p%40ss@db.example.test/app'

  it('reads only the secret inputs, each handed on before the next is read, without white space', () => {
    const redactor = new Redactor()
    const events: string[] = []
    const values: Record<string, string> = {
      api_key: ` ${KEY}\n`,
      database_url: URL,
      project_id: 'calm-sea-123456'
    }
    const read = addSecretInputs(
      redactor,
      (name) => {
        events.push(`read ${name}`)
        return values[name]
      },
      (form) => events.push(`secret ${form}`)
    )
    expect(events).toEqual([
      'read api_key',
      `secret ${KEY}`,
      'read database_url',
      `secret ${URL}`,
      'secret p%40ss',
      'secret p@ss'
    ])
    expect(read).toEqual({ api_key: ` ${KEY}\n`, database_url: URL })
    expect(redactor.redact('calm-sea-123456')).toBe('calm-sea-123456')
  })

  it('one input: a secret by the catalog, in its kind; nothing for one that is none, or empty', () => {
    const redactor = new Redactor()
    expect(addSecretInput(redactor, 'database_url', ` ${URL} `)).toEqual([URL, 'p%40ss', 'p@ss'])
    expect(addSecretInput(redactor, 'api_key', KEY)).toEqual([KEY])
    expect(addSecretInput(redactor, 'project_id', 'calm-sea-123456')).toEqual([])
    expect(addSecretInput(redactor, 'api_key', undefined)).toEqual([])
    expect(redactor.redact(`${KEY} p@ss calm-sea-123456`)).not.toMatch(/napi_|p@ss/)
  })
})

describe('errorReport', () => {
  it('an error outside the gate: no request, the words redacted, the facts given kept', () => {
    const redactor = new Redactor([KEY])
    expect(errorReport(`refused ${KEY}`, redactor)).toEqual({
      requests: { requests: 0, retries: 0 },
      outcome: 'error',
      error: 'refused ***'
    })
    expect(errorReport('SIGINT', redactor, { outcome: 'cancelled' })).toEqual({
      requests: { requests: 0, retries: 0 },
      outcome: 'cancelled',
      error: 'SIGINT'
    })
    expect(errorReport('bad', redactor, { errorCause: 'input' })).toMatchObject({
      outcome: 'error',
      errorCause: 'input'
    })
    expect(messageOf(new Error('words'))).toBe('words')
    expect(messageOf('thrown text')).toBe('thrown text')
  })
})

describe('GateRun', () => {
  it('the first SIGINT or SIGTERM aborts with its CancelledError; a repeated one goes to the front end', () => {
    const repeated: string[] = []
    const { run, lines, signals } = gateRun({ onRepeatedSignal: (signal) => repeated.push(signal) })
    signals.emit('SIGTERM', 'SIGTERM')
    expect(run.signal.aborted).toBe(true)
    expect(run.signal.reason).toEqual(new CancelledError('SIGTERM'))
    expect(run.stoppedBy).toBe('SIGTERM')
    expect(lines).toEqual(['info: Received SIGTERM: stopping'])
    signals.emit('SIGINT', 'SIGINT')
    expect(repeated).toEqual(['SIGINT'])
    expect(run.stoppedBy).toBe('SIGTERM')
  })

  it('without a say on a repeated signal: logged like the first, which still stands', () => {
    const { run, lines, signals } = gateRun()
    signals.emit('SIGINT', 'SIGINT')
    signals.emit('SIGTERM', 'SIGTERM')
    expect(lines).toEqual(['info: Received SIGINT: stopping', 'info: Received SIGTERM: stopping'])
    expect(run.stoppedBy).toBe('SIGINT')
    expect(run.signal.reason).toEqual(new CancelledError('SIGINT'))
  })

  it('gate(): the banner, the gate in words, then the warnings; no signal heard once it is done', async () => {
    const { run, lines, signals } = gateRun()
    expect(lines).toEqual([])
    expect(signals.listenerCount('SIGINT')).toBe(1)
    const report = await run.gate(
      inputsOf({ project_id: PROJECT, operation_id: OP_A, org_id: 'org-1' }),
      CONTRACT_NAMING
    )
    expect(report.outcome).toBe('success')
    expect(lines.slice(0, 3)).toEqual([
      `info: Neon operations gate ${ACTION_VERSION}`,
      `info: Gate: operation ${OP_A} of project ${PROJECT}; no database query`,
      'warning: org_id is ignored without list_projects: true'
    ])
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0)
  })

  it('bannerFirst: the banner, with what the run is for, as the run begins', async () => {
    const { run, lines } = gateRun({ bannerFirst: true, about: 'pull request #42' })
    expect(lines).toEqual([`info: Neon operations gate ${ACTION_VERSION} for pull request #42`])
    await run.gate(inputsOf({ project_id: PROJECT, operation_id: OP_A }), CONTRACT_NAMING)
    expect(lines.filter((line) => line.includes('Neon operations gate'))).toHaveLength(1)
  })

  it('the timeout counts from the run’s start, the reading of secrets before the gate included', async () => {
    const read = gateRun()
    read.clock.advance(3000)
    const inputs = inputsOf({ project_id: PROJECT, operation_id: OP_A, timeout: '5s' })
    const report = await read.run.gate(inputs, CONTRACT_NAMING)
    expect([report.outcome, report.elapsedMs]).toEqual(['success', 3000])
    // Secrets read for longer than the timeout (and its last read's grace): not one request.
    const { transport, reads } = finishedOperation()
    const slow = gateRun({ transport })
    slow.clock.advance(10_000)
    expect((await slow.run.gate(inputs, CONTRACT_NAMING)).outcome).toBe('timeout')
    expect(reads).toHaveLength(0)
  })

  it('end(): signals are no longer heard, before any gate too', () => {
    const { run, signals } = gateRun()
    run.end()
    signals.emit('SIGINT', 'SIGINT')
    expect(run.signal.aborted).toBe(false)
  })
})
