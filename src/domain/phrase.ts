/*
 * Phrases: our own words and the API's text kept apart, so that one sentence can be told as HTML
 * (the summary, the comment: API text escaped) and as plain text (the log and the error line, made
 * safe by the log). The wait and the report both word things with them; they import nothing above.
 */
import type { Branch } from './schemas.js'
import { forHtml, truncate } from './untrusted-text.js'

/** Our own words (strings), an identifier of the API's (`code`) and a message of the API's. */
export type Phrase = (string | { code: string } | { quote: string })[]

const MAX_CODE_CHARS = 80
const MAX_QUOTE_CHARS = 300

/** `1 operation`, `2 operations`: the noun follows the count. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

/** A phrase with our words as they are and the API's text as `code` and `quote` make it. */
function render(
  phrase: Phrase,
  code: (text: string) => string,
  quote: (text: string) => string
): string {
  return phrase
    .map((part) =>
      typeof part === 'string' ? part : 'code' in part ? code(part.code) : quote(part.quote)
    )
    .join('')
}

export function phraseHtml(phrase: Phrase): string {
  return render(
    phrase,
    (text) => `<code>${forHtml(text, MAX_CODE_CHARS)}</code>`,
    (text) => `“${forHtml(text, MAX_QUOTE_CHARS)}”`
  )
}

export function phraseText(phrase: Phrase): string {
  return render(
    phrase,
    (text) => truncate(text, MAX_CODE_CHARS),
    (text) => `"${truncate(text, MAX_QUOTE_CHARS)}"`
  )
}

/**
 * `init`, or `ready, then resetting` when a change of state is pending; `no current_state` when the
 * API states none (such a branch is waited on, as an unknown state is).
 */
export function branchStatePhrase(branch: Branch): Phrase {
  return [
    branch.current_state == null ? 'no current_state' : { code: branch.current_state },
    ...(branch.pending_state ? [', then ', { code: branch.pending_state }] : [])
  ]
}

/** The phrase as the start of a sentence. */
export function capitalized(phrase: Phrase): Phrase {
  const [first, ...rest] = phrase
  return typeof first === 'string'
    ? [first.charAt(0).toUpperCase() + first.slice(1), ...rest]
    : phrase
}
