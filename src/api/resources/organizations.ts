/** The organizations of the key: a personal key's memberships, or the one that owns the key. */
import type { ApiCore } from '../api-core.js'
import { type Organization, OrganizationListSchema } from '../../domain/schemas.js'

export class OrganizationsReader {
  constructor(private readonly core: ApiCore) {}

  async listOrganizations(): Promise<Organization[]> {
    const { organizations } = await this.core.get({
      segments: ['users', 'me', 'organizations'],
      schema: OrganizationListSchema,
      subject: 'the organization list of the key',
      pacing: 'listing'
    })
    return organizations
  }
}
