/*
 * Everything the server sends is untrusted. This module is the one place that makes such text safe
 * for each sink: the log (workflow commands, ANSI escapes, direction marks), the job summary (HTML
 * inside Markdown) and the size limits of every sink. Secrets are redacted first, in every encoding
 * they could travel in, before any escaping.
 */

const REDACTED = '***'

/** Hides secrets in any text, in the forms an escaper or encoder could have turned them into. */
export class Redactor {
  private forms: string[] = []

  constructor(secrets: string[] = []) {
    for (const secret of secrets) this.add(secret)
  }

  add(secret: string): void {
    if (!secret) return
    const candidates = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      escapeHtmlEntities(secret),
      encodeURIComponent(secret),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64').replace(/=+$/, ''),
      Buffer.from(secret).toString('base64url')
    ]
    this.forms = [...new Set([...this.forms, ...candidates])]
      .filter((form) => form.length >= 4)
      .sort((a, b) => b.length - a.length)
  }

  redact(text: string): string {
    let result = text
    for (const form of this.forms) result = result.split(form).join(REDACTED)
    return result
  }

  /** Redacts every string inside parsed JSON (keys included), before anything else reads it. */
  redactJson(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value)
    if (Array.isArray(value)) return value.map((item) => this.redactJson(item))
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [this.redact(key), this.redactJson(item)])
      )
    }
    return value
  }
}

/** Cuts text to `maxChars`, saying visibly how much was cut. */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  let end = maxChars
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end-- // never split a surrogate pair
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}

/**
 * C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the bidirectional
 * formatting marks that make text read differently from what it is.
 */
const UNSAFE_CHARACTERS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function visibleEscape(character: string): string {
  return NAMED_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/** Longest log line the action writes; API text beyond it is cut with a marker. */
export const MAX_LOG_CHARS = 4000

/**
 * For a line of the job log: no new line, carriage return or other control character survives
 * (each becomes a visible escape such as `\n`), so API text can never start a line of its own and
 * be read by the runner as a workflow command (`::set-output`, `::add-mask::`, `::stop-commands::`).
 */
export function forLog(text: string): string {
  return truncate(text, MAX_LOG_CHARS).replace(UNSAFE_CHARACTERS, visibleEscape)
}

function escapeHtmlEntities(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/@/g, '&#64;')
}

/**
 * For the job summary and the pull-request comment, which are HTML inside Markdown: entities escaped
 * (`@` too, so API text cannot mention and notify people in a comment), and every line break
 * (`\n`, a lone `\r`, U+2028) and control character removed, because a line break could end the
 * HTML block and let the rest be read as Markdown (a heading, a link, an image).
 */
export function forHtml(text: string, maxChars: number): string {
  return escapeHtmlEntities(truncate(text, maxChars)).replace(UNSAFE_CHARACTERS, ' ')
}
