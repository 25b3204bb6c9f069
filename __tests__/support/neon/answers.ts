/*
 * What the local API answers with: a status, a body and headers; an error's body as the live API
 * shapes it (`{code, message, request_id}`), and the 429 of a request over a rate limit.
 */
import { randomUUID } from 'node:crypto'

export interface Answer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** A request over a rate limit (limits.ts): 429, with the limiter's headers. */
export function rateLimitedAnswer(headers: Record<string, string>): Answer {
  return { status: 429, body: errorBody('rate limit exceeded, retry later'), headers }
}

export function errorBody(message: string) {
  return { code: '', message, request_id: randomUUID() }
}
