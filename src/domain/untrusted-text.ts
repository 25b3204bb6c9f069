/*
 * Everything the server sends is untrusted. This module is the one place that makes such text safe
 * for each sink: the log (workflow commands, ANSI escapes, direction marks), the job summary (HTML
 * inside Markdown) and the size limits of every sink. Secrets are redacted first, in every encoding
 * they could travel in, before any escaping.
 */

const REDACTED = '***'

/** The longest secret that is also matched in every percent-encoding (percentPattern). */
const MAX_PATTERN_CHARS = 1024

/** A secret at least this long is hidden in any letter case as well. */
const MIN_CASELESS_CHARS = 12

/** Hides secrets in any text, in the forms an escaper or encoder could have turned them into. */
export class Redactor {
  private forms: string[] = []
  private patterns: { length: number; pattern: RegExp }[] = []

  constructor(secrets: string[] = []) {
    for (const secret of secrets) this.add(secret)
  }

  add(secret: string): void {
    if (!secret) return
    // V8 cannot compile the pattern of a secret of some thousands of characters (a stack overflow
    // at the first redaction); one that long is no key, and keeps its other forms.
    if (secret.length >= 4 && secret.length <= MAX_PATTERN_CHARS) {
      this.patterns.push({ length: secret.length, pattern: percentPattern(secret) })
      // In any letter case too, once a secret is long enough that no word of ours is one: a key
      // echoed in upper case is the key.
      if (secret.length >= MIN_CASELESS_CHARS) {
        this.patterns.push({ length: secret.length, pattern: percentPattern(secret, 'gi') })
      }
      // A secret that holds another is hidden whole first.
      this.patterns.sort((a, b) => b.length - a.length)
    }
    const candidates = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      escapeHtmlEntities(secret),
      Buffer.from(secret).toString('hex'),
      Buffer.from(secret).toString('hex').toUpperCase(),
      ...htmlEntityForms(secret),
      ...[secret, `Bearer ${secret}`, `Authorization: Bearer ${secret}`].flatMap(base64Forms)
    ]
    this.forms = [...new Set([...this.forms, ...candidates])]
      .filter((form) => form.length >= 4)
      .sort((a, b) => b.length - a.length)
  }

  redact(text: string): string {
    let result = text
    for (const { pattern } of this.patterns) result = result.replace(pattern, REDACTED)
    // Most text holds no form: a look copies nothing, where a split and join copies the text.
    for (const form of this.forms) {
      if (result.includes(form)) result = result.split(form).join(REDACTED)
    }
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

/**
 * The secret as the common HTML escapers write it: `&quot;` or `&#34;` or `&#x22;`, `&#39;` or
 * `&#x27;` or `&apos;`, `&amp;`, `&lt;`, `&gt;`, and the same with `@` left as it is.
 */
function htmlEntityForms(secret: string): string[] {
  const styles: Record<string, string>[] = [
    { '"': '&quot;', "'": '&#39;' },
    { '"': '&quot;', "'": '&#x27;' },
    { '"': '&#34;', "'": '&#39;' },
    { '"': '&#x22;', "'": '&#x27;' },
    { '"': '&quot;', "'": '&apos;' }
  ]
  const common: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' }
  return styles.map((style) =>
    secret.replace(/[&<>"']/g, (character) => style[character] ?? common[character])
  )
}

/**
 * Every percent-encoding of the secret at once: each character as it is or as its UTF-8 bytes in
 * `%XX` escapes with hex digits of either case, a space also as `+`. That covers
 * `encodeURIComponent`, `encodeURI`, RFC 3986 escapers (`!'()*` too), form encoding and lower-case
 * escapers, and any mix of them.
 */
function percentPattern(secret: string, flags = 'g'): RegExp {
  const characters = [...secret].map((character) => {
    const escapes = [...Buffer.from(character)]
      .map((byte) => {
        const hex = byte.toString(16).padStart(2, '0')
        return `%[${hex[0]}${hex[0].toUpperCase()}][${hex[1]}${hex[1].toUpperCase()}]`
      })
      .join('')
    const literal = character.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
    return `(?:${literal}|${escapes}${character === ' ' ? '|\\+' : ''})`
  })
  return new RegExp(characters.join(''), flags)
}

/**
 * The base64 and base64url text of `secret` wherever it stands in an encoded stream: base64 encodes
 * 3 bytes at a time, so a secret after 1 or 2 other bytes (`Bearer ` is 7) comes out as other
 * characters. For each of the three alignments, the characters that encode only the secret's own
 * bytes; at most 2 bytes at either end stay visible, never enough to use the key.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret)
  const forms: string[] = []
  for (const skip of [0, 1, 2]) {
    const aligned = bytes.subarray(skip)
    const whole = aligned.subarray(0, aligned.length - (aligned.length % 3))
    forms.push(whole.toString('base64'), whole.toString('base64url'))
  }
  // Encoded alone, with its padding.
  forms.push(bytes.toString('base64'), bytes.toString('base64url'))
  return forms
}

/** Cuts text to `maxChars`, saying visibly how much was cut. */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  let end = maxChars
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end-- // never split a surrogate pair
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}

/** What ends text that truncateBytes cut. */
export const CUT_MARKER = '… [cut]'

/** Cuts text to at most `maxBytes` of UTF-8, never inside a character, with a visible marker. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text
  const kept = Buffer.from(text)
    .subarray(0, Math.max(0, maxBytes - Buffer.byteLength(CUT_MARKER)))
    .toString('utf8')
    .replace(/\uFFFD$/, '')
  return kept + CUT_MARKER
}

/**
 * Control characters (C0, C1, DEL), the line and paragraph separators, and every Unicode format
 * character (category Cf): the bidirectional marks that make text read differently from what it is,
 * zero-width characters, the word joiner, the BOM and the tag characters (U+E0000–E007F), which let
 * `finished\u2060` look like `finished`. The body of a RegExp character class, which input rules
 * use to refuse what the log would escape.
 */
export const UNSAFE_CHARACTER_CLASS = '\\p{Cc}\\p{Cf}\\u2028\\u2029'
const UNSAFE_CHARACTERS = new RegExp(`[${UNSAFE_CHARACTER_CLASS}]`, 'gu')

const NAMED_ESCAPES = new Map([
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t']
])

function visibleEscape(character: string): string {
  const code = character.codePointAt(0)!
  return (
    NAMED_ESCAPES.get(character) ??
    (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`)
  )
}

/** Longest log line the action writes; API text beyond it is cut with a marker. */
export const MAX_LOG_CHARS = 4000

/**
 * The runner's older command syntax, `##[name key=value;]data`, runs wherever `##[` stands in a
 * line (actions/runner looks for it with IndexOf, on every line the `::` syntax did not claim).
 */
const LEGACY_COMMAND = /##\[/g
/** `##[` shown as `##\u005b`: what remains has no `[` after `##`, and no replacement adds one. */
const LEGACY_COMMAND_ESCAPE = '##\\u005b'

/**
 * For a line of the job log: no new line, carriage return or other control character survives
 * (each becomes a visible escape such as `\n`), so API text can never start a line of its own and
 * be read by the runner as a workflow command (`::set-output`, `::add-mask::`, `::stop-commands::`);
 * and no `##[` survives anywhere in the line, so it cannot be read as one in the older syntax
 * (`##[set-output name=outcome;]success`) either.
 */
export function forLog(text: string): string {
  return truncate(text, MAX_LOG_CHARS)
    .replace(UNSAFE_CHARACTERS, visibleEscape)
    .replace(LEGACY_COMMAND, LEGACY_COMMAND_ESCAPE)
}

/**
 * A line that the runner would read as a workflow command (`::name::`) once it has trimmed the
 * white space before it, Unicode's included (no-break, ideographic and other spaces).
 */
const COMMAND_LINE = /^([^\S\n]*):/gm

/**
 * For text of many lines that we put together from lines made with forLog (the command's report on
 * standard output, which a GitHub Actions step shows as its log): a line that API text begins, or
 * that only white space stands before, cannot start with `::` either; its first `:` is shown
 * escaped.
 */
export function forLogLines(text: string): string {
  return text.replace(COMMAND_LINE, (match, spaces: string, offset: number) =>
    text.startsWith('::', offset + spaces.length) ? `${spaces}\\u003a` : match
  )
}

/**
 * `value` as JSON on one line that a terminal or a CI log shows as it is: every control or format
 * character (JSON.stringify leaves DEL, C1 and Cf as they are) and every `##[` written as a `\u`
 * escape, which JSON reads back as the same value.
 */
export function forJsonLine(value: unknown): string {
  const escape = (text: string): string =>
    [...Array(text.length).keys()]
      .map((index) => `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`)
      .join('')
  return JSON.stringify(value)
    .replace(UNSAFE_CHARACTERS, escape)
    .replace(LEGACY_COMMAND, `##${escape('[')}`)
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
