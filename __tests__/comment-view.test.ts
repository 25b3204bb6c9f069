/*
 * The sticky comment's view (comment-view.ts) through its exported functions: the details it
 * shows (within their budget, else the worst's line headed as a summary is), when a comment read
 * holds a view, what a body reads back as (and what is no view), the table, and how the table and
 * the data keep to their budget (lines cut, then the least severe left out).
 */
import { describe, expect, it } from '@jest/globals'
import { truncate } from '../src/domain/untrusted-text.js'
import { type LegRecord, recordContext } from '../src/runner/comment-records.js'
import {
  DETAILS_BUDGET_BYTES,
  holds,
  readView,
  renderView,
  showsOf,
  type View,
  viewOf
} from '../src/runner/comment-view.js'
import { GATE, MARKER } from './support/github/comment-fixtures.js'

const DETAILS_END = '<!-- neon-operations-gate-details-end -->'
/** What the table and the data of a body may take, in UTF-8 bytes (docs: RESULTS_BUDGET_BYTES). */
const RESULTS_BUDGET = 18_000
const FOOTER = '<sub>footer</sub>\n'

/** Result `id` of a leg not told apart, green, of run 9's first attempt. */
function result(id: number, fields: Partial<LegRecord> = {}): LegRecord {
  return {
    key: `s${id}`,
    leg: recordContext(GATE, `u-9-1-leg${id}`),
    told: false,
    run: 9,
    attempt: 1,
    outcome: 'success',
    line: `✅ success: leg ${id}`,
    ...fields
  }
}

const viewWith = (results: LegRecord[], details = '<p>details</p>\n'): View => ({
  run: 9,
  shown: results[0].key,
  detailed: true,
  results,
  details
})

/** What follows the details in a body: the table, the footer and the data. */
const afterDetails = (body: string) =>
  body.slice(body.indexOf(`\n${DETAILS_END}\n`) + DETAILS_END.length + 2)
const lastLine = (body: string) => body.slice(body.lastIndexOf('\n') + 1)
const rowsOf = (body: string) => body.match(/<tr><td>\d+<\/td>/g)?.length ?? 0

describe('the details a view shows', () => {
  it('its own leg’s details up to their budget exactly; a byte more and its line stands in', () => {
    const worst = result(1, { outcome: 'failure', line: '❌ failure: 2 operations failed' })
    const own = (details: string) => viewOf([worst], { key: worst.key, details }, [])
    const atBudget = 'x'.repeat(DETAILS_BUDGET_BYTES)
    expect(own(atBudget)).toMatchObject({ detailed: true, details: atBudget })
    expect(own(`${atBudget}x`)).toMatchObject({
      detailed: false,
      details:
        "<h2>Neon operations gate</h2>\n<p><b>❌ failure</b>: 2 operations failed</p>\n<p>Its details are in the summary of its leg's job.</p>\n"
    })
  })

  it('a line that does not start with an icon and an outcome is the headline whole', () => {
    const details = (line: string) =>
      viewOf([result(1, { line })], { key: 'x', details: '' }, []).details
    expect(details('gate crashed')).toContain('<p><b>gate crashed</b></p>')
    // "job failed: …" further on is no headline: the line starts with "❌ job failed".
    expect(details('❌ job failed: see the log')).toContain(
      '<p><b>❌ job failed: see the log</b></p>'
    )
    // An icon of two UTF-16 units heads its line as any other.
    expect(details('🚫 cancelled: the run was cancelled')).toContain(
      '<p><b>🚫 cancelled</b>: the run was cancelled</p>'
    )
  })
})

describe('whether a comment read holds the view wanted', () => {
  const [a, b] = [result(1, { outcome: 'failure' }), result(2)]
  const wanted: View = viewWith([a, b])

  it('the same results in another order, and the same result shown: held, and shown the same', () => {
    const reordered = { ...wanted, results: [b, a] }
    expect(holds(reordered, wanted)).toBe(true)
    expect(showsOf(reordered)).toBe(showsOf(wanted))
    expect(showsOf(reordered)).toBe('9 s1 true s1 s2')
  })

  it('a view of another run, or showing another result, does not hold it', () => {
    expect(holds({ ...wanted, run: 8 }, wanted)).toBe(false)
    expect(holds({ ...wanted, shown: b.key }, wanted)).toBe(false)
  })
})

describe('reading a comment back', () => {
  const hostile = result(1, {
    outcome: 'failure',
    line: '❌ failure: <b>bold</b> -> ok',
    name: `gate ${'n'.repeat(300)}`
  })
  const view = viewWith([hostile, result(2)], '<p>a</p>\n\n<p>b</p>\n')
  const body = renderView(MARKER, view, FOOTER)

  it('reads back what was rendered: details with a blank line, a line with < and >, the name cut', () => {
    expect(readView(body, MARKER)).toEqual({
      ...view,
      results: [{ ...hostile, name: truncate(hostile.name!, 200) }, result(2)]
    })
  })

  it('the details, then their end, and the data last, in an HTML comment of its own', () => {
    expect(body.startsWith(`${MARKER}\n<p>a</p>\n\n<p>b</p>\n${DETAILS_END}\n<h3>`)).toBe(true)
    expect(lastLine(body)).toMatch(/^<!-- neon-operations-gate-view \{"run":9,.*\} -->$/)
    expect(body.slice(0, -lastLine(body).length).endsWith(`</table>\n${FOOTER}`)).toBe(true)
  })

  it('details without a newline at their end get one', () => {
    const one = renderView(MARKER, viewWith([result(1)], '<p>x</p>'), FOOTER)
    expect(one).toBe(`${MARKER}\n<p>x</p>\n${DETAILS_END}\n${FOOTER}${lastLine(one)}`)
    expect(readView(one, MARKER)?.details).toBe('<p>x</p>\n')
  })

  it('a last line of another start or end, a body without the details’ end, or data not JSON: no view', () => {
    const data = lastLine(body)
    const other = [
      body.replace('<!-- neon-operations-gate-view ', '<!-- neon-operations-gate-VIEW '),
      `${body.slice(0, -4)} --!`,
      body.replace(`\n${DETAILS_END}\n`, '\n'),
      `${body.slice(0, -data.length)}<!-- neon-operations-gate-view {"run": -->`
    ]
    expect(other.map((text) => readView(text, MARKER))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined
    ])
  })
})

describe('the table', () => {
  it('one result: no table, the footer after the details', () => {
    const body = renderView(MARKER, viewWith([result(1)]), FOOTER)
    expect(afterDetails(body)).toBe(`${FOOTER}${lastLine(body)}`)
  })

  it('results of one attempt: numbered rows of line, leg name (— when none) and attempt', () => {
    const named = result(1, { outcome: 'failure', line: '❌ failure: a', name: 'gate (eu)' })
    const body = renderView(MARKER, viewWith([named, result(2)]), FOOTER)
    expect(afterDetails(body)).toBe(
      [
        '<h3>2 results of this workflow run</h3>',
        '<p>Its legs (a matrix) share this comment; the worst outcome is shown above.</p>',
        '<table>',
        '<tr><th>#</th><th>Result</th><th>Leg</th><th>Attempt</th></tr>',
        '<tr><td>1</td><td>❌ failure: a</td><td>gate (eu)</td><td>1</td></tr>',
        '<tr><td>2</td><td>✅ success: leg 2</td><td>—</td><td>1</td></tr>',
        '</table>',
        `${FOOTER}${lastLine(body)}`
      ].join('\n')
    )
  })

  it('results of two attempts: a note that earlier results stay; with legs not told apart, how to tell them', () => {
    const told = (id: number, attempt: number) => result(id, { told: true, attempt })
    const note = (results: LegRecord[]) =>
      /<p>Results of earlier attempts.*<\/p>/.exec(renderView(MARKER, viewWith(results), ''))?.[0]
    expect(note([told(1, 1), told(2, 2)])).toBe(
      '<p>Results of earlier attempts stay until a re-run of the same leg replaces them.</p>'
    )
    expect(note([told(1, 1), result(2, { attempt: 2 })])).toContain(
      ' Some legs cannot be told apart (grant the job <code>actions: read</code>'
    )
  })
})

describe('the table and the data within their budget', () => {
  /** 30 results, each line 200 characters; the legs take `extra` more bytes in all. */
  function viewOfSize(extra: number): View {
    const results = Array.from({ length: 30 }, (_, i) => {
      const pad = Math.floor(extra / 30) + (i < extra % 30 ? 1 : 0)
      return result(i + 1, {
        leg: recordContext(GATE, `u-9-1-leg${i + 1}${'p'.repeat(pad)}`),
        line: `✅ success: leg ${i + 1} `.padEnd(200, 'y')
      })
    })
    return viewWith(results)
  }
  const bytes = (body: string) => Buffer.byteLength(afterDetails(body))

  it('at the budget exactly, every line whole; a byte more and lines are cut, every result kept', () => {
    const extra = RESULTS_BUDGET - bytes(renderView(MARKER, viewOfSize(0), ''))
    const full = viewOfSize(extra)
    const atBudget = renderView(MARKER, full, '')
    expect(bytes(atBudget)).toBe(RESULTS_BUDGET)
    expect(readView(atBudget, MARKER)?.results).toEqual(full.results)

    const over = viewOfSize(extra + 1)
    const cut = readView(renderView(MARKER, over, ''), MARKER)!.results
    expect(cut.map((r) => r.line)).toEqual(over.results.map((r) => truncate(r.line, 100)))
  })

  it('lines cut to no fewer than 12 characters, then the oldest greens left out: the table says how many', () => {
    // At 12 characters the 30 results are a little over the budget; at 6 they would be under it.
    const wide = '界'.repeat(40)
    const results = Array.from({ length: 30 }, (_, i) =>
      result(i + 1, {
        leg: recordContext(GATE, `u-9-1-${'界'.repeat(75)}${i}`),
        name: `gate ${wide}`,
        line: i % 10 === 3 ? `❌ failure: ${wide}` : `✅ success: ${wide}`,
        outcome: i % 10 === 3 ? 'failure' : 'success'
      })
    )
    const body = renderView(MARKER, { ...viewWith(results), shown: results[3].key }, '')
    const kept = readView(body, MARKER)!.results
    expect(bytes(body)).toBeLessThanOrEqual(RESULTS_BUDGET)
    const left = 30 - kept.length
    expect(left).toBeGreaterThan(0)
    const greens = results.filter((r) => r.outcome === 'success')
    const keptWhole = results.filter((r) => !greens.slice(0, left).includes(r))
    expect(kept).toEqual(
      keptWhole.map((r) => ({ ...r, name: truncate(r.name!, 12), line: truncate(r.line, 12) }))
    )
    expect(rowsOf(body)).toBe(kept.length)
    expect(body).toContain(`<tr><td colspan="4">… and ${left} more results not shown</td></tr>`)
  })

  it('a result too large for the budget alone is written all the same, its line whole', () => {
    const huge = result(1, { leg: recordContext(GATE, 'l'.repeat(RESULTS_BUDGET)) })
    const data = lastLine(renderView(MARKER, viewWith([huge]), ''))
    expect(data).toContain(`"key":"s1","leg":"${huge.leg}"`)
    expect(data).toContain(`"line":"${huge.line}"`)
  })
})
