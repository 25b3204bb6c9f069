/*
 * The teardown step (`before`): once the whole project is idle, the check that decides whether the
 * branch can be deleted or reset now (teardown-check.ts), its outcome in the report, and its
 * warnings and notices in the log (teardown-words.ts); `gone` when `branch_id` names no branch
 * before a delete; or, when work was still in flight at the end, `busy`.
 */
import type { ApiClient } from '../../api/api-client.js'
import type { Logger } from '../../domain/logger.js'
import { isUnfinished } from '../../domain/operation-status.js'
import { capitalized, phraseText } from '../../domain/phrase.js'
import type { Branch } from '../../domain/schemas.js'
import type { TeardownAction } from './teardown-action.js'
import { type RunReport, seenOperations } from '../../report/report.js'
import type { Step } from '../step.js'
import { checkTeardown, goneBeforeDelete, type TeardownCheck } from './teardown-check.js'
import { TEARDOWN_SECTION } from './teardown-section.js'
import { failedWhileIdling, teardownNotes, teardownPhrase } from './teardown-words.js'

/** The inputs a teardown reads: `before` and `branch_id` as given; those its plan turns off. */
interface TeardownInputs {
  before?: TeardownAction
  branchId?: string
  failFast: boolean
  database?: unknown
}

/**
 * Before a teardown, once the project is idle: what ended in failure while the gate waited is
 * warned about, then one fresh read of the branch and of the project's branches decides.
 */
async function checkBeforeTeardown(
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
function teardownDecided(report: RunReport, check: TeardownCheck, logger: Logger): void {
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
function teardownBusy(report: RunReport, { before: action }: TeardownInputs, logger: Logger): void {
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

/**
 * Its plan: the whole project until idle, `fail_fast` off and no database query (a failure is no
 * reason to stop a teardown, and a branch about to go is not queried; the front ends warn that
 * these are ignored); a branch gone before a delete ends the run, and so does `busy`.
 */
const teardownPlan: Step<TeardownInputs>['plan'] = (draft) => {
  const { inputs } = draft
  const action = inputs.before
  if (!action) return undefined
  return {
    ...draft,
    gate: 'teardown',
    inputs: { ...inputs, failFast: false, database: undefined },
    wait: {
      ...draft.wait,
      covers: 'idle project',
      failFast: false,
      next: 'the project is idle; the branch check comes next',
      idle: {
        for: `before a ${action}`,
        then: 'whether the branch can go',
        failuresWhy: `before a ${action}, a failure is no reason to stop: a broken branch is one to ${action}`,
        unchecked: 'the project is idle, but the branch was not checked'
      }
    },
    branchGone: (report, logger) => {
      if (action !== 'delete' || !inputs.branchId) return false
      teardownDecided(report, goneBeforeDelete({ name: inputs.branchId }), logger)
      return true
    },
    ending: (report, logger) => teardownBusy(report, inputs, logger)
  }
}

export const TEARDOWN_STEP: Step<TeardownInputs> = {
  section: TEARDOWN_SECTION,
  help: {
    usage: '{project_id} {branch_id} {before}',
    ends: [['failure', '{before} found a blocker']]
  },
  plan: teardownPlan,
  run: async (inputs, report, { client, projectId, branch, logger }) => {
    if (projectId && branch)
      await checkBeforeTeardown(client, inputs, { projectId, branch }, report, logger)
  }
}
