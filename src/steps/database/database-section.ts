/*
 * The database check's section of the report: the first line and the error line when no query
 * answered, why the database was not tried, its outputs, its task in the timeline and its
 * annotation.
 */
import { phraseText } from '../../domain/phrase.js'
import { truncate } from '../../domain/untrusted-text.js'
import type { RunReport } from '../../report/report.js'
import type { ReportSection } from '../../report/section.js'
import type { TimelineTask } from '../../report/timeline.js'
import type { DatabaseProbe } from './database-probe.js'
import { databasePhrase } from './database-words.js'

declare module '../../report/report.js' {
  interface RunReport {
    /** Whether `database_url` was given (with `project_id`): the gate was to end with a query. */
    databaseRequested?: boolean
    /** With `database_url`, once the control plane was done: whether a query answered. */
    database?: DatabaseProbe
  }
}

/** The probe, when it is what the gate ended on: it ran and no query answered. */
function databaseFailed(probe: DatabaseProbe | undefined): probe is DatabaseProbe {
  return probe !== undefined && probe.state !== 'ready'
}

/**
 * Why the database was not tried, when the gate was to end with a query and never got that far;
 * undefined when it was tried or not asked for.
 */
function databaseNotTried(report: RunReport): string | undefined {
  if (!report.databaseRequested || report.database) return undefined
  switch (report.outcome) {
    case 'failure':
      return 'an operation failed'
    case 'timeout':
      return 'the timeout ran out before the control plane was done'
    case 'cancelled':
      return 'the job was cancelled before the control plane was done'
    case 'pending':
      return 'the gate read once without waiting, and the control plane was not done at that read'
    default:
      return 'the error above came first'
  }
}

/** The error line when no query answered: how the wait for one ended, and why. */
function databaseErrorLine({ database, outcome }: RunReport): string | undefined {
  if (!databaseFailed(database)) return undefined
  const cut =
    outcome === 'timeout'
      ? 'timeout ran out'
      : outcome === 'cancelled'
        ? 'The wait was cancelled'
        : 'No query answered'
  return `${cut}: ${phraseText(databasePhrase(database))}`
}

/** The probe, from the control plane being done to the query's answer or the last attempt. */
export function databaseTask(probe: DatabaseProbe): TimelineTask {
  return {
    section: 'database',
    name: `${probe.target.database} ${probe.state}`,
    ended:
      probe.outcome === 'success'
        ? 'success'
        : probe.outcome === 'failure'
          ? 'failure'
          : 'in_flight',
    start: probe.span.start,
    end: probe.span.end
  }
}

export const DATABASE_SECTION: ReportSection = {
  phase: 'after-wait',
  outcomeLine: ({ database }) => (databaseFailed(database) ? databasePhrase(database) : undefined),
  successLine: ({ database }) => database && databasePhrase(database),
  errorLine: databaseErrorLine,
  underOutcome: (format, report) => {
    const notTried = databaseNotTried(report)
    return notTried ? [format.paragraph(`The database was not tried: ${notTried}.`)] : []
  },
  outputs: ({ database }) =>
    database
      ? {
          values: {
            database_state: database.state,
            database_ready_ms:
              database.readyMs !== undefined ? Math.round(database.readyMs) : undefined
          }
        }
      : undefined,
  timelineTask: ({ database }) => database && databaseTask(database),
  annotation: (report, errorLine) =>
    databaseFailed(report.database)
      ? {
          annotation: {
            title: `database ${report.database.state}`,
            message: truncate(errorLine, 1000)
          },
          alone: false
        }
      : undefined
}
