import { DeadlineExceededError } from '../../../src/domain/errors.js'
import type { OperationsReading } from '../../../src/wait/operation-sources.js'
import type { Operation, OperationList } from '../../../src/domain/schemas.js'
import { operation } from './operations.js'

type Step = string | Error

/**
 * A fake API for the wait engine: each operation id follows a script of statuses, one per read
 * (the last one repeats); an Error in the script is thrown by that read.
 */
export class ScriptedReader implements OperationsReading {
  readonly reads: string[] = []
  private readonly scripts = new Map<string, Step[]>()

  constructor(scripts: Record<string, Step[]>) {
    for (const [id, steps] of Object.entries(scripts)) this.scripts.set(id, [...steps])
  }

  async getOperation(_projectId: string, id: string): Promise<Operation> {
    this.reads.push(id)
    const steps = this.scripts.get(id)
    if (!steps) throw new Error(`no script for ${id}`)
    const step = steps.length > 1 ? steps.shift()! : steps[0]
    if (step instanceof Error) throw step
    return operation({ id, status: step })
  }

  async listOperations(): Promise<OperationList> {
    throw new Error('not used')
  }
}

export const deadlineError = () =>
  new DeadlineExceededError(new Error('HTTP 429'), {
    reason: 'HTTP 429, Retry-After 60',
    delayMs: 65_000,
    leftMs: 4000
  })
