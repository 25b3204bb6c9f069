/** The computes of a whole project, with when each was last active: what a sweep reads of use. */
import type { ApiCore } from '../api-core.js'
import { strangerIn } from '../answers.js'
import { type ProjectCompute, ProjectComputeListSchema } from '../../domain/schemas.js'

export class ComputesReader {
  constructor(private readonly core: ApiCore) {}

  /**
   * Every compute of the project (`GET /projects/{id}/endpoints`: one list, not paged, as Neon's
   * OpenAPI document has it), each of that project and naming its branch.
   */
  async listProjectComputes(projectId: string): Promise<ProjectCompute[]> {
    const { endpoints } = await this.core.get({
      segments: ['projects', projectId, 'endpoints'],
      schema: ProjectComputeListSchema,
      subject: `the compute list of project "${projectId}"`,
      pacing: 'poll',
      mismatch: (list) => strangerIn(list.endpoints, projectId, 'compute')
    })
    return endpoints
  }
}
