/** The operations of a project: one read by id, and the list, newest first. */
import type { ApiCore } from '../api-core.js'
import { strangerIn } from '../answers.js'
import { pathOf } from '../api-request.js'
import { type PageWalk, type PageWalkEnd, walkPages } from '../paging.js'
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
      segments: operationsSegments(projectId),
      query: { limit: String(page.limit), cursor: page.cursor },
      schema: OperationListSchema,
      subject: `project "${projectId}"`,
      pacing: 'poll',
      mismatch: (list) => strangerIn(list.operations, projectId, 'operation')
    })
  }
}

const operationsSegments = (projectId: string) => ['projects', projectId, 'operations']

/** The operations list's endpoint, as errors name it. */
export const operationsEndpoint = (projectId: string) =>
  `GET ${pathOf(operationsSegments(projectId), {}).path}`

/** Where the operations list keeps the next page's cursor. */
export const operationsCursor = (page: OperationList) => page.pagination?.cursor

/** The operations list, newest first, walked by `walkPages` from where `readPage` starts. */
export function walkOperations(
  readPage: (cursor: string | undefined) => Promise<OperationList>,
  walk: Pick<PageWalk<OperationList>, 'limit' | 'maxPages' | 'lastPage' | 'onPage'>
): Promise<PageWalkEnd> {
  return walkPages(readPage, {
    ...walk,
    length: (page) => page.operations.length,
    nextCursor: operationsCursor
  })
}
