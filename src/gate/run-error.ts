/*
 * The run cut short by an error (listing projects, resolving the branch, an error no retry could
 * help in a poll): its outcome and its message in the report, worded as the front end names inputs.
 */
import { DeadlineExceededError, InputError, WordedError } from '../domain/errors.js'
import type { InputNaming } from '../domain/input-naming.js'
import type { Redactor } from '../domain/untrusted-text.js'
import type { RunReport } from '../report/report.js'

/** The run cut short by `error`: its outcome, and its message as the front end names inputs. */
export function recordError(
  report: RunReport,
  error: unknown,
  { signal, naming, redactor }: { signal: AbortSignal; naming: InputNaming; redactor: Redactor }
): void {
  report.outcome = signal.aborted
    ? 'cancelled'
    : error instanceof DeadlineExceededError
      ? 'timeout'
      : 'error'
  const message =
    error instanceof WordedError
      ? error.worded(naming)
      : error instanceof Error
        ? error.message
        : String(error)
  const noRetryFits =
    report.outcome === 'timeout' ? (error as DeadlineExceededError).noRetryFits : undefined
  if (noRetryFits) report.noRetryFits = noRetryFits
  // Gave up because no retry fitted: the message says so with the numbers (`no retry fits …`).
  const text =
    report.outcome !== 'timeout'
      ? message
      : noRetryFits
        ? message.charAt(0).toUpperCase() + message.slice(1)
        : `timeout ran out: ${message}`
  report.error = redactor.redact(text)
  if (error instanceof InputError) report.errorCause = 'input'
}
