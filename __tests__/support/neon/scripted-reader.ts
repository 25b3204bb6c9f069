/*
 * The one in-process Neon reader, below the API client, for the wait engine's unit tests (the
 * world serves everything above it). Reads by id follow a script of statuses per operation, or
 * the list; the list is a history paged as the API pages it (newest first, the cursor the last
 * one's created_at, a page cap whatever `limit` asks). Scripted pages (`ScriptedReader.pages`)
 * remain for what the API must never send and the source must survive: operations with an
 * unreadable or missing created_at, which the history cannot order or page by.
 */
import { DeadlineExceededError } from '../../../src/domain/errors.js'
import type { OperationsReading } from '../../../src/wait/operation-sources.js'
import type { Operation, OperationList } from '../../../src/domain/schemas.js'
import { operation } from './operations.js'

type Step = string | Error
/** For each operation id, its status at each read by id (the last one repeats), or an Error. */
export type StatusScripts = Record<string, Step[]>

const iso = (ms: number) => new Date(ms).toISOString()

export class ScriptedReader implements OperationsReading {
  /** Every call, in order: `get <id>`, `list top` or `list <cursor>`. */
  readonly calls: string[] = []
  /** The list, newest first. */
  readonly operations: Operation[] = []
  /** The most a page holds, whatever `limit` asked for (a server may cap it). */
  pageCap = Infinity
  private readonly scripts = new Map<string, Step[]>()
  private scripted?: { pages: Operation[][]; byId: (id: string) => Operation; lists: number }
  private readonly now: number

  /**
   * `scripts`: for each operation id, its status at each read by id (the last one repeats); an
   * Error in the script is thrown by that read. `now`: the time `add` counts back from.
   */
  constructor(scripts: StatusScripts = {}, now = Date.now()) {
    for (const [id, steps] of Object.entries(scripts)) this.scripts.set(id, [...steps])
    this.now = now
  }

  /**
   * A reader whose list answers `pages`, one a call whatever the cursor (`c<n>` after a page that
   * is not empty), and whose reads by id answer `byId`.
   */
  static pages(
    pages: Operation[][],
    byId: (id: string) => Operation = (id) => operation({ id })
  ): ScriptedReader {
    const reader = new ScriptedReader()
    reader.scripted = { pages, byId, lists: 0 }
    return reader
  }

  /** The ids read one by one, in order. */
  get reads(): string[] {
    return this.calls.filter((call) => call.startsWith('get ')).map((call) => call.slice(4))
  }

  /** An operation created `minutesAgo` before `now`, in its place in the list. */
  add(minutesAgo: number, fields: Partial<Operation> = {}): Operation {
    const created = this.now - minutesAgo * 60_000
    const op = operation({ created_at: iso(created), updated_at: iso(created + 1000), ...fields })
    // Newest first. Tests add in that order (one adds 2,100), so the oldest goes on the end at once.
    const last = this.operations.at(-1)
    const index =
      !last || Date.parse(last.created_at!) >= created
        ? -1
        : this.operations.findIndex((other) => Date.parse(other.created_at!) < created)
    this.operations.splice(index < 0 ? this.operations.length : index, 0, op)
    return op
  }

  set(id: string, status: string): void {
    this.operations.find((candidate) => candidate.id === id)!.status = status
  }

  async listOperations(
    _projectId: string,
    { limit, cursor }: { limit: number; cursor?: string }
  ): Promise<OperationList> {
    this.calls.push(`list ${cursor ?? 'top'}`)
    if (this.scripted) {
      const index = this.scripted.lists++
      const page = this.scripted.pages[Math.min(index, this.scripted.pages.length - 1)]
      return {
        // As the API sent them: a missing created_at too (the schema would refuse it; the source
        // must not trip over it).
        operations: page.map((op) => ({ ...op, created_at: op.created_at as string })),
        pagination: { cursor: page.length > 0 ? `c${index}` : undefined }
      }
    }
    const older = cursor
      ? this.operations.filter((op) => Date.parse(op.created_at!) < Date.parse(cursor))
      : this.operations
    const page = older
      .slice(0, Math.min(limit, this.pageCap))
      .map((op) => ({ ...op, created_at: op.created_at! }))
    return { operations: page, pagination: { cursor: page.at(-1)?.created_at } }
  }

  async getOperation(_projectId: string, id: string): Promise<Operation> {
    this.calls.push(`get ${id}`)
    const steps = this.scripts.get(id)
    if (steps) {
      const step = steps.length > 1 ? steps.shift()! : steps[0]
      if (step instanceof Error) throw step
      return operation({ id, status: step })
    }
    if (this.scripted) return this.scripted.byId(id)
    const listed = this.operations.find((op) => op.id === id)
    if (!listed) throw new Error(`no script for ${id}`)
    return { ...listed }
  }
}

export const deadlineError = () =>
  new DeadlineExceededError(new Error('HTTP 429'), {
    reason: 'HTTP 429, Retry-After 60',
    delayMs: 65_000,
    leftMs: 4000
  })
