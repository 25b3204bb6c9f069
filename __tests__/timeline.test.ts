/**
 * The timeline checked with Mermaid's own parser (mermaid 11 under jsdom, as GitHub renders it):
 * it parses, and hostile names stay names, never statements.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { JSDOM } from 'jsdom'
import { MAX_TIMELINE_TASKS, renderTimeline } from '../src/timeline.js'
import { operation } from './fixtures/operations.js'

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
        '    dateFormat x',
        '    axisFormat %H:%M:%S',
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
    const body = text.split('\n').slice(3).join('\n')
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
})
