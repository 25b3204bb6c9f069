/*
 * The project listing (`list_projects`): every project the key can see, listed before the gate
 * (or instead of one), and its section of the report: the first line when nothing was waited for,
 * the table below the operations, and the outputs `projects` and `project_count`.
 */
import type { ProjectListing } from '../../api/resources/projects.js'
import { booleanInput, idInput, ORG_ID_PATTERN } from '../../domain/input-fields.js'
import type { InputEntry } from '../../domain/input-catalog.js'
import { plural } from '../../domain/phrase.js'
import { formatDate, type ReportFormat } from '../../report/report-format.js'
import { limitedTable } from '../../report/operations-section.js'
import type { ReportSection, SummaryLimits } from '../../report/section.js'
import type { Step } from '../step.js'

declare module '../../report/report.js' {
  interface RunReport {
    /** With `list_projects`: the projects the key can see. */
    listing?: ProjectListing
  }
}

const MAX_UNAVAILABLE_IDS = 20

/** Its inputs in the catalog: whether to list, and the organization whose projects to list. */
export const PROJECTS_INPUTS = {
  list_projects: {
    typed: 'listProjects',
    schema: () => booleanInput(false),
    command: { flag: { name: 'list-projects', boolean: true } },
    help: { part: 'what', flags: [['--list-projects', 'also list the projects the key can see']] },
    docs: {
      default: 'false',
      summary: 'Also list the projects the key can see (every page)',
      description: 'Also list every project the key can see (all pages).'
    }
  },
  org_id: {
    typed: 'orgId',
    schema: () => idInput(ORG_ID_PATTERN, 'an organization id such as org-example-12345678'),
    command: { flag: { name: 'org-id' } },
    help: { part: 'what', flags: [['--org-id ORG', 'the organization whose projects to list']] },
    docs: {
      default: '',
      summary: 'Organization to list (a personal key in several)',
      description:
        "Organization whose projects list_projects lists. A personal key must name one on the live API; without it, the key's only organization is used, and a key in several fails with an error listing them."
    }
  }
} as const satisfies Record<string, InputEntry>

function projectsSection(
  format: ReportFormat,
  listing: ProjectListing,
  limits: SummaryLimits
): string[] {
  const { projects, unavailableProjectIds } = listing
  const parts = [
    format.heading(`Projects (${projects.length})`, 3),
    limitedTable(
      format,
      ['Name', 'Id', 'Region', 'Engine version', 'Created'],
      projects,
      { maxRows: limits.projectRows, what: 'projects' },
      (project) => [
        format.text(project.name),
        format.code(project.id),
        format.text(project.region_id),
        project.pg_version != null ? String(project.pg_version) : '',
        formatDate(format, project.created_at)
      ]
    )
  ]
  if (unavailableProjectIds.length > 0) {
    const shown = unavailableProjectIds.slice(0, MAX_UNAVAILABLE_IDS).map(format.code)
    const more = unavailableProjectIds.length - shown.length
    parts.push(
      format.paragraph(
        `Unavailable projects: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
      )
    )
  }
  return parts
}

const PROJECTS_SECTION: ReportSection = {
  phase: 'before-wait',
  unwaitedLine: ({ listing }) => listing && [plural(listing.projects.length, 'project')],
  summary: {
    place: 'below-operations',
    render: (format, { listing }, limits) =>
      listing && limits.projectRows > 0 ? projectsSection(format, listing, limits) : []
  },
  // `projects` is set once the rest is measured (it is cut to fit); its key here keeps the order.
  outputs: ({ listing }) =>
    listing && {
      values: { projects: undefined, project_count: listing.projects.length },
      list: { name: 'projects', items: listing.projects }
    }
}

export const PROJECTS_STEP: Step<{ listProjects: boolean; orgId?: string }> = {
  section: PROJECTS_SECTION,
  help: { usage: '{list_projects} [{org_id}]', ends: [] },
  plan: (draft) => (draft.inputs.listProjects ? draft : undefined),
  run: async (inputs, report, { client, logger }) => {
    report.listing = await client.projects.listProjects(inputs.orgId)
    logger.info(`Found ${plural(report.listing.projects.length, 'project')}`)
    if (report.listing.unavailableProjectIds.length > 0) {
      logger.warning(
        `Some projects are unavailable right now: ${report.listing.unavailableProjectIds.join(', ')}`
      )
    }
    report.outcome = 'success'
  }
}
