/** The operations of a project: one read by id, and the list, newest first. */
import type { ApiCore } from '../api-core.js'
import { strangerIn } from '../answers.js'
import {
  type Operation,
  type OperationList,
  OperationListSchema,
  OperationResponseSchema
} from '../../domain/schemas.js'

export class OperationsReader {
  constructor(private readonly core: ApiCore) {}

  /** One operation; the answer must be that operation of that project. */
  async getOperation(projectId: string, operationId: string): Promise<Operation> {
    const { operation } = await this.core.get({
      segments: ['projects', projectId, 'operations', operationId],
      schema: OperationResponseSchema,
      subject: `operation "${operationId}" of project "${projectId}"`,
      pacing: 'poll',
      mismatch: ({ operation }) =>
        operation.id.toLowerCase() !== operationId.toLowerCase()
          ? `the answer is operation "${operation.id}", not the one asked for`
          : strangerIn([operation], projectId, 'operation')
    })
    return operation
  }

  /** One page of the project's operations, newest first; each must belong to the project. */
  listOperations(
    projectId: string,
    page: { limit: number; cursor?: string }
  ): Promise<OperationList> {
    return this.core.get({
      segments: ['projects', projectId, 'operations'],
      query: { limit: String(page.limit), cursor: page.cursor },
      schema: OperationListSchema,
      subject: `project "${projectId}"`,
      pacing: 'poll',
      mismatch: (list) => strangerIn(list.operations, projectId, 'operation')
    })
  }
}

/** Where the operations list keeps the next page's cursor. */
export const operationsCursor = (page: OperationList) => page.pagination?.cursor
