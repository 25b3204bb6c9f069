/*
 * What the report says of a sweep (issue 69, src/report/sweep-report.ts): its line, its summary
 * (HTML for the job summary, plain text for the command), and its outputs: `stale` within GitHub's
 * 1 MB of outputs (cut by the project's own outputs.ts, with a note that gives the count kept),
 * `stale_count` every one found, and the command's JSON (no cut). Branch names are hostile here.
 */
import { describe, expect, it } from '@jest/globals'
import { phraseHtml, phraseText } from '../src/domain/phrase.js'
import { NeonIdSchema } from '../src/domain/schemas.js'
import type { StaleBranch, SweepVerdict } from '../src/domain/sweep-verdict.js'
import { typedOutputs } from '../src/report/outputs.js'
import { HTML_FORMAT, TEXT_FORMAT } from '../src/report/report-format.js'
import type { RunReport } from '../src/report/report.js'
import type { ReportSection } from '../src/report/section.js'
import {
  ageText,
  type SweepFindings,
  sweepOutputs,
  sweepPhrase,
  sweepSummary
} from '../src/report/sweep-report.js'

const HOSTILE =
  '<img src=x onerror=alert(1)>\n::error::pwned ##[set-output name=x;]y **bold** @team'

const item = (index: number, fields: Partial<StaleBranch> = {}): StaleBranch => ({
  id: NeonIdSchema.parse(`br-stale-${String(index).padStart(6, '0')}`),
  name: `preview/pr-${index}`,
  last_active: '2026-11-20T10:00:00.000Z',
  reason: 'inactive',
  blockers: [],
  ...fields
})

const findings = (
  verdict: Partial<SweepVerdict>,
  more: Partial<SweepFindings> = {}
): SweepFindings => ({
  verdict: { stale: [], undecided: [], matched: 9, ...verdict },
  pattern: 'preview/pr-{pr}',
  olderThanMs: 7 * 86_400_000,
  pullRequestsRead: true,
  ...more
})

/** The outputs as the action sets them (1 MB) or the command prints them (no limit). */
function outputsOf(found: SweepFindings, maxBytes?: number) {
  const section: ReportSection = { phase: 'after-wait', outputs: () => sweepOutputs(found) }
  const report: RunReport = { requests: { requests: 2, retries: 0 }, outcome: 'success' }
  return typedOutputs([section], report, maxBytes)
}

describe('the line', () => {
  it('how many are stale among those that match, what was not judged, and a cut list', () => {
    const found = findings(
      {
        stale: [item(1), item(2)],
        undecided: [
          {
            id: 'br-x',
            name: 'preview/pr-3',
            last_active: null,
            why: 'pull request #3 could not be read'
          }
        ]
      },
      { cut: '50 pages' }
    )
    expect(phraseText(sweepPhrase(found))).toBe(
      '2 stale branches among 9 that match preview/pr-{pr} (no activity for 7 days, or a pull request closed or merged); 1 branch could not be judged; the branch list stopped (50 pages): the most recently updated branches beyond it were not judged'
    )
    expect(
      phraseText(
        sweepPhrase(findings({ matched: 0 }, { pattern: 'preview/*', olderThanMs: 36 * 3_600_000 }))
      )
    ).toBe('no stale branch among 0 that match preview/* (no activity for 36 hours)')
    // With {pr} and no pull request read (the command): age alone, and it says so.
    expect(phraseText(sweepPhrase(findings({ matched: 2 }, { pullRequestsRead: false })))).toBe(
      'no stale branch among 2 that match preview/pr-{pr} (no activity for 7 days; no pull request was read, so age alone decides)'
    )
  })

  it('ages in days, hours or minutes', () => {
    expect([
      ageText(86_400_000),
      ageText(14 * 86_400_000),
      ageText(3_600_000),
      ageText(90 * 60_000)
    ]).toEqual(['1 day', '14 days', '1 hour', '90 minutes'])
  })

  it('a hostile pattern is code in HTML: escaped', () => {
    const html = phraseHtml(sweepPhrase(findings({}, { pattern: '<b>x</b>*' })))
    expect(html).toContain('<code>&lt;b&gt;x&lt;/b&gt;*</code>')
  })
})

describe('the summary', () => {
  const found = findings({
    stale: [
      item(1, { name: HOSTILE, blockers: ['children', 'restricted'] }),
      item(2, { reason: 'pr_merged', last_active: null }),
      item(3, { reason: 'pr_closed' })
    ],
    undecided: [
      {
        id: 'br-u',
        name: HOSTILE,
        last_active: null,
        why: `pull request #4 could not be read: ${HOSTILE}`
      }
    ]
  })

  it('HTML: a table of the stale branches, one of those not judged; API text escaped, no Markdown, no mention', () => {
    const html = HTML_FORMAT.join(sweepSummary(HTML_FORMAT, found, 100))
    expect(html).toContain('<h3>Stale branches: 3</h3>')
    expect(html).toContain(
      '<th>Branch</th><th>Id</th><th>Last active</th><th>Why stale</th><th>Blockers</th>'
    )
    expect(html).toContain('<td>children, restricted</td>')
    expect(html).toContain('<td>2026-11-20 10:00:00 UTC</td><td>pull request closed</td>')
    expect(html).toContain('<td>pull request merged</td>')
    expect(html).toContain('Why not judged')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('@team')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; ::error::pwned')
    // No line break from the API's text: every row is one line of HTML.
    for (const line of html.split('\n').filter((each) => each.startsWith('<tr><td>'))) {
      expect(line).toMatch(/<\/tr>$/)
    }
  })

  it('text: no line that a runner would read as a command, no ##[', () => {
    const text = TEXT_FORMAT.join(sweepSummary(TEXT_FORMAT, found, 100))
    expect(text).toContain('Stale branches: 3')
    expect(text).not.toMatch(/^\s*::/m)
    expect(text).not.toContain('##[')
    expect(text).toContain('\\n::error::pwned ##\\u005bset-output')
  })

  it('rows cut at the limit, with a count', () => {
    const many = findings({ stale: Array.from({ length: 30 }, (_, index) => item(index)) })
    const text = TEXT_FORMAT.join(sweepSummary(TEXT_FORMAT, many, 25))
    expect(text).toContain('preview/pr-24')
    expect(text).not.toContain('preview/pr-25')
    expect(text).toContain('… and 5 more (the stale output lists them)')
  })

  it.each([24, 25, 26])(
    'with %d branches not judged and a limit of 25: each one is a row or counted in the more',
    (count) => {
      const undecided = Array.from({ length: count }, (_, index) => ({
        id: `br-undecided-${index}`,
        name: `preview/unjudged-${String(index).padStart(3, '0')}`,
        last_active: null,
        why: 'its activity cannot be read (no updated_at or last_active it can read)'
      }))
      const text = TEXT_FORMAT.join(sweepSummary(TEXT_FORMAT, findings({ undecided }), 25))
      const rows = new Set(text.match(/preview\/unjudged-\d{3}/g))
      const more = Number(/… and (\d+) more/.exec(text)?.[1] ?? 0)
      expect([rows.size, more]).toEqual([Math.min(count, 25), Math.max(count - 25, 0)])
      expect(rows.size + more).toBe(count)
    }
  )

  it('a list cut at its page cap says what was not judged', () => {
    const text = TEXT_FORMAT.join(sweepSummary(TEXT_FORMAT, findings({}, { cut: '50 pages' }), 10))
    expect(text).toContain(
      'The branch list stopped (50 pages) before its end: the most recently updated branches beyond it were not judged, and a listed branch may have children there.'
    )
  })
})

describe('the outputs', () => {
  it('stale and stale_count, typed for the command’s JSON', () => {
    const found = findings({ stale: [item(1, { blockers: ['children'] })] })
    const { values, notes } = outputsOf(found, Infinity)
    expect(values.stale_count).toBe(1)
    expect(values.stale).toEqual([
      {
        id: 'br-stale-000001',
        name: 'preview/pr-1',
        last_active: '2026-11-20T10:00:00.000Z',
        reason: 'inactive',
        blockers: ['children']
      }
    ])
    expect(notes).toEqual([])
    expect(outputsOf(findings({}), Infinity).values).toMatchObject({
      stale_count: 0,
      cut: false,
      stale: []
    })
    // A list cut at its page cap says so, whatever it found.
    const cut = outputsOf(findings({}, { cut: '50 pages' }), Infinity).values
    expect(cut).toMatchObject({ stale_count: 0, cut: true })
  })

  it('each entry whole: a long name is never cut; one too large for 1 MB ends the list there, with the note', () => {
    const long = `preview/${'x'.repeat(400)}`
    const huge = `preview/${'y'.repeat(600_000)}`
    const stale = [item(1, { name: long }), item(2, { name: huge }), item(3)]
    const { values, notes } = outputsOf(findings({ stale }))
    expect(values.stale).toEqual([stale[0]])
    expect(values.stale_count).toBe(3)
    expect(notes).toEqual([
      'The stale output holds the first 1 of 3: GitHub allows 1 MB of outputs per job, counted as UTF-16'
    ])
    expect((outputsOf(findings({ stale }), Infinity).values.stale as StaleBranch[])[1].name).toBe(
      huge
    )
  })

  it('20,000 stale branches with long names: stale cut to fit 1 MB (as UTF-16), stale_count all, a note with the count', () => {
    const stale = Array.from({ length: 20_000 }, (_, index) =>
      item(index, { name: `preview/${'é'.repeat(150)}-${index}` })
    )
    const { values, notes } = outputsOf(findings({ stale }))
    const texts = Object.entries(values).map(([name, value]) => [
      name,
      typeof value === 'object' ? JSON.stringify(value) : String(value)
    ])
    const utf16 = texts.reduce((sum, [name, text]) => sum + 2 * (name.length + text.length), 0)
    expect(utf16).toBeLessThanOrEqual(1_000_000)
    const kept = values.stale as StaleBranch[]
    expect(kept.length).toBeGreaterThan(1000)
    expect(kept.length).toBeLessThan(20_000)
    // The newest activity first is kept: the first ones, in order.
    expect(kept.map((each) => each.id)).toEqual(stale.slice(0, kept.length).map((each) => each.id))
    expect(values.stale_count).toBe(20_000)
    expect(notes).toEqual([
      `The stale output holds the first ${kept.length} of 20000: GitHub allows 1 MB of outputs per job, counted as UTF-16`
    ])
    // The command's JSON is whole.
    expect((outputsOf(findings({ stale }), Infinity).values.stale as object[]).length).toBe(20_000)
  })
})
