import { HttpClient } from '@actions/http-client'
import type { z } from 'zod'
import type { Clock } from './clock.js'
import { formatDuration } from './duration.js'
import { ApiError, NetworkError, ResponseFormatError } from './errors.js'
import type { Logger } from './logger.js'
import { type RetryPolicy, withRetries } from './retry-policy.js'
import { redactSecret } from './secret.js'
import {
  type ErrorBody,
  ErrorBodySchema,
  type Operation,
  type OperationList,
  OperationListSchema,
  OperationResponseSchema,
  type Project,
  ProjectListSchema
} from './schemas.js'
import { ACTION_NAME, ACTION_VERSION } from './version.js'

/** The live API accepts 1-400 projects per page (default 10). */
export const PROJECTS_PAGE_LIMIT = 400
/** Never let one request outlive the overall deadline by more than this. */
const MIN_REQUEST_TIME_MS = 1000

export interface ApiClientOptions {
  baseUrl: string
  apiKey: string
  /** Time limit of one request (connection, answer and body). */
  requestTimeoutMs: number
  retryPolicy: RetryPolicy
  clock: Clock
  logger: Logger
  /** Absolute clock time: no retry starts after it, no request runs much past it. */
  deadline: number
  signal?: AbortSignal
}

export interface ProjectListing {
  projects: Project[]
  unavailableProjectIds: string[]
}

export interface RequestStats {
  requests: number
  retries: number
}

interface RawResponse {
  status: number
  retryAfter?: string
  body: string
}

/** GET-only client of the management API; every request goes through the retry policy. */
export class ApiClient {
  readonly stats: RequestStats = { requests: 0, retries: 0 }
  private readonly baseUrl: string

  constructor(private readonly options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
  }

  async listProjects(orgId?: string): Promise<ProjectListing> {
    const projects = new Map<string, Project>()
    const unavailable = new Set<string>()
    let cursor: string | undefined
    for (;;) {
      const page = await this.get(
        ['projects'],
        { limit: String(PROJECTS_PAGE_LIMIT), cursor, org_id: orgId },
        ProjectListSchema,
        orgId ? `the projects of organization "${orgId}"` : 'the list of projects'
      )
      for (const project of page.projects) projects.set(project.id, project)
      for (const id of page.unavailable_project_ids ?? []) unavailable.add(id)
      const next = nextPageCursor(
        page.projects.length,
        PROJECTS_PAGE_LIMIT,
        page.pagination,
        cursor
      )
      if (next === undefined) break
      cursor = next
    }
    return { projects: [...projects.values()], unavailableProjectIds: [...unavailable] }
  }

  /** One page of the project's operations, newest first. */
  listOperations(
    projectId: string,
    page: { limit: number; cursor?: string }
  ): Promise<OperationList> {
    return this.get(
      ['projects', projectId, 'operations'],
      { limit: String(page.limit), cursor: page.cursor },
      OperationListSchema,
      `project "${projectId}"`
    )
  }

  async getOperation(projectId: string, operationId: string): Promise<Operation> {
    const response = await this.get(
      ['projects', projectId, 'operations', operationId],
      {},
      OperationResponseSchema,
      `operation "${operationId}" of project "${projectId}"`
    )
    return response.operation
  }

  private async get<S extends z.ZodType>(
    segments: string[],
    query: Record<string, string | undefined>,
    schema: S,
    subject: string
  ): Promise<z.output<S>> {
    const path = '/' + segments.map(encodeURIComponent).join('/')
    const endpoint = `GET ${path}`
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) search.set(name, value)
    }
    const target = `${path}${search.size > 0 ? `?${search}` : ''}`
    const url = `${this.baseUrl}${target}`
    const { clock, logger } = this.options

    const response = await withRetries(
      async () => {
        this.stats.requests++
        logger.debug(`GET ${target}`)
        const raw = await this.send(url, endpoint)
        if (raw.status < 200 || raw.status > 299) {
          throw apiErrorFrom(
            { ...raw, body: redactSecret(raw.body, this.options.apiKey) },
            endpoint,
            subject
          )
        }
        return raw
      },
      {
        policy: this.options.retryPolicy,
        clock,
        deadline: this.options.deadline,
        signal: this.options.signal,
        onRetry: (decision, error) => {
          this.stats.retries++
          logger.debug(error.message)
          logger.info(
            `${endpoint}: ${decision.reason}; retrying in ${formatDuration(decision.delayMs)}`
          )
        }
      }
    )
    return parseBody(response.body, schema, endpoint)
  }

  /**
   * One request, bounded by the per-request limit, the overall deadline and the abort signal.
   * http-client has no way to abort a request, so each request gets its own client, whose dispose()
   * destroys the socket: a request cut short must not keep the process alive until the server
   * answers.
   */
  private async send(url: string, endpoint: string): Promise<RawResponse> {
    const { clock, signal } = this.options
    signal?.throwIfAborted()
    const timeLimitMs = Math.min(
      this.options.requestTimeoutMs,
      Math.max(MIN_REQUEST_TIME_MS, this.options.deadline - clock.now())
    )
    const http = new HttpClient(`${ACTION_NAME}/${ACTION_VERSION}`, [], {
      allowRetries: false,
      keepAlive: true,
      socketTimeout: timeLimitMs
    })
    const request = (async (): Promise<RawResponse> => {
      const response = await http.get(url, {
        Authorization: `Bearer ${this.options.apiKey}`,
        Accept: 'application/json'
      })
      const body = await response.readBody()
      const retryAfter = response.message.headers['retry-after']
      return { status: response.message.statusCode ?? 0, retryAfter, body }
    })()
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const limits = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new NetworkError(endpoint, `no answer within ${formatDuration(timeLimitMs)}`)),
        timeLimitMs
      )
      onAbort = () => reject(signal?.reason)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    try {
      return await Promise.race([
        request.catch((error: unknown) => {
          throw new NetworkError(
            endpoint,
            redactSecret(networkErrorDetail(error), this.options.apiKey)
          )
        }),
        limits
      ])
    } finally {
      clearTimeout(timer)
      if (onAbort) signal?.removeEventListener('abort', onAbort)
      // The loser of the race may still settle; it must not become an unhandled rejection.
      request.catch(() => undefined)
      http.dispose()
    }
  }
}

/**
 * The cursor of the next page, or undefined on the last one: a page shorter than the limit asked
 * for, or without a new cursor (a repeated cursor would loop forever).
 */
export function nextPageCursor(
  pageLength: number,
  limit: number,
  pagination: { cursor?: string | null } | null | undefined,
  cursor: string | undefined
): string | undefined {
  const next = pagination?.cursor ?? undefined
  return pageLength < limit || !next || next === cursor ? undefined : next
}

function apiErrorFrom(raw: RawResponse, endpoint: string, subject: string): ApiError {
  let body: ErrorBody = {}
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(raw.body))
    if (parsed.success) body = parsed.data
  } catch {
    // An error answer without a JSON body still has its status.
  }
  return new ApiError({
    status: raw.status,
    endpoint,
    subject,
    code: body.code ?? undefined,
    apiMessage: body.message ?? undefined,
    requestId: body.request_id ?? undefined,
    retryAfter: raw.retryAfter
  })
}

function parseBody<S extends z.ZodType>(body: string, schema: S, endpoint: string): z.output<S> {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    throw new ResponseFormatError(endpoint, 'the body is not JSON')
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue.path.length > 0 ? issue.path.join('.') : '(body)'
    throw new ResponseFormatError(endpoint, `field "${field}": ${issue.message}`)
  }
  return parsed.data
}

function networkErrorDetail(error: unknown): string {
  // Duck-typed: errors from node:http may come from another realm (e.g. under a test VM).
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : String(error)
  return typeof code === 'string' ? `${code} (${text})` : text
}
