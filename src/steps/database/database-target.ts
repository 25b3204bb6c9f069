/*
 * The database the gate ends on: where `database_url` points, what counts as an answer, and what
 * each way a connection or a query can fail means for a gate (retried, the role refused, or an
 * answer that no wait will change).
 */
import { isLoopbackHost } from '../../domain/loopback.js'
import { type Phrase, plural } from '../../domain/phrase.js'

/** Where to connect, as `database_url` says; the password never leaves this object but to the driver. */
export interface DatabaseTarget {
  host: string
  port: number
  database: string
  user: string
  password: string
  /** TLS with the certificate verified against `host` (SNI included), or none (loopback only). */
  tls: boolean
}

/**
 * `ready`: a query answered; `unreachable`: no Postgres answer at all; `refused`: the server refused
 * the role or password; `error`: any other answer of the server or the TLS layer.
 */
export type DatabaseState = 'ready' | 'unreachable' | 'refused' | 'error'

/** What a gate does with a failed attempt: try again, try again for a grace, or stop. */
type Retry = 'retry' | 'grace' | 'stop'

export interface DatabaseFailure {
  state: Exclude<DatabaseState, 'ready'>
  retry: Retry
  /** The SQLSTATE, or the error code of the network or TLS layer. */
  code?: string
  message: string
  /** What `SELECT 1` answered instead of 1, when that is the failure. */
  answer?: Phrase
}

const ACCEPTED = 'a Postgres connection string, postgresql://role:password@host/database'

/**
 * A variable that a shell, a CI system or a template left as text: at the start, where no URL has
 * a `$` or a `%` (`$DATABASE_URL`, `%DATABASE_URL%`, `$env:DATABASE_URL`, `{{ .Url }}`), or braced
 * anywhere (`${PGPASSWORD}`, `$(PGHOST)`, `${{ secrets.URL }}`, `$[[ inputs.url ]]`). A password's
 * own `$` followed by a word stands; its `${` is written `%24{`.
 */
const UNEXPANDED_VARIABLE = /^(?:\$|%\w+%|\{\{)|\$[{([]/u

/**
 * The target of a connection string, or why it is not one (never repeating the string, which holds
 * a password). `sslmode=disable` is allowed only to a loopback host; every other mode, and none,
 * means TLS with the certificate verified.
 */
export function parseDatabaseUrl(text: string): DatabaseTarget | string {
  if (UNEXPANDED_VARIABLE.test(text)) {
    return 'is a variable that was not expanded ($NAME, ${NAME}, $(NAME), %NAME% or an expression left as text), not a connection string; give the URL itself, or a variable the shell or the CI system expands (a $ in a password is written %24)'
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return `is not a URL; expected ${ACCEPTED}`
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    return `is not a Postgres connection string (postgresql:// or postgres://); expected ${ACCEPTED}`
  }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (!host) return `names no host; expected ${ACCEPTED}`
  let user: string
  let password: string
  let database: string
  try {
    user = decodeURIComponent(url.username)
    password = decodeURIComponent(url.password)
    database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user
  } catch {
    return `holds a % that is not percent-encoding (write % as %25); expected ${ACCEPTED}`
  }
  if (!user) return `names no role; expected ${ACCEPTED}`
  const sslmode = url.searchParams.get('sslmode')
  const tls = sslmode !== 'disable'
  if (!tls && !isLoopbackHost(url.hostname)) {
    return `sslmode=disable is allowed only to a loopback host (localhost, 127.x.x.x, [::1]); a connection to ${host} must use TLS`
  }
  return { host, port: Number(url.port) || 5432, database, user, password, tls }
}

/** The secrets of a connection string: itself, and its password as written and decoded. */
export function databaseSecrets(text: string): string[] {
  const secrets = [text]
  try {
    const { password } = new URL(text)
    secrets.push(password, decodeURIComponent(password))
  } catch {
    // Not a URL: the input error says so, and the whole text is masked.
  }
  return secrets.filter(Boolean)
}

/** What `SELECT 1` came back with: each result set's rows, each row its values in order. */
export interface QueryAnswer {
  results: { rows: unknown[][]; command: string | null }[]
}

/**
 * What `SELECT 1` came back with when it is not one row holding 1 (as a number, or as the text
 * "1"); undefined when it is. Only that answer means the database is ready.
 */
export function wrongAnswer({ results }: QueryAnswer): Phrase | undefined {
  if (results.length !== 1) return [plural(results.length, 'result set')]
  const [{ rows, command }] = results
  if (rows.length === 0) return [command === null ? 'an empty query response' : 'no row']
  if (rows.length > 1) return [plural(rows.length, 'row')]
  const [row] = rows
  if (row.length !== 1) return [`a row of ${plural(row.length, 'value')}`]
  const [value] = row
  if (value === 1 || value === '1') return undefined
  if (value === null) return ['NULL']
  return [{ quote: typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)) }]
}

/** Neon's proxy answers most of its own errors as XX000: its messages say what happened. */
const PROXY_MESSAGES: [RegExp, Retry][] = [
  [/couldn't connect to compute node/i, 'retry'],
  [/exceeded the compute time quota/i, 'stop'],
  [/endpoint id is not specified/i, 'stop'],
  [/endpoint (?:has been|is) disabled/i, 'stop']
]

/** Errors of the network: no Postgres answer at all; tried again, but for a name that is none. */
const NETWORK_CODES: Record<string, Retry> = {
  ECONNREFUSED: 'retry',
  ECONNRESET: 'retry',
  ETIMEDOUT: 'retry',
  EPIPE: 'retry',
  EHOSTUNREACH: 'retry',
  ENETUNREACH: 'retry',
  EAI_AGAIN: 'retry',
  ENOTFOUND: 'stop'
}

/** Messages of the driver for a connection that ended before Postgres answered. */
const CLOSED_EARLY = /connection terminated|timeout expired|connection timeout|no answer within/i

/**
 * What a failed attempt means, decided by SQLSTATE and error class (docs/troubleshooting.md has the
 * table): retried within `timeout`, the role or password retried for a grace, or a failure at once.
 */
export function classifyDatabaseError(error: {
  code?: unknown
  message?: unknown
}): DatabaseFailure {
  const code = typeof error.code === 'string' ? error.code : undefined
  const message = typeof error.message === 'string' ? error.message : String(error)
  const proxy = PROXY_MESSAGES.find(([pattern]) => pattern.test(message))
  if (proxy)
    return { state: proxy[1] === 'retry' ? 'unreachable' : 'error', retry: proxy[1], code, message }
  if (code === '28P01' || code === '28000')
    return { state: 'refused', retry: 'grace', code, message }
  if (code && /^[0-9A-Z]{5}$/.test(code)) {
    const busy = code === '57P03' || code === '53300' || code.startsWith('08')
    return { state: 'error', retry: busy ? 'retry' : 'stop', code, message }
  }
  if (code && code in NETWORK_CODES) {
    return { state: 'unreachable', retry: NETWORK_CODES[code], code, message }
  }
  if (!code && CLOSED_EARLY.test(message)) return { state: 'unreachable', retry: 'retry', message }
  // TLS refused or a certificate that does not match: no wait changes that.
  return { state: 'error', retry: 'stop', code, message }
}
