/*
 * Faults on demand for the local API server: any status (with the message and code an API error
 * would hold), dropped connections, slow answers, malformed JSON, or the normal answer altered as
 * no contract allows, for a number of requests or over a time, on one route or all; and the body a
 * status or malformed fault answers with.
 */
import { errorBody } from './answers.ts'
import type { Route } from './routes.ts'

export type Fault = (
  | {
      kind: 'status'
      status: number
      retryAfter?: string
      /** The error body's fields, the API's own words unless given. */
      message?: string
      code?: string
      requestId?: string
    }
  | { kind: 'drop' }
  | { kind: 'slow'; delayMs: number }
  /** A body that is not JSON: cut short unless `body` says (a proxy's HTML page), `contentType`. */
  | { kind: 'malformed'; status?: number; body?: string; contentType?: string }
  /** The normal answer, its body changed as a server that strays from the contract would. */
  | { kind: 'altered'; alter: (body: unknown) => unknown }
) & {
  /** Only requests to this route; all routes when absent. */
  route?: Route
  /** For this many matching requests ... */
  times?: number
  /** ... or until this clock time. Without either, until removed. */
  until?: number
  /** Not before this clock time. */
  from?: number
}

/** The faults still to happen, in the order they were added. */
export class Faults {
  private faults: Fault[] = []

  add(fault: Fault): void {
    this.faults.push({ ...fault })
  }

  clear(): void {
    this.faults = []
  }

  /** The fault for a request of `route` at `now`, counted down; undefined: answer normally. */
  take(route: Route | undefined, now: number): Fault | undefined {
    this.faults = this.faults.filter(
      (fault) => (fault.times ?? 1) > 0 && (fault.until ?? Infinity) > now
    )
    const fault = this.faults.find(
      (candidate) =>
        (!candidate.route || candidate.route === route) && (candidate.from ?? -Infinity) <= now
    )
    if (fault?.times !== undefined) fault.times--
    return fault
  }
}

/** A malformed fault's body unless it gives one: JSON cut short. */
export const MALFORMED_BODY = '{"operation": {"id": "truncated'

/** The error body of a status fault: the API's shape, with the fields the fault gives. */
export function faultBody(fault: Extract<Fault, { kind: 'status' }>) {
  const body = errorBody(fault.message ?? `injected HTTP ${fault.status}`)
  return {
    ...body,
    code: fault.code ?? body.code,
    request_id: fault.requestId ?? body.request_id
  }
}

/** How a server stops the operations list short of its end (see `stoppedList`). */
export type ListStop = 'no cursor' | 'no pagination' | 'first cursor again'

/**
 * The operations list stopped short of its end by a server that strays from the contract: its
 * `answer`-th list answer (of the first read, or of a later poll) gives no cursor, no pagination at
 * all, or the first answer's cursor again.
 */
export function stoppedList({ answer, how }: { answer: number; how: ListStop }): Fault {
  const answers: { pagination?: unknown }[] = []
  return {
    kind: 'altered',
    route: 'operations',
    alter: (body) => {
      const page = body as { pagination?: unknown }
      if (answers.push(page) !== answer) return page
      if (how === 'no pagination') return { ...page, pagination: undefined }
      return { ...page, pagination: how === 'no cursor' ? {} : answers[0].pagination }
    }
  }
}
