/*
 * How each input of the gate is read from its text: booleans, durations, ids, operation ids and the
 * API's address, each with what it accepts and its default.
 */
import { z } from 'zod'
import { parseDuration } from './duration.js'
import { isLoopbackHost } from './loopback.js'
import { UNSAFE_CHARACTER_CLASS } from './untrusted-text.js'

/** The API's address when none is given. */
export const DEFAULT_API_HOST = 'https://console.neon.tech/api/v2'
const DEFAULT_TIMEOUT = '10m'
export const ID_PATTERN = /^[a-z0-9-]{1,60}$/
/** A branch id, or a name (the API allows 256 characters); no control or invisible characters. */
export const BRANCH_PATTERN = new RegExp(`^[^${UNSAFE_CHARACTER_CLASS}]{1,256}$`, 'u')
export const ORG_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/
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
/** A key stored with its quotes (`"napi_…"`, `'napi_…'`): a quote never starts or ends a key. */
const QUOTED_KEY = /^["'`]|["'`]$/
/** Neon's keys are under 100 characters; a value of over a kilobyte is a wrong file or variable. */
const MAX_API_KEY_CHARS = 1024

/** The API key: required, as the console showed it (no quotes, nothing a header cannot carry). */
export const apiKeyInput = z
  .string()
  .transform((raw) => raw.trim())
  .refine((key) => key !== '', 'required; pass the API key secret')
  .refine(
    (key) => !QUOTED_KEY.test(key),
    'is wrapped in quotes, which are not part of an API key (a secret stored as "napi_…" or \'napi_…\'); store the key without them'
  )
  .refine(
    (key) => key === '' || API_KEY_PATTERN.test(key),
    'contains spaces, line breaks or characters an HTTP header cannot carry; pass the API key exactly as the console showed it'
  )
  .refine(
    (key) => key.length <= MAX_API_KEY_CHARS,
    `is longer than ${MAX_API_KEY_CHARS} characters, which no API key is: a wrong file or variable?`
  )

export function booleanInput(defaultValue: boolean) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim()
    if (text === '') return defaultValue
    if (['true', 'True', 'TRUE'].includes(text)) return true
    if (['false', 'False', 'FALSE'].includes(text)) return false
    ctx.addIssue({ code: 'custom', message: `"${text}" is not a boolean; use true or false` })
    return z.NEVER
  })
}

/** How a problem shows the value it is about: quoted as given, or not at all (`the value`). */
export type ShowValue = (text: string) => string
export const quotedAsGiven: ShowValue = (text) => `"${text}"`

export function durationInput(
  defaultText: string,
  maxMs: number,
  maxText: string,
  show: ShowValue = quotedAsGiven
) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim() || defaultText
    const ms = parseDuration(text)
    if (ms === undefined) {
      const negative = text.startsWith('-') && parseDuration(text.slice(1)) !== undefined
      ctx.addIssue({
        code: 'custom',
        message: negative
          ? `${show(text)} is negative; a duration is at least 1 second`
          : `${show(text)} is not a duration; use seconds (5) or a number with a unit (5s, 90s, 1m)`
      })
      return z.NEVER
    }
    if (ms < MIN_DURATION_MS) {
      ctx.addIssue({ code: 'custom', message: `${show(text)} is below the minimum of 1 second` })
      return z.NEVER
    }
    if (ms > maxMs) {
      ctx.addIssue({ code: 'custom', message: `${show(text)} is above the maximum of ${maxText}` })
      return z.NEVER
    }
    return ms
  })
}

/** `timeout`: its problems show the value with `show` (the command reads it before its secrets). */
export const timeoutInput = (show: ShowValue) =>
  durationInput(DEFAULT_TIMEOUT, MAX_TIMEOUT_MS, '5 days (120h)', show)

export function idInput(pattern: RegExp, accepted: string) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim()
    if (raw === '') return undefined
    // White space alone is no value, and never "not given", which would gate something else.
    if (text === '') {
      ctx.addIssue({
        code: 'custom',
        message: 'holds only white space: an unset value? Give one, or leave it empty'
      })
      return z.NEVER
    }
    if (!pattern.test(text)) {
      ctx.addIssue({ code: 'custom', message: `"${text}" is not valid; expected ${accepted}` })
      return z.NEVER
    }
    return text
  })
}

/** Unicode's white space, and the byte-order mark a file or an editor can leave. */
const WHITE_SPACE_ALONE = /^[\p{White_Space}\uFEFF]+$/u

/**
 * An input that is either not given (`undefined`: the runner passed none, or action.yml's default
 * stood for it) or given: then `field` reads it. Given as '' or white space alone, it is an input
 * error, never "not given": an expression that came out empty would otherwise run another gate.
 * `leftOut`: what leaving the input out does, for the message.
 */
export function refusingEmpty<T>(field: z.ZodType<T, string>, leftOut: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T | undefined => {
      if (raw === undefined) return undefined
      if (raw === '' || WHITE_SPACE_ALONE.test(raw)) {
        ctx.addIssue({
          code: 'custom',
          message: `${raw === '' ? 'is empty' : 'holds only white space'}, what an expression gives for an unset variable or a step output that does not exist; give a value, or ${leftOut}`
        })
        return z.NEVER
      }
      const parsed = field.safeParse(raw)
      if (parsed.success) return parsed.data
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: 'custom', message: issue.message })
      return z.NEVER
    })
}

/**
 * `itself`: the input as the front end names it in a sentence; `gateInstead`: the inputs that gate
 * a project or a branch, named so too.
 */
export function operationIdsInput(itself: string, gateInstead: string) {
  return z.string().transform((raw, ctx) => {
    const given = raw.split(/[\s,]+/).filter((id) => id !== '')
    // Separators alone (`,`: two unset step outputs joined) name no operation: never "not given",
    // which would be the project gate in their place. Only an empty value is not given.
    if (given.length === 0 && raw !== '') {
      ctx.addIssue({
        code: 'custom',
        message: `holds no operation id, only separators (commas, spaces or new lines): an unset step output? Give operation ids (UUIDs), or leave ${itself} out to gate the project or a branch (${gateInstead})`
      })
      return z.NEVER
    }
    // An empty part (`a,`: a step output that came out empty, joined) may be the operation that
    // failed: never dropped without a word.
    if (raw.split(',').some((part) => part.trim() === '')) {
      ctx.addIssue({
        code: 'custom',
        message: `has an empty part between commas ("a,", ",a" or "a,,b"): an unset step output? Its operation may be the one that failed; give every id, or drop the comma`
      })
      return z.NEVER
    }
    // Checked in lower case, quoted as given: a value folded in case would slip past the redactor.
    const invalid = given.filter((id) => !UUID_PATTERN.test(id.toLowerCase()))
    if (invalid.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${invalid.map((id) => `"${id}"`).join(', ')} ${invalid.length === 1 ? 'is not a UUID' : 'are not UUIDs'}; give operation ids (UUIDs) separated by commas, spaces or new lines`
      })
      return z.NEVER
    }
    const unique = [...new Set(given.map((id) => id.toLowerCase()))]
    if (unique.length > MAX_OPERATION_IDS) {
      ctx.addIssue({
        code: 'custom',
        message: `${unique.length} operation ids given, at most ${MAX_OPERATION_IDS} are accepted (each is one request per poll against the account's shared rate limit); gate the project or branch instead (${gateInstead})`
      })
      return z.NEVER
    }
    return unique
  })
}

export const apiHostInput = z.string().transform((raw, ctx) => {
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
  // Credentials, even empty ones (`https://@host`), are never repeated in the error.
  if (url.username || url.password || /^[^:/?#]+:\/\/[^/?#]*@/.test(text)) {
    ctx.addIssue({ code: 'custom', message: `must not carry credentials; expected ${accepted}` })
    return z.NEVER
  }
  const loopbackHttp = url.protocol === 'http:' && isLoopbackHost(url.hostname)
  if (url.protocol !== 'https:' && !loopbackHttp) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not allowed; expected ${accepted}` })
    return z.NEVER
  }
  // An empty query or fragment (a trailing `?` or `#`) is none to URL, but every path appended
  // to the address would go after it: `/api/v2?/projects/…`, or to `/api/v2` itself.
  if (/[?#]/.test(text)) {
    ctx.addIssue({
      code: 'custom',
      message: `must not carry a query or a fragment (?, #): every request would go to the wrong path; expected ${accepted}`
    })
    return z.NEVER
  }
  return url.toString().replace(/\/+$/, '')
})
