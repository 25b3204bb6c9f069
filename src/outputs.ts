import { type RunReport, operationDurationMs, primaryOperation } from './report.js'

/** Every output the run sets, as the strings `core.setOutput` writes. */
export function buildOutputs(report: RunReport): Record<string, string> {
  const outputs: Record<string, string> = {}
  if (report.listing) {
    outputs.projects = JSON.stringify(report.listing.projects)
    outputs.project_count = String(report.listing.projects.length)
  }
  const { wait } = report
  if (wait) {
    const operation = primaryOperation(wait.operations)
    const duration = operation ? operationDurationMs(operation) : undefined
    Object.assign(outputs, {
      outcome: wait.outcome,
      status: operation?.status ?? '',
      operation_id: operation?.id ?? '',
      action: operation?.action ?? '',
      branch_id: operation?.branch_id ?? '',
      endpoint_id: operation?.endpoint_id ?? '',
      failures_count: operation?.failures_count != null ? String(operation.failures_count) : '',
      error: operation?.error ?? '',
      created_at: operation?.created_at ?? '',
      updated_at: operation?.updated_at ?? '',
      duration_ms: duration !== undefined ? String(duration) : '',
      operation: operation ? JSON.stringify(operation) : '',
      operations: JSON.stringify(wait.operations),
      elapsed_ms: String(Math.round(wait.elapsedMs))
    })
  } else if (report.listing && !report.error) {
    outputs.outcome = 'success'
  }
  return outputs
}
