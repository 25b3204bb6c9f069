import { classifyStatus, type StatusClass } from './operation-status.js'
import type { Operation } from './schemas.js'

/** More operations than this and the chart would be unreadable: the table alone is shown. */
export const MAX_TIMELINE_TASKS = 30
const MAX_NAME_CHARS = 40
/** A task shorter than this would be drawn with no width. */
const MIN_TASK_MS = 1000

/**
 * Mermaid accepts few characters in a task or section name (`:` separates the task's fields, `#`
 * and `;` start comments and statements); API text keeps only letters, digits and `_ .-`.
 */
function mermaidName(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9_.\- ]/g, '_').trim()
  return safe.slice(0, MAX_NAME_CHARS).trim() || '_'
}

const TAGS: Record<StatusClass, string> = {
  success: 'done, ',
  failure: 'crit, ',
  retrying: 'crit, active, ',
  in_flight: 'active, ',
  unknown: 'active, '
}

/**
 * The operations as a Mermaid gantt chart, from `created_at` to the last update, one section per
 * action, marked by status (done, active, crit). Undefined when there is nothing to draw or too
 * much to read (the table says it all then).
 */
export function renderTimeline(operations: Operation[]): string | undefined {
  const drawable = operations.filter(
    (operation) => !Number.isNaN(Date.parse(operation.created_at ?? ''))
  )
  if (drawable.length === 0 || drawable.length > MAX_TIMELINE_TASKS) return undefined
  const bySection = new Map<string, string[]>()
  for (const operation of [...drawable].reverse()) {
    const start = Date.parse(operation.created_at!)
    const statusClass = classifyStatus(operation.status)
    const end = Math.max(Date.parse(operation.updated_at ?? '') || start, start + MIN_TASK_MS)
    // The fixed prefix keeps a name such as `section` or `click` from being read as a statement.
    const name = `▸ ${mermaidName(`${operation.branch_id ?? operation.id.slice(0, 8)} ${operation.status}`)}`
    const section = mermaidName(operation.action ?? 'operation')
    const tasks = bySection.get(section) ?? []
    tasks.push(`    ${name} :${TAGS[statusClass]}${start}, ${end}`)
    bySection.set(section, tasks)
  }
  const lines = ['gantt', '    dateFormat x', '    axisFormat %H:%M:%S']
  for (const [section, tasks] of bySection) lines.push(`    section ${section}`, ...tasks)
  return lines.join('\n')
}
