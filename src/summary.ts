import { formatDuration } from './duration.js'
import { statusLabel } from './operation-status.js'
import { type RunReport, operationDurationMs } from './report.js'

const OUTCOME_LABELS: Record<string, string> = {
  success: '✅ success',
  failure: '❌ failure',
  timeout: '⌛ timeout',
  pending: '⏳ pending',
  cancelled: '🚫 cancelled'
}

/** Escapes API text for the HTML of the job summary; new lines would end the HTML block. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/\r?\n/g, ' ')
}

function table(headers: string[], rows: (string | null | undefined)[][]): string {
  const head = headers.map((header) => `<th>${header}</th>`).join('')
  const body = rows
    .map((row) => `<tr>${row.map((cell) => `<td>${cell ?? ''}</td>`).join('')}</tr>`)
    .join('\n')
  return `<table>\n<tr>${head}</tr>\n${body}\n</table>`
}

function code(text: string | null | undefined): string {
  return text ? `<code>${escapeHtml(text)}</code>` : ''
}

function date(iso: string | null | undefined): string {
  if (!iso) return ''
  const time = Date.parse(iso)
  if (Number.isNaN(time)) return escapeHtml(iso)
  return new Date(time)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
}

/** The job summary: what a person checks on the console. */
export function renderSummary(report: RunReport): string {
  const parts = ['<h2>Neon operations gate</h2>']
  const facts: string[] = []
  if (report.wait) {
    facts.push(`<b>Outcome:</b> ${OUTCOME_LABELS[report.wait.outcome]}`)
    facts.push(`waited ${formatDuration(report.wait.elapsedMs)}`)
    facts.push(`${report.wait.polls} poll${report.wait.polls === 1 ? '' : 's'}`)
  }
  facts.push(`${report.requests.requests} request${report.requests.requests === 1 ? '' : 's'}`)
  facts.push(`${report.requests.retries} retr${report.requests.retries === 1 ? 'y' : 'ies'}`)
  if (report.projectId) facts.push(`project ${code(report.projectId)}`)
  if (report.branchId) facts.push(`branch ${code(report.branchId)}`)
  parts.push(`<p>${facts.join(' · ')}</p>`)
  if (report.wait?.reason) parts.push(`<p>${escapeHtml(report.wait.reason)}</p>`)
  if (report.error) parts.push(`<p>❌ <b>Error:</b> ${escapeHtml(report.error)}</p>`)

  const operations = report.wait?.operations ?? report.lastSeen
  if (operations) {
    if (operations.length === 0) {
      parts.push('<p>No operation in flight.</p>')
    } else {
      parts.push('<h3>Operations</h3>')
      parts.push(
        table(
          ['Operation', 'Action', 'Branch', 'Compute', 'Status', 'Duration', 'Date'],
          operations.map((operation) => {
            const duration = operationDurationMs(operation)
            const failures = operation.failures_count
              ? ` (${operation.failures_count} failures)`
              : ''
            const error = operation.error ? `<br>${escapeHtml(operation.error)}` : ''
            return [
              code(operation.id),
              escapeHtml(operation.action ?? ''),
              code(operation.branch_id),
              code(operation.endpoint_id),
              escapeHtml(statusLabel(operation.status) + failures) + error,
              duration !== undefined ? formatDuration(duration) : '',
              date(operation.created_at)
            ]
          })
        )
      )
    }
  }

  if (report.listing) {
    parts.push(`<h3>Projects (${report.listing.projects.length})</h3>`)
    parts.push(
      table(
        ['Name', 'Id', 'Region', 'Engine version', 'Created'],
        report.listing.projects.map((project) => [
          escapeHtml(project.name ?? ''),
          code(project.id),
          escapeHtml(project.region_id ?? ''),
          project.pg_version != null ? String(project.pg_version) : '',
          date(project.created_at)
        ])
      )
    )
    if (report.listing.unavailableProjectIds.length > 0) {
      parts.push(
        `<p>Unavailable projects: ${report.listing.unavailableProjectIds.map(code).join(', ')}</p>`
      )
    }
  }
  return parts.join('\n') + '\n'
}
