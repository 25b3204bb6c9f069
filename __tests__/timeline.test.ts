/**
 * The timeline checked with Mermaid's own parser (mermaid 11 under jsdom, as GitHub renders it):
 * it parses, and hostile names stay names, never statements.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { scaleTime, timeDay, timeFormat, timeHour, timeMinute, timeMonth, timeSecond } from 'd3'
import { JSDOM } from 'jsdom'
import { MAX_TIMELINE_TASKS, renderTimeline } from '../src/report/timeline.js'
import type { DatabaseProbe } from '../src/steps/database/database-probe.js'
import { databaseTask } from '../src/steps/database/database-section.js'
import { operation } from './support/neon/operations.js'

type Mermaid = typeof import('mermaid').default
let mermaid: Mermaid

beforeAll(async () => {
  const { window } = new JSDOM('<!doctype html><html><body></body></html>')
  Object.assign(globalThis, { window, document: window.document })
  mermaid = (await import('mermaid')).default
})

async function parsedTasks(text: string): Promise<{ task: string; section: string }[]> {
  await mermaid.parse(text)
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text)
  return (diagram.db as unknown as { getTasks(): { task: string; section: string }[] }).getTasks()
}

/** gantt, the init directive, dateFormat, axisFormat and tickInterval. */
const HEADER_LINES = 5

/** The tick labels Mermaid draws: d3's ticks at `tickInterval` over the tasks' span, formatted. */
async function tickLabels(text: string): Promise<string[]> {
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text)
  const db = diagram.db as unknown as {
    getTasks(): { startTime: Date; endTime: Date }[]
    getTickInterval(): string
    getAxisFormat(): string
  }
  const tasks = db.getTasks()
  const domain = [
    new Date(Math.min(...tasks.map((task) => task.startTime.getTime()))),
    new Date(Math.max(...tasks.map((task) => task.endTime.getTime())))
  ]
  const [, every, unit] = /^(\d+)(second|minute|hour|day|month)$/.exec(db.getTickInterval())!
  const intervals = {
    second: timeSecond,
    minute: timeMinute,
    hour: timeHour,
    day: timeDay,
    month: timeMonth
  }
  const ticks = scaleTime()
    .domain(domain)
    .ticks(intervals[unit as keyof typeof intervals].every(Number(every))!)
  return ticks.map(timeFormat(db.getAxisFormat()))
}

describe('renderTimeline', () => {
  it('draws each operation from created_at to its last update, by action and status', async () => {
    const text = renderTimeline([
      operation({
        action: 'start_compute',
        branch_id: 'br-preview-42',
        status: 'running',
        created_at: '2026-11-21T10:00:01Z',
        updated_at: '2026-11-21T10:00:04Z'
      }),
      operation({
        action: 'create_branch',
        branch_id: 'br-preview-42',
        status: 'finished',
        created_at: '2026-11-21T10:00:00Z',
        updated_at: '2026-11-21T10:00:03Z'
      })
    ])!
    expect(text).toBe(
      [
        'gantt',
        '    %%{init: {"gantt": {"leftPadding": 107}}}%%',
        '    dateFormat x',
        '    axisFormat %H:%M:%S',
        '    tickInterval 1second',
        '    section create_branch',
        `    ▸ br-preview-42 finished :done, ${Date.parse('2026-11-21T10:00:00Z')}, ${Date.parse('2026-11-21T10:00:03Z')}`,
        '    section start_compute',
        `    ▸ br-preview-42 running :active, ${Date.parse('2026-11-21T10:00:01Z')}, ${Date.parse('2026-11-21T10:00:04Z')}`
      ].join('\n')
    )
    const tasks = await parsedTasks(text)
    expect(tasks.map((task) => [task.task.trim(), task.section])).toEqual([
      ['▸ br-preview-42 finished', 'create_branch'],
      ['▸ br-preview-42 running', 'start_compute']
    ])
  })

  it('draws the database probe after the operations, marked by how it ended', async () => {
    const finished = operation({
      action: 'start_compute',
      status: 'finished',
      created_at: '2026-11-21T10:00:00Z',
      updated_at: '2026-11-21T10:00:03Z'
    })
    const probe = (outcome: DatabaseProbe['outcome'], state: DatabaseProbe['state']) =>
      ({
        outcome,
        state,
        target: { host: 'ep-1.neon.test', database: 'neondb', user: 'app' },
        attempts: 2,
        afterControlPlaneMs: 4000,
        span: {
          start: Date.parse('2026-11-21T10:00:04Z'),
          end: Date.parse('2026-11-21T10:00:08Z')
        }
      }) satisfies DatabaseProbe
    const cases = [
      [probe('success', 'ready'), '▸ neondb ready :done, '],
      [probe('failure', 'refused'), '▸ neondb refused :crit, '],
      [probe('timeout', 'unreachable'), '▸ neondb unreachable :active, ']
    ] as const
    for (const [ended, task] of cases) {
      const text = renderTimeline([finished], new Map(), databaseTask(ended))!
      const lines = text.split('\n')
      expect(lines.slice(-2)).toEqual([
        '    section database',
        `    ${task}${Date.parse('2026-11-21T10:00:04Z')}, ${Date.parse('2026-11-21T10:00:08Z')}`
      ])
      const tasks = await parsedTasks(text)
      expect(tasks.map((parsed) => parsed.section)).toEqual(['start_compute', 'database'])
    }
  })

  it('hostile names parse and stay task names', async () => {
    const hostile = [
      'section',
      'click x href "javascript:alert(1)"',
      '%%{init: {"theme": "dark"}}%%',
      'a\n::set-output name=x::y',
      'title # ; : `` ```',
      'x'.repeat(500)
    ]
    const operations = hostile.map((text, i) =>
      operation({
        action: text,
        branch_id: text,
        status: i % 2 ? 'error' : 'cancelling',
        created_at: `2026-11-21T10:00:0${i}Z`,
        updated_at: `2026-11-21T10:00:0${i + 1}Z`
      })
    )
    const text = renderTimeline(operations)!
    const tasks = await parsedTasks(text)
    expect(tasks).toHaveLength(hostile.length)
    for (const task of tasks) expect(task.task.startsWith('▸ ')).toBe(true)
    const body = text.split('\n').slice(HEADER_LINES).join('\n')
    expect(body).not.toMatch(/["%#;`]|::/)
    expect(Math.max(...text.split('\n').map((line) => line.length))).toBeLessThan(120)
  })

  it('falls back to the table alone for many operations, and draws nothing without times', () => {
    const many = Array.from({ length: MAX_TIMELINE_TASKS + 1 }, () => operation())
    expect(renderTimeline(many)).toBeUndefined()
    expect(renderTimeline(many.slice(0, MAX_TIMELINE_TASKS))).toBeDefined()
    expect(renderTimeline([operation({ created_at: 'not a time' })])).toBeUndefined()
    expect(renderTimeline([])).toBeUndefined()
  })

  it.each([
    ['7 s', 7_000, '1second', '%H:%M:%S'],
    ['3 min', 180_000, '30second', '%H:%M:%S'],
    ['2 h', 7_200_000, '15minute', '%H:%M'],
    ['3 days', 3 * 86_400_000, '12hour', '%b %d %H:%M'],
    ['5 months', 150 * 86_400_000, '1month', '%b %Y'],
    ['9 years', 9 * 365 * 86_400_000, '12month', '%Y']
  ])(
    'a %s span: an axis whose labels never repeat, read by Mermaid',
    async (_span, spanMs, tick, format) => {
      const start = Date.parse('2026-11-21T10:00:00.400Z')
      const operations = [0, 0.3, 0.7].map((share, i) =>
        operation({
          action: ['create_branch', 'start_compute', 'apply_config'][i],
          status: 'finished',
          created_at: new Date(start + share * spanMs).toISOString(),
          updated_at: new Date(start + (share + 0.3) * spanMs).toISOString()
        })
      )
      const text = renderTimeline(operations)!
      expect(text).toContain(`    tickInterval ${tick}\n`)
      expect(text).toContain(`    axisFormat ${format}\n`)
      const labels = await tickLabels(text)
      expect(labels.length).toBeGreaterThanOrEqual(3)
      expect(labels.length).toBeLessThanOrEqual(12)
      expect(new Set(labels).size).toBe(labels.length)
    }
  )

  it('over more than about 12 years no axis has few ticks: no chart (the table lists them)', () => {
    const operations = ['1996-01-01T00:00:00Z', '2026-11-21T10:00:00Z', '2031-01-01T00:00:00Z'].map(
      (created_at) => operation({ status: 'finished', created_at, updated_at: created_at })
    )
    expect(renderTimeline(operations)).toBeUndefined()
    expect(renderTimeline(operations.slice(1))).toContain('tickInterval 12month')
  })

  it('the section names get room on the left, read by Mermaid from the init directive', async () => {
    const text = renderTimeline([
      operation({ action: 'x'.repeat(40), created_at: '2026-11-21T10:00:00Z' })
    ])!
    await mermaid.parse(text)
    expect(mermaid.mermaidAPI.getConfig().gantt?.leftPadding).toBe(296)
  })

  it('an unfinished operation runs to its last read, not to its last update', () => {
    const created = Date.parse('2026-11-21T10:00:00Z')
    const readAt = created + 7_100
    const ops = [
      operation({
        id: 'running-1',
        status: 'running',
        total_duration_ms: 0,
        created_at: '2026-11-21T10:00:00Z',
        updated_at: '2026-11-21T10:00:01Z'
      }),
      operation({
        id: 'finished-1',
        status: 'finished',
        created_at: '2026-11-21T10:00:00Z',
        updated_at: '2026-11-21T10:00:03Z'
      })
    ]
    const readTimes = new Map([
      ['running-1', readAt],
      ['finished-1', readAt]
    ])
    const text = renderTimeline(ops, readTimes)!
    expect(text).toContain(`:active, ${created}, ${readAt}`)
    expect(text).toContain(`:done, ${created}, ${created + 3000}`)
  })
})
