/*
 * Neon's OpenAPI document as the test servers' contracts read it (support/neon/contract.ts): the
 * parsed copy kept between test files is the document, named by its text, and a copy cut short is
 * never read as the document.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync } from 'node:fs'
import YAML from 'yaml'
import { NEON_DOCUMENT, neonDocument, parsedCopyOf } from '../support/neon/contract.ts'

const text = readFileSync(NEON_DOCUMENT, 'utf8')

describe("Neon's OpenAPI document, parsed once and kept", () => {
  it('is the document, and its copy holds it whole', () => {
    const parsed: unknown = YAML.parse(text)
    expect(neonDocument()).toEqual(parsed)
    expect(JSON.parse(readFileSync(parsedCopyOf(text), 'utf8'))).toEqual(parsed)
  })

  it('a copy cut short is parsed again and replaced, never read', () => {
    const whole = readFileSync(parsedCopyOf(text), 'utf8')
    writeFileSync(parsedCopyOf(text), whole.slice(0, whole.length / 2))
    expect(neonDocument()).toEqual(JSON.parse(whole))
    expect(readFileSync(parsedCopyOf(text), 'utf8')).toBe(whole)
  })

  it('another text, even by a space, is another copy', () => {
    expect(parsedCopyOf(`${text} `)).not.toBe(parsedCopyOf(text))
    expect(parsedCopyOf(text)).toBe(parsedCopyOf(text))
  })
})
