/*
 * `before`: once the whole project is idle, the check that decides whether the branch can be
 * deleted or reset now (wait/teardown-check.ts), its outcome in the report, and its warnings and
 * notices in the log, worded by the report (report/teardown-words.ts); or, when work was still in
 * flight at the end, `busy`.
 */
import type { ApiClient } from '../api/api-client.js'
import type { Logger } from '../domain/logger.js'
import { phraseText } from '../domain/phrase.js'
import type { Branch } from '../domain/schemas.js'
import { type RunReport, seenOperations } from '../report/report.js'
import { isUnfinished } from '../domain/operation-status.js'
import {
  capitalized,
  failedWhileIdling,
  teardownNotes,
  teardownPhrase
} from '../report/teardown-words.js'
import { checkTeardown, type TeardownCheck } from '../wait/teardown-check.js'
import type { TeardownAction } from '../domain/teardown.js'

/** The inputs a teardown needs: `before`, and `branch_id` as given. */
interface TeardownInputs {
  before?: TeardownAction
  branchId?: string
}

/**
 * Before a teardown, once the project is idle: what ended in failure while the gate waited is
 * warned about, then one fresh read of the branch and of the project's branches decides.
 */
export async function checkBeforeTeardown(
  client: ApiClient,
  { before: action, branchId }: TeardownInputs,
  { projectId, branch }: { projectId: string; branch: Branch },
  report: RunReport,
  logger: Logger
): Promise<void> {
  if (!action) return
  // What `branch_id` said: should the branch go while the gate waits, it is resolved again.
  const input = branchId ?? branch.id
  for (const warning of failedWhileIdling(report.wait?.operations ?? [], action)) {
    logger.warning(phraseText(warning))
  }
  const check = await checkTeardown(action, branch, { reader: client.branches, projectId, input })
  if (check.preflight !== 'gone') report.branch = check.branch
  teardownDecided(report, check, logger)
}

/** The check's outcome in the report, and its warnings and notices in the log. */
export function teardownDecided(report: RunReport, check: TeardownCheck, logger: Logger): void {
  report.teardown = check
  report.outcome = check.preflight === 'blocked' ? 'failure' : 'success'
  const { warnings, notices } = teardownNotes(check)
  for (const warning of warnings) logger.warning(phraseText(warning))
  for (const notice of notices) logger.notice(phraseText(notice))
  if (check.preflight === 'clear') logger.info(phraseText(capitalized(teardownPhrase(check))))
}

/**
 * Before a teardown, the run ended while work was still in flight (a timeout, or `wait: false`):
 * the branch is `busy`, with a warning that a teardown now would meet 423 Locked. Not when nothing
 * was seen in flight (the first read never answered): then nothing is known.
 */
export function teardownBusy(
  report: RunReport,
  { before: action }: TeardownInputs,
  logger: Logger
): void {
  const { branch, outcome } = report
  if (!action || report.teardown || !branch) return
  if (outcome !== 'timeout' && outcome !== 'pending') return
  const seen = seenOperations(report) ?? []
  if (!seen.some((operation) => isUnfinished(operation.status))) return
  report.teardown = { action, preflight: 'busy', branch }
  for (const warning of teardownNotes(report.teardown).warnings) {
    logger.warning(phraseText(warning))
  }
}
