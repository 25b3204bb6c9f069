/*
 * Our local servers are claims about someone else's API: this holds them, and the requests the
 * action sends them, to the description the real service publishes (Neon's OpenAPI document,
 * GitHub's REST description). Each request is matched to an operation of the document and checked
 * (path and query parameters, their types and bounds, the bearer scheme where the document asks
 * for it), and each answer is checked against the document's schema for its status (or `default`),
 * formats (date-time, uuid) included. Used by the local servers in test mode; not bundled.
 */
import addFormats from 'ajv-formats'
import { OpenAPIBackend } from 'openapi-backend'

interface ContractRequest {
  method: string
  /** The JSON body of a POST or PATCH. */
  body?: unknown
  /** The path as the server received it, its base path included. */
  path: string
  query: Record<string, string>
  headers: Record<string, string | string[] | undefined>
}

export interface ContractViolation {
  /** `GET /projects/p/operations → 200` */
  exchange: string
  where: 'request' | 'answer'
  problems: string[]
}

/** The parts of an OpenAPI document read here; the rest goes to the validator as it is. */
export interface ApiDocument {
  paths: Record<string, Record<string, unknown>>
  security?: Record<string, string[]>[]
  components?: { securitySchemes?: Record<string, { type?: string; scheme?: string }> }
  [key: string]: unknown
}

export interface Contract {
  /** What the request and its answer break in the document; empty when they keep to it. */
  check(request: ContractRequest, answer: { status: number; body: unknown }): ContractViolation[]
  /**
   * Compiles every operation's validators now. Otherwise each is compiled at its operation's first
   * check: on a busy machine about a second each, inside the first request of a bundle whose
   * pull-request comment has 5 s of wall clock (issue #66's revert: the create answered too late).
   */
  precompile(): void
}

/**
 * Only `paths` (with their methods) are kept, and of the components only those they reach through
 * `$ref`s, so that only what is used is compiled (GitHub's description is 13 MB).
 */
export function trimDocument(document: ApiDocument, paths: Record<string, string[]>): ApiDocument {
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'])
  const kept: ApiDocument['paths'] = {}
  for (const [path, used] of Object.entries(paths)) {
    const item = document.paths[path]
    if (!item) throw new Error(`the document has no path ${path}`)
    kept[path] = Object.fromEntries(
      Object.entries(item).filter(([key]) => !methods.has(key) || used.includes(key))
    )
  }
  const all = (document.components ?? {}) as Record<string, Record<string, unknown>>
  const components: Record<string, Record<string, unknown>> = {}
  const reach = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(reach)
    if (value === null || typeof value !== 'object') return
    for (const [key, item] of Object.entries(value)) {
      const ref =
        key === '$ref' && typeof item === 'string' && /^#\/components\/([^/]+)\/(.+)$/.exec(item)
      if (ref) {
        const [, section, name] = ref
        if (components[section]?.[name] !== undefined) continue
        components[section] = { ...components[section], [name]: all[section]?.[name] }
        reach(all[section]?.[name])
      } else reach(item)
    }
  }
  reach(kept)
  reach(document.security)
  if (all.securitySchemes) components.securitySchemes = all.securitySchemes
  const trimmed: ApiDocument = { ...document, paths: kept, components }
  delete trimmed['x-webhooks']
  delete trimmed.webhooks
  return trimmed
}

export async function openApiContract(
  document: ApiDocument,
  options: { basePath?: string } = {}
): Promise<Contract> {
  const api = await validatorOf(document)
  const basePath = options.basePath ?? ''
  const operationOf = matchedOnce(api)
  return {
    precompile() {
      api.validator.preCompileRequestValidators()
      api.validator.preCompileResponseValidators()
    },
    check(request, answer) {
      const path = request.path.startsWith(basePath) ? request.path.slice(basePath.length) : ''
      const exchange = `${request.method} ${request.path} → ${answer.status}`
      const headers = definedHeaders(request.headers)
      const asked = {
        method: request.method,
        path,
        query: request.query,
        headers,
        body: request.body
      }
      const operation = path ? operationOf(asked) : undefined
      if (!operation) {
        return [{ exchange, where: 'request', problems: ['no operation of the document'] }]
      }
      const violations: ContractViolation[] = []
      const requestProblems = describe(api.validateRequest(asked, operation).errors)
      const authorization = String(request.headers.authorization ?? '')
      if (bearerRequired(operation, document) && !/^Bearer \S+$/.test(authorization)) {
        requestProblems.push('Authorization is not "Bearer <token>"')
      }
      if (requestProblems.length > 0) {
        violations.push({ exchange, where: 'request', problems: requestProblems })
      }
      const answerProblems = describe(
        api.validateResponse(answer.body, operation, answer.status).errors
      )
      if (answerProblems.length > 0) {
        violations.push({ exchange, where: 'answer', problems: answerProblems })
      }
      return violations
    }
  }
}

/**
 * The operation of a method and path, matched once: openapi-backend makes every path template of
 * the document a new RegExp at each match, a quarter of the checks' CPU time in comment-legs.
 */
function matchedOnce(api: OpenAPIBackend) {
  const operations = new Map<string, ReturnType<OpenAPIBackend['matchOperation']>>()
  return (asked: Parameters<OpenAPIBackend['matchOperation']>[0]) => {
    const key = `${asked.method} ${asked.path}`
    if (!operations.has(key)) operations.set(key, api.matchOperation(asked))
    return operations.get(key)
  }
}

/** openapi-backend over the document, with ajv's formats (date-time, uuid). */
async function validatorOf(document: ApiDocument): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: document as never,
    quick: true,
    validate: true,
    ajvOpts: { strict: false, allErrors: true },
    customizeAjv: (ajv) => {
      addFormats.default(ajv)
      return ajv
    }
  })
  await api.init()
  return api
}

/** The request's headers that it has (node:http gives absent ones as undefined). */
function definedHeaders(headers: ContractRequest['headers']): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(headers).filter(
      (entry): entry is [string, string | string[]] => entry[1] !== undefined
    )
  )
}

/** Whether the operation (or else the document) asks for an HTTP bearer token. */
function bearerRequired(operation: object, document: ApiDocument): boolean {
  const security = (operation as { security?: ApiDocument['security'] }).security
  return (security ?? document.security ?? []).some((requirement) =>
    Object.keys(requirement).some((name) => {
      const scheme = document.components?.securitySchemes?.[name]
      return scheme?.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer'
    })
  )
}

/** The validator's errors, one line each. */
function describe(errors: { instancePath?: string; message?: string }[] | null | undefined) {
  return (errors ?? []).map((error) =>
    `${error.instancePath || '(body)'} ${error.message ?? ''}`.trim()
  )
}
