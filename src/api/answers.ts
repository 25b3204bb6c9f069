/*
 * What an answer of the API holds, read for the request core (api-core.ts): an error answer's
 * status, body and headers as an ApiError; a 2xx body as JSON (one that is not JSON is retried);
 * that JSON checked against what the reader needs, and whether it holds another project's branch
 * or operation than asked. Secrets are redacted from what is kept.
 */
import type { z } from 'zod'
import { ApiError, NotJsonError, ResponseFormatError } from '../domain/errors.js'
import { type ErrorBody, ErrorBodySchema } from '../domain/schemas.js'
import { truncate, type Redactor } from '../domain/untrusted-text.js'
import type { HttpAnswer } from './http-transport.js'

/** The error an answer with a status other than 2xx is, with what its body and headers say. */
export function apiErrorFrom(
  raw: HttpAnswer,
  endpoint: string,
  subject: string,
  redactor: Redactor
): ApiError {
  let body: ErrorBody = {}
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(raw.body))
    if (parsed.success) body = redactor.redactJson(parsed.data) as ErrorBody
  } catch {
    // An error answer without a JSON body still has its status.
  }
  // Redacted before it is cut: a cut through the key would leave a part no redaction matches.
  const header = (name: string): string | undefined => {
    const value = raw.headers[name]
    return typeof value === 'string' ? truncate(redactor.redact(value), 200) : undefined
  }
  return new ApiError({
    status: raw.status,
    endpoint,
    subject,
    code: body.code ?? undefined,
    apiMessage: body.message ?? undefined,
    requestId: body.request_id ?? undefined,
    retryAfter: header('retry-after'),
    location: header('location')
  })
}

/**
 * The body of a 2xx answer as JSON. One that is not JSON at all (a proxy's or a gateway's HTML
 * page with status 200, a body cut short) is retried like an answer cut off in transit: only a
 * run of them until the deadline ends the gate. JSON of the wrong shape is the API's answer, and
 * an error at once (parseBody).
 */
export function jsonOf(raw: HttpAnswer, endpoint: string, redactor: Redactor): unknown {
  try {
    return JSON.parse(raw.body)
  } catch {
    const type = raw.headers['content-type']
    const bytes = `${Buffer.byteLength(raw.body)} bytes`
    // Redacted before it is cut: a cut through the key would leave a part no redaction matches.
    const said =
      typeof type === 'string' ? `${bytes} of ${truncate(redactor.redact(type), 80)}` : bytes
    throw new NotJsonError(endpoint, `${said}, a proxy's page?`)
  }
}

/**
 * JSON checked against the schema, which drops every field the action does not use, then the
 * secrets redacted from every string that is left: the cost follows what the action reads, not
 * what the server sends (millions of strings in an ignored field, or JSON nested a million deep).
 */
export function parseBody<S extends z.ZodType>(
  json: unknown,
  schema: S,
  endpoint: string,
  redactor: Redactor
): z.output<S> {
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue.path.length > 0 ? issue.path.join('.') : '(body)'
    throw new ResponseFormatError(endpoint, redactor.redact(`field "${field}": ${issue.message}`))
  }
  return redactor.redactJson(parsed.data) as z.output<S>
}

/** What is wrong when an answer holds a branch or an operation of another project than asked. */
export function strangerIn(
  items: { id: string; project_id?: string | null }[],
  projectId: string,
  what: 'branch' | 'operation' | 'compute'
): string | undefined {
  const stranger = items.find((item) => item.project_id && item.project_id !== projectId)
  return (
    stranger &&
    `${what} "${stranger.id}" belongs to project "${stranger.project_id}", not the one asked for`
  )
}
