/**
 * The projects the key can see, every page. A personal key must name its organization (`org_id`)
 * on the live API; without one, the key's organizations are read and the only one is used.
 */
import type { ApiCore } from '../api-core.js'
import { ApiError, InputError, WordedError } from '../../domain/errors.js'
import type { Logger } from '../../domain/logger.js'
import { walkPages } from '../paging.js'
import { type Organization, type Project, ProjectListSchema } from '../../domain/schemas.js'
import { truncate } from '../../domain/untrusted-text.js'
import type { OrganizationsReader } from './organizations.js'

/** The live API accepts 1-400 projects per page (default 10). */
export const PROJECTS_PAGE_LIMIT = 400
/** At most this many pages of projects (20,000 projects), with a warning if reached. */
const MAX_PROJECT_PAGES = 50
/** How many organizations an error lists. */
const MAX_LISTED_ORGANIZATIONS = 10

export interface ProjectListing {
  projects: Project[]
  unavailableProjectIds: string[]
  /** The organization listed, when the action had to find it (a personal key without org_id). */
  organization?: Organization
}

export class ProjectsReader {
  constructor(
    private readonly core: ApiCore,
    private readonly organizations: OrganizationsReader,
    private readonly logger: Logger
  ) {}

  async listProjects(orgId?: string): Promise<ProjectListing> {
    try {
      return await this.listPages(orgId)
    } catch (error) {
      if (orgId || !(error instanceof ApiError)) throw error
      // A refusal of the API's (exit code 3), whose cause the answer does not say: a hint only.
      if (error.status === 403) {
        throw new WordedError(
          (naming) =>
            `${error.worded(naming)}. If the key is project-scoped, list the projects with an organization key or a personal key; a personal key may need ${naming.mention('org_id')}`
        )
      }
      if (error.status !== 400 || !/org_id/.test(error.apiMessage ?? '')) throw error
      const organization = await this.onlyOrganization(error)
      this.logger.info(
        `A personal key must name its organization: listing the projects of its only one, ${truncate(organization.name ?? '', 80)} (${organization.id})`
      )
      return { ...(await this.listPages(organization.id)), organization }
    }
  }

  /** The key's one organization; an input error naming `org_id` when it has several. */
  private async onlyOrganization(refusal: ApiError): Promise<Organization> {
    const explained = (why: string) =>
      new WordedError(
        (naming) =>
          `${refusal.worded(naming)}. The key must name its organization (${naming.label('org_id')}), and ${why}`
      )
    let organizations: Organization[]
    try {
      organizations = await this.organizations.listOrganizations()
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      throw explained(`reading its organizations failed: ${error.message}`)
    }
    if (organizations.length === 1) return organizations[0]
    if (organizations.length === 0) throw explained('the key belongs to no organization')
    const listed = organizations
      .slice(0, MAX_LISTED_ORGANIZATIONS)
      .map(
        (organization) =>
          `${organization.id} (${JSON.stringify(truncate(organization.name ?? '', 60))})`
      )
    if (organizations.length > MAX_LISTED_ORGANIZATIONS) {
      listed.push(`and ${organizations.length - MAX_LISTED_ORGANIZATIONS} more`)
    }
    throw new InputError(
      ({ label, mention }) =>
        `${label('org_id')}: required, because the key belongs to ${organizations.length} organizations: ${listed.join(', ')}; set ${mention('org_id')} to one of them`
    )
  }

  private async listPages(orgId?: string): Promise<ProjectListing> {
    const projects = new Map<string, Project>()
    const unavailable = new Set<string>()
    const end = await walkPages(
      (cursor) =>
        this.core.get({
          segments: ['projects'],
          query: { limit: String(PROJECTS_PAGE_LIMIT), cursor, org_id: orgId },
          schema: ProjectListSchema,
          subject: orgId ? `the project list of organization "${orgId}"` : 'the list of projects',
          pacing: 'listing'
        }),
      {
        limit: PROJECTS_PAGE_LIMIT,
        maxPages: MAX_PROJECT_PAGES,
        length: (page) => page.projects.length,
        nextCursor: (page) => page.pagination?.cursor,
        lastPage: 'short',
        onPage: (page) => {
          for (const project of page.projects) projects.set(project.id, project)
          for (const id of page.unavailable_project_ids ?? []) unavailable.add(id)
        }
      }
    )
    if (end === 'page cap') {
      this.logger.warning(
        `Listed the first ${MAX_PROJECT_PAGES} pages of projects only (${projects.size} projects)`
      )
    } else if (end === 'repeated cursor') {
      this.logger.warning(
        `The API handed out a page cursor it had given before; stopped listing at ${projects.size} projects`
      )
    } else if (end === 'no cursor') {
      this.logger.warning(
        `The API gave a full page without a cursor to read on from; stopped listing at ${projects.size} projects`
      )
    }
    return { projects: [...projects.values()], unavailableProjectIds: [...unavailable] }
  }
}
