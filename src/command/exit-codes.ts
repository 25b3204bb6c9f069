import type { RunReport } from '../report/report.js'

/** The command's exit codes, one per kind of ending, so that a script can tell them apart. */
export const EXIT = {
  success: 0,
  failure: 1,
  usage: 2,
  refused: 3,
  /** EX_TEMPFAIL: try again later. */
  pending: 75,
  /** As timeout(1) exits. */
  timeout: 124,
  /** 128 + the signal's number. */
  SIGINT: 130,
  SIGTERM: 143
} as const

/** The exit code of a run that reached the gate; `signal`: what cancelled it, if anything did. */
export function exitCodeOf(report: RunReport, signal: 'SIGINT' | 'SIGTERM' | undefined): number {
  switch (report.outcome) {
    case 'success':
      return EXIT.success
    case 'failure':
      return EXIT.failure
    case 'pending':
      return EXIT.pending
    case 'timeout':
      return EXIT.timeout
    case 'cancelled':
      return EXIT[signal ?? 'SIGINT']
    default:
      return report.errorCause === 'input' ? EXIT.usage : EXIT.refused
  }
}
