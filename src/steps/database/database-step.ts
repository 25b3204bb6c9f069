/*
 * The database check (`database_url`): once the control plane is done, a query must answer
 * (database-probe.ts, one attempt in postgres.ts); its input is read here against
 * database-target.ts, its words are database-words.ts, and its section of the report is
 * database-section.ts.
 */
import { z } from 'zod'
import { formatDuration } from '../../domain/duration.js'
import { type InputEntry, NOT_GIVEN } from '../../domain/input-catalog.js'
import { refusingEmpty } from '../../domain/input-fields.js'
import type { Step } from '../step.js'
import { type DatabaseTarget, parseDatabaseUrl } from './database-target.js'
import { probeDatabase } from './database-probe.js'
import { DATABASE_SECTION } from './database-section.js'
import type { QueryDatabase } from './postgres.js'

/** Where to connect, checked before any request. */
const databaseUrlInput = z.string().transform((raw, ctx) => {
  const target = parseDatabaseUrl(raw.trim())
  if (typeof target !== 'string') return target
  ctx.addIssue({ code: 'custom', message: target })
  return z.NEVER
})

/** Its input in the catalog: `database_url`. */
export const DATABASE_INPUTS = {
  database_url: {
    typed: 'database',
    schema: (naming) =>
      refusingEmpty(
        databaseUrlInput,
        `leave ${naming.mention('database_url')} out for no database check`
      ),
    refusesEmpty: true,
    secret: 'database_url',
    command: { flag: { name: 'database-url', gate: true }, file: 'database-url-file' },
    help: {
      part: 'what',
      flags: [
        ['--database-url URL', 'then connect and run SELECT 1 (a secret: prefer the file)'],
        ['--database-url-file PATH', 'the database URL from a file (- reads standard input)']
      ]
    },
    docs: {
      default: NOT_GIVEN,
      summary: 'Postgres URL: the gate ends with a query that answered',
      description:
        'Optional, a secret: a Postgres connection string (the db_url output of create-branch-action). Once the control plane is done, the gate passes only when SELECT 1 answers 1 on it, as that role, before timeout. TLS with a verified certificate unless sslmode=disable, which is allowed only to loopback hosts (localhost, 127.x.x.x as four decimal octets, [::1]). Masked, with its password. An unexpanded variable ($DATABASE_URL, ${DATABASE_URL}) fails the step. Its default, (not given), means left out.'
    }
  }
} as const satisfies Record<string, InputEntry>

/** The inputs the check reads. */
interface DatabaseInputs {
  database?: DatabaseTarget
  projectId?: string
  wait: boolean
  intervalMs: number
}

export const DATABASE_STEP: Step<DatabaseInputs, { queryDatabase: QueryDatabase }> = {
  section: DATABASE_SECTION,
  help: { ends: [['failure', 'the database check failed']] },
  // After a success the wait says that the control plane is done: the check may still fail.
  plan: (draft) =>
    draft.inputs.database === undefined
      ? undefined
      : {
          ...draft,
          wait: { ...draft.wait, next: 'control plane done; the database check comes next' }
        },
  start: (inputs, report) => {
    report.databaseRequested = inputs.database !== undefined && inputs.projectId !== undefined
  },
  run: async (inputs, report, context) => {
    if (!inputs.database) return
    const { clock, logger, stepStartedAt, deadline } = context
    const probeOptions = {
      wait: inputs.wait,
      deadline,
      intervalMs: inputs.intervalMs,
      stepStartedAt
    }
    report.database = await probeDatabase(inputs.database, probeOptions, {
      ...context,
      query: context.queryDatabase
    })
    report.outcome = report.database.outcome
    logger.info(`[+${formatDuration(clock.now() - stepStartedAt)}] outcome: ${report.outcome}`)
  }
}
