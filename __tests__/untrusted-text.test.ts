import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  forHtml,
  forLog,
  MAX_LOG_CHARS,
  Redactor,
  truncate,
  truncateBytes
} from '../src/domain/untrusted-text.js'
import { propertyRuns } from './support/property-runs.js'

/** HTML-escaped as an escaper that writes quotes as `quotes` does. */
function escapeHtml(text: string, quotes: Record<string, string>): string {
  const common: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' }
  return text.replace(/[&<>"']/g, (character) => quotes[character] ?? common[character])
}

describe('Redactor', () => {
  const key = `napi_k&y"<x>'/+=${'Z'.repeat(12)}`
  const redactor = new Redactor([key, `${key} ~!()*`, `${key}!()*`])

  it.each([
    ['as is', key],
    ['JSON-escaped', JSON.stringify(key).slice(1, -1)],
    [
      'HTML-escaped',
      key
        .replace(/&/g, '&amp;')
        .replace(/"/g, '&quot;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/'/g, '&#39;')
    ],
    ['URL-encoded', encodeURIComponent(key)],
    ['HTML-escaped, hex entities', escapeHtml(key, { '"': '&#x22;', "'": '&#x27;' })],
    ['HTML-escaped, &apos;', escapeHtml(key, { '"': '&quot;', "'": '&apos;' })],
    ['HTML-escaped, decimal entities', escapeHtml(key, { '"': '&#34;', "'": '&#39;' })],
    ['form-encoded', new URLSearchParams([['', `${key} ~!()*`]]).toString().slice(1)],
    [
      'RFC 3986-encoded',
      encodeURIComponent(`${key}!()*`).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16)}`
      )
    ],
    [
      '%-encoded, lower-case hex',
      encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())
    ],
    ['URI-encoded', encodeURI(key)],
    ['base64', Buffer.from(key).toString('base64')],
    ['base64url', Buffer.from(key).toString('base64url')],
    ['hex', Buffer.from(key).toString('hex')],
    ['hex in upper case', Buffer.from(key).toString('hex').toUpperCase()],
    ['in upper case', key.toUpperCase()],
    ['in lower case', key.toLowerCase()],
    ['URL-encoded in upper case', encodeURIComponent(key).toUpperCase()]
  ])('hides the secret %s', (_form, text) => {
    expect(redactor.redact(`before ${text} after`)).toBe('before *** after')
  })

  it('a short secret (under 12 characters) is hidden as written, not in every letter case', () => {
    const short = new Redactor(['pgPass1'])
    expect(short.redact('pgPass1 PGPASS1')).toBe('*** PGPASS1')
    expect(new Redactor(['pgPassword12']).redact('PGPASSWORD12')).toBe('***')
  })

  it('redacts every string of parsed JSON, keys included, before anything reads it', () => {
    const parsed = JSON.parse(
      `{"a": ["\\u006e${JSON.stringify(key).slice(2, -1)}"], "${'x'}": {"${JSON.stringify(key).slice(1, -1)}": 1}}`
    )
    expect(redactor.redactJson(parsed)).toEqual({ a: ['***'], x: { '***': 1 } })
  })

  it.each(['', 'x', 'xy', 'Bearer ', 'Authorization: Bearer ', 'token=Bearer '])(
    'hides the secret base64-encoded after %j, in base64 and base64url',
    (prefix) => {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${prefix}${key}`).toString(encoding)
        const shown = redactor.redact(encoded)
        expect(shown).toContain('***')
        // What is left decodes to no more than two bytes of the key at either end.
        expect(Buffer.from(shown.replace('***', ''), encoding).toString('latin1')).not.toContain(
          key.slice(2, -2)
        )
      }
    }
  )

  it('ignores an empty secret and keeps other text', () => {
    expect(new Redactor(['']).redact('nothing to hide')).toBe('nothing to hide')
  })

  it('a secret of 20,000 characters (a wrong file given as the key): redacted, no stack overflow (found by the property test)', () => {
    const huge = `napi_${'Qz'.repeat(10_000)}`
    const redactor = new Redactor([huge])
    expect(redactor.redact(`key ${huge}.`)).toBe('key ***.')
    expect(redactor.redact(JSON.stringify({ huge }))).toBe('{"huge":"***"}')
  })
})

describe('truncate', () => {
  it('cuts with a visible marker, never inside a surrogate pair', () => {
    expect(truncate('abcdef', 10)).toBe('abcdef')
    expect(truncate('abcdef', 3)).toBe('abc… [3 more characters]')
    expect(truncate('ab😀cd', 3)).toBe('ab… [4 more characters]')
  })

  it.each([
    ['U+10000', '\u{10000}'],
    ['U+1F600', '\u{1F600}'],
    ['U+10FC00', '\u{10FC00}'],
    ['U+10FFFF', '\u{10FFFF}']
  ])(
    'a cut right after the first half of %s (high surrogates reach 0xDBFF) keeps the character whole or not at all',
    (_name, character) => {
      expect(truncate(`ab${character}cd`, 3)).toBe('ab… [4 more characters]')
      expect(truncate(`ab${character}cd`, 4)).toBe(`ab${character}… [2 more characters]`)
    }
  )

  // UTF-16 units: characters of the BMP on both sides of the surrogates, and pairs whose high
  // surrogate reaches both ends of 0xD800–0xDBFF, often.
  const bmp = fc.oneof(
    fc.constantFrom('a', '\ud7ff', '\ue000', '\uffff'),
    fc.string({ minLength: 1, maxLength: 1 })
  )
  const pair = fc
    .tuple(
      fc.oneof(fc.constantFrom(0xd800, 0xdbff), fc.integer({ min: 0xd800, max: 0xdbff })),
      fc.integer({ min: 0xdc00, max: 0xdfff })
    )
    .map(([high, low]) => String.fromCharCode(high, low))
  const text = fc
    .array(fc.oneof(bmp, pair), { minLength: 1, maxLength: 12 })
    .map((parts) => parts.join(''))

  it('never leaves half a surrogate pair, wherever the cut falls (fast-check)', () => {
    fc.assert(
      fc.property(text, fc.nat(), (whole, at) => {
        const maxChars = 1 + (at % whole.length)
        const cut = truncate(whole, maxChars)
        const kept = cut.replace(/… \[\d+ more characters\]$/, '')
        expect(/\p{Cs}/u.test(cut)).toBe(false)
        expect(whole.startsWith(kept)).toBe(true)
        expect(kept.length).toBeLessThanOrEqual(maxChars)
      }),
      propertyRuns(0x5a11a7e, 500)
    )
  })
})

describe('forLog', () => {
  it('no line break, carriage return, ANSI escape or direction mark survives', () => {
    const text = 'a\n::set-output name=x::y\r::add-mask::z\u001b[31m\u202e\u2028\u0085\u0000'
    const line = forLog(text)
    expect(line).toBe(
      'a\\n::set-output name=x::y\\r::add-mask::z\\u001b[31m\\u202e\\u2028\\u0085\\u0000'
    )
    const codes = [...line].map((character) => character.charCodeAt(0))
    expect(codes.filter((code) => code < 0x20 || (code >= 0x7f && code <= 0x9f))).toEqual([])
  })

  it('cuts long text', () => {
    expect(forLog('x'.repeat(MAX_LOG_CHARS + 10))).toMatch(/… \[10 more characters\]$/)
  })

  it.each([
    ['##[set-output name=outcome;]success', '##\\u005bset-output name=outcome;]success'],
    ['a ###[warning]x', 'a ###\\u005bwarning]x'],
    ['##[##[add-mask]k', '##\\u005b##\\u005badd-mask]k'],
    ['#\u0000#[x]', '#\\u0000#[x]'],
    ['# #[ and [##] stay', '# #[ and [##] stay']
  ])('leaves no ##[ anywhere in the line (the runner’s older syntax): %j', (text, shown) => {
    expect(forLog(text)).toBe(shown)
    expect(forLog(text)).not.toContain('##[')
  })
})

describe('forHtml', () => {
  it('escapes entities and removes every line break, a lone \\r included', () => {
    expect(forHtml(`<img src=x onerror="alert('1')"> & co\nnext`, 100)).toBe(
      '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co next'
    )
    expect(forHtml('cell\r# Heading\r\r[link](https://evil.example)', 100)).toBe(
      'cell # Heading  [link](https://evil.example)'
    )
    expect(forHtml('a\u2028b\u2029c\u000bd', 100)).toBe('a b c d')
  })

  it('cuts before escaping, so the escaped text stays bounded', () => {
    expect(forHtml('<'.repeat(1000), 10)).toBe(`${'&lt;'.repeat(10)}… [990 more characters]`)
  })
})

describe('invisible characters and byte limits', () => {
  it('escapes Unicode format characters in the log and drops them from HTML', () => {
    const text = 'finished\u2060\u200b\ufeff\u{e0041}\u00ad'
    expect(forLog(text)).toBe('finished\\u2060\\u200b\\ufeff\\u{e0041}\\u00ad')
    expect(forHtml(text, 100)).toBe('finished     ')
  })

  it('cuts to UTF-8 bytes, never inside a character', () => {
    expect(truncateBytes('abc', 3)).toBe('abc')
    const cut = truncateBytes('漢'.repeat(100), 40)
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(40)
    expect(cut).toMatch(/^漢+… \[cut\]$/)
  })
})
