import { classifyStatus, isUnfinished, type StatusClass } from '../domain/operation-status.js'
import type { Operation } from '../domain/schemas.js'
import { apiTime } from '../domain/api-time.js'

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

/** Ticks on the axis at most; the step is the smallest of TICK_STEPS that keeps within it. */
const MAX_TICKS = 8
/** A span that even the longest step would cover with more ticks than this is not drawn. */
const MAX_TICKS_AT_LONGEST_STEP = 12
const MONTH_MS = 30.44 * 86_400_000
/**
 * Tick steps Mermaid accepts (`tickInterval`), with an axis format that names each tick once: a
 * step of seconds shows seconds, of minutes or hours the minute, of days the day, of months the
 * month, of a year the year. d3 puts ticks on whole multiples of the step within the next larger
 * unit (a month's step counts months within the year), so two ticks never share a label at that
 * precision, and no step is longer than a year.
 */
const TICK_STEPS: { ms: number; tick: string; format: string }[] = [
  ...[1, 2, 5, 10, 15, 30].map((n) => ({ ms: n * 1000, tick: `${n}second`, format: '%H:%M:%S' })),
  ...[1, 2, 5, 10, 15, 30].map((n) => ({ ms: n * 60_000, tick: `${n}minute`, format: '%H:%M' })),
  ...[1, 2, 3, 6, 12].map((n) => ({ ms: n * 3_600_000, tick: `${n}hour`, format: '%H:%M' })),
  ...[1, 2, 7, 14].map((n) => ({ ms: n * 86_400_000, tick: `${n}day`, format: '%b %d' })),
  ...[1, 2, 3, 6].map((n) => ({ ms: n * MONTH_MS, tick: `${n}month`, format: '%b %Y' })),
  { ms: 12 * MONTH_MS, tick: '12month', format: '%Y' }
]
const LONGEST_STEP = TICK_STEPS.at(-1)!

/**
 * The axis for a chart spanning `spanMs`: `tickInterval` and `axisFormat`; undefined for a span of
 * more than about 12 years, which no step Mermaid has can mark with few ticks.
 */
function axisFor(spanMs: number): { tick: string; format: string } | undefined {
  if (spanMs / LONGEST_STEP.ms > MAX_TICKS_AT_LONGEST_STEP) return undefined
  const step = TICK_STEPS.find((candidate) => spanMs / candidate.ms <= MAX_TICKS) ?? LONGEST_STEP
  // A span of a day or more shows the day beside the time, or 23:00 and 01:00 would repeat.
  const format = spanMs >= 86_400_000 && step.format === '%H:%M' ? '%b %d %H:%M' : step.format
  return { tick: step.tick, format }
}

/** Room on the left for the section names (Mermaid's default, 75 px, fits about 10 characters). */
function leftPadding(sections: string[]): number {
  const longest = Math.max(...sections.map((section) => section.length))
  return Math.min(320, Math.max(75, Math.round(longest * 7 + 16)))
}

interface Task {
  section: string
  name: string
  tag: string
  start: number
  end: number
}

/** The operation's bar; undefined when its `created_at` cannot be read (nothing to draw). */
function operationTask(
  operation: Operation,
  readAt: ReadonlyMap<string, number>
): Task | undefined {
  const start = apiTime(operation.created_at)
  if (start === undefined) return undefined
  const lastRead = isUnfinished(operation.status) ? readAt.get(operation.id) : undefined
  const lastKnown = lastRead ?? apiTime(operation.updated_at) ?? start
  return {
    section: operation.action ?? 'operation',
    name: `${operation.branch_id ?? operation.id.slice(0, 8)} ${operation.status}`,
    tag: TAGS[classifyStatus(operation.status)],
    start,
    end: lastKnown
  }
}

/** A step's task, drawn after the operations (the database query): its section, name and span. */
export interface TimelineTask {
  section: string
  name: string
  ended: StatusClass
  /** Wall-clock start and end (epoch ms), beside the operations' API timestamps. */
  start: number
  end: number
}

/**
 * The operations as a Mermaid gantt chart, from `created_at` to the last update, one section per
 * action, marked by status (done, active, crit), and a step's task after them. An operation
 * that has not finished runs to the time it was last read (`readAt`, wall clock), not to its last
 * update. Undefined when there is nothing to draw or too much to read, operations or years (the
 * table says it all then).
 */
export function renderTimeline(
  operations: Operation[],
  readAt: ReadonlyMap<string, number> = new Map(),
  after?: TimelineTask
): string | undefined {
  const tasks = [...operations]
    .reverse()
    .flatMap((operation) => operationTask(operation, readAt) ?? [])
  if (tasks.length === 0 || tasks.length > MAX_TIMELINE_TASKS) return undefined
  if (after) tasks.push({ ...after, tag: TAGS[after.ended] })
  const bySection = new Map<string, string[]>()
  let first = Infinity
  let last = -Infinity
  for (const task of tasks) {
    const end = Math.max(task.end, task.start + MIN_TASK_MS)
    first = Math.min(first, task.start)
    last = Math.max(last, end)
    // The fixed prefix keeps a name such as `section` or `click` from being read as a statement.
    const section = mermaidName(task.section)
    const lines = bySection.get(section) ?? []
    lines.push(`    ▸ ${mermaidName(task.name)} :${task.tag}${task.start}, ${end}`)
    bySection.set(section, lines)
  }
  const axis = axisFor(last - first)
  if (!axis) return undefined
  const lines = [
    'gantt',
    `    %%{init: {"gantt": {"leftPadding": ${leftPadding([...bySection.keys()])}}}}%%`,
    '    dateFormat x',
    `    axisFormat ${axis.format}`,
    `    tickInterval ${axis.tick}`
  ]
  for (const [section, sectionTasks] of bySection)
    lines.push(`    section ${section}`, ...sectionTasks)
  return lines.join('\n')
}
