/*
 * The one operation builder: an operation as the local API server words it (api-json.ts's
 * operationJson, so every field the live API sends), for the tests that hand the code an operation
 * without a server. Fields given in the API's names replace the world's, the odd ones too (a
 * created_at that is no time, a missing action): what a hostile answer would hold.
 */
import type { Operation } from '../../../src/domain/schemas.js'
import { MAIN_BRANCH, MAIN_ENDPOINT, PROJECT } from './ids.ts'
import { operationJson } from './api-json.ts'

/** When the builder's operations were created, unless a test says otherwise. */
const CREATED_AT = '2026-11-21T11:59:00Z'

let sequence = 0

/** An operation of PROJECT on the main branch: start_compute, running, unless `fields` say so. */
export function operation(fields: Partial<Operation> & Record<string, unknown> = {}): Operation {
  sequence++
  const createdAt = Date.parse(CREATED_AT)
  const json = operationJson(
    {
      id: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
      projectId: PROJECT,
      branchId: MAIN_BRANCH,
      endpointId: MAIN_ENDPOINT,
      action: 'start_compute',
      createdAt,
      timeline: [{ status: typeof fields.status === 'string' ? fields.status : 'running' }]
    },
    createdAt
  )
  return { ...json, ...fields } as Operation
}
