import { z } from 'zod'
import { parseDuration } from '../domain/duration.js'
import { parseDatabaseUrl } from '../domain/database.js'
import { InputError } from '../domain/errors.js'
import { isLoopbackHost } from '../domain/loopback.js'
import { UNSAFE_CHARACTER_CLASS } from '../domain/untrusted-text.js'

export const DEFAULT_API_HOST = 'https://console.neon.tech/api/v2'
const ID_PATTERN = /^[a-z0-9-]{1,60}$/
/** A branch id, or a name (the API allows 256 characters); no control or invisible characters. */
const BRANCH_PATTERN = new RegExp(`^[^${UNSAFE_CHARACTER_CLASS}]{1,256}$`, 'u')
/** A user's or a bot's login. */
const GITHUB_LOGIN_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/
const ORG_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const MIN_DURATION_MS = 1000

/** Polling less often than hourly is no gate; the bound also keeps Node's timers exact. */
export const MAX_INTERVAL_MS = 60 * 60 * 1000
/** A self-hosted runner's job may run 5 days; a gate never needs longer. */
export const MAX_TIMEOUT_MS = 5 * 24 * 60 * 60 * 1000
/**
 * Each id is one request per poll: 40 is the API's per-route burst limit, and 40 requests every
 * 5 s is under 60 % of the account's 700 a minute.
 */
export const MAX_OPERATION_IDS = 40
/** What an HTTP header can carry: visible ASCII, no spaces. */
const API_KEY_PATTERN = /^[\x21-\x7e]+$/

export const INPUT_NAMES = [
  'api_key',
  'project_id',
  'operation_id',
  'branch_id',
  'list_projects',
  'org_id',
  'wait',
  'interval',
  'timeout',
  'fail_fast',
  'api_host',
  'pr_comment',
  'pr_comment_author',
  'github_token',
  'database_url'
] as const
export type InputName = (typeof INPUT_NAMES)[number]

function booleanInput(defaultValue: boolean) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim()
    if (text === '') return defaultValue
    if (['true', 'True', 'TRUE'].includes(text)) return true
    if (['false', 'False', 'FALSE'].includes(text)) return false
    ctx.addIssue({ code: 'custom', message: `"${text}" is not a boolean; use true or false` })
    return z.NEVER
  })
}

function durationInput(defaultText: string, maxMs: number, maxText: string) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim() || defaultText
    const ms = parseDuration(text)
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${text}" is not a duration; use seconds (5) or a number with a unit (5s, 90s, 1m)`
      })
      return z.NEVER
    }
    if (ms < MIN_DURATION_MS) {
      ctx.addIssue({ code: 'custom', message: `"${text}" is below the minimum of 1 second` })
      return z.NEVER
    }
    if (ms > maxMs) {
      ctx.addIssue({ code: 'custom', message: `"${text}" is above the maximum of ${maxText}` })
      return z.NEVER
    }
    return ms
  })
}

function idInput(pattern: RegExp, accepted: string) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim()
    if (text === '') return undefined
    if (!pattern.test(text)) {
      ctx.addIssue({ code: 'custom', message: `"${text}" is not valid; expected ${accepted}` })
      return z.NEVER
    }
    return text
  })
}

const operationIdsInput = z.string().transform((raw, ctx) => {
  const ids = raw
    .split(/[\s,]+/)
    .map((id) => id.toLowerCase())
    .filter((id) => id !== '')
  const invalid = ids.filter((id) => !UUID_PATTERN.test(id))
  if (invalid.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${invalid.map((id) => `"${id}"`).join(', ')} ${invalid.length === 1 ? 'is not a UUID' : 'are not UUIDs'}; give operation ids (UUIDs) separated by commas, spaces or new lines`
    })
    return z.NEVER
  }
  const unique = [...new Set(ids)]
  if (unique.length > MAX_OPERATION_IDS) {
    ctx.addIssue({
      code: 'custom',
      message: `${unique.length} operation ids given, at most ${MAX_OPERATION_IDS} are accepted (each is one request per poll against the account's shared rate limit); gate the project or branch instead (project_id, branch_id)`
    })
    return z.NEVER
  }
  return unique
})

const apiHostInput = z.string().transform((raw, ctx) => {
  const text = raw.trim() || DEFAULT_API_HOST
  const accepted = 'an absolute https:// address (http:// only for localhost, 127.x.x.x or [::1])'
  let url: URL
  try {
    url = new URL(text)
  } catch {
    const shown = /[@\s]/.test(text) ? 'the value' : `"${text}"`
    ctx.addIssue({ code: 'custom', message: `${shown} is not an address; expected ${accepted}` })
    return z.NEVER
  }
  if (url.username || url.password) {
    // Never repeat the credentials in the error.
    ctx.addIssue({ code: 'custom', message: `must not carry credentials; expected ${accepted}` })
    return z.NEVER
  }
  const loopbackHttp = url.protocol === 'http:' && isLoopbackHost(url.hostname)
  if (url.protocol !== 'https:' && !loopbackHttp) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not allowed; expected ${accepted}` })
    return z.NEVER
  }
  if (url.search || url.hash) {
    ctx.addIssue({
      code: 'custom',
      message: `must not carry a query or a fragment; expected ${accepted}`
    })
    return z.NEVER
  }
  return url.toString().replace(/\/+$/, '')
})

const InputsSchema = z
  .object({
    api_key: z
      .string()
      .transform((raw) => raw.trim())
      .refine((key) => key !== '', 'required; pass the API key secret')
      .refine(
        (key) => key === '' || API_KEY_PATTERN.test(key),
        'contains spaces, line breaks or characters an HTTP header cannot carry; pass the API key exactly as the console showed it'
      ),
    project_id: idInput(ID_PATTERN, 'a project id matching ^[a-z0-9-]{1,60}$'),
    operation_id: operationIdsInput,
    branch_id: idInput(
      BRANCH_PATTERN,
      'a branch id (br-…) or a branch name of at most 256 visible characters'
    ),
    list_projects: booleanInput(false),
    org_id: idInput(ORG_ID_PATTERN, 'an organization id such as org-example-12345678'),
    wait: booleanInput(true),
    interval: durationInput('5s', MAX_INTERVAL_MS, '1h'),
    timeout: durationInput('10m', MAX_TIMEOUT_MS, '5 days (120h)'),
    fail_fast: booleanInput(false),
    api_host: apiHostInput,
    pr_comment: z
      .string()
      .transform((raw) => raw.trim().toLowerCase() || 'off')
      .pipe(
        z.enum(['off', 'always', 'failure'], {
          error: (issue) => `"${String(issue.input)}" is not one of off, always, failure`
        })
      ),
    pr_comment_author: idInput(
      GITHUB_LOGIN_PATTERN,
      'the GitHub login the token writes as, such as my-app[bot]'
    ),
    github_token: z.string().transform((raw) => raw.trim()),
    database_url: z.string().transform((raw, ctx) => {
      if (!raw.trim()) return undefined
      const target = parseDatabaseUrl(raw.trim())
      if (typeof target !== 'string') return target
      ctx.addIssue({ code: 'custom', message: target })
      return z.NEVER
    })
  })
  .superRefine((inputs, ctx) => {
    if (inputs.operation_id.length > 0 && !inputs.project_id) {
      ctx.addIssue({
        code: 'custom',
        path: ['project_id'],
        message: 'required with operation_id; give the project the operations belong to'
      })
    }
    if (inputs.pr_comment !== 'off' && !inputs.github_token) {
      ctx.addIssue({
        code: 'custom',
        path: ['github_token'],
        message: `required with pr_comment: ${inputs.pr_comment}; its default is \${{ github.token }}`
      })
    }
    if (!inputs.project_id && !inputs.list_projects && inputs.operation_id.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['project_id'],
        message: 'required; give project_id to wait for operations, or set list_projects: true'
      })
    }
  })
  .transform((inputs) => ({
    apiKey: inputs.api_key,
    projectId: inputs.project_id,
    operationIds: inputs.operation_id,
    branchId: inputs.branch_id,
    listProjects: inputs.list_projects,
    orgId: inputs.org_id,
    wait: inputs.wait,
    intervalMs: inputs.interval,
    timeoutMs: inputs.timeout,
    failFast: inputs.fail_fast,
    apiHost: inputs.api_host,
    prComment: inputs.pr_comment,
    prCommentAuthor: inputs.pr_comment_author,
    githubToken: inputs.github_token,
    database: inputs.database_url
  }))

export type Inputs = z.output<typeof InputsSchema>

/** Inputs that are accepted but ignored in this combination, worth a warning. */
export function ignoredInputWarnings(inputs: Inputs): string[] {
  const warnings: string[] = []
  if (inputs.branchId && inputs.operationIds.length > 0) {
    warnings.push('branch_id is ignored when operation_id is given: the listed operations are used')
  }
  if (inputs.branchId && !inputs.projectId) {
    warnings.push('branch_id is ignored without project_id: there is no project gate to narrow')
  }
  if (inputs.database && !inputs.projectId) {
    warnings.push(
      'database_url is ignored without project_id: there is no gate to end with a query'
    )
  }
  if (inputs.orgId && !inputs.listProjects) {
    warnings.push('org_id is ignored unless list_projects is true')
  }
  return warnings
}

/**
 * Reads and validates every input before any request. Throws one InputError that names each bad
 * input and what it accepts.
 */
export function getInputs(readInput: (name: InputName) => string): Inputs {
  const raw = Object.fromEntries(INPUT_NAMES.map((name) => [name, readInput(name) ?? '']))
  const parsed = InputsSchema.safeParse(raw)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map(
    (issue) => `input "${String(issue.path[0])}": ${issue.message}`
  )
  throw new InputError(`Invalid input: ${problems.join('; ')}`)
}
