/*
 * Neon's OpenAPI document (the live API's own description, from the pinned devDependency
 * @neondatabase/api-client, read from node_modules) as the contract of the local API server: the
 * endpoints the action uses, every request and answer checked (support/openapi-contract.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import YAML from 'yaml'
import {
  type ApiDocument,
  type Contract,
  openApiContract,
  trimDocument
} from '../openapi-contract.ts'
import { BASE_PATH } from './routes.ts'

export const NEON_DOCUMENT = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'node_modules',
  '@neondatabase',
  'api-client',
  'public-v2-for-users.gen.yaml'
)

/** Every endpoint the action reads, and so every one the local server serves. */
const NEON_PATHS_USED = {
  '/projects': ['get'],
  '/projects/{project_id}/operations': ['get'],
  '/projects/{project_id}/operations/{operation_id}': ['get'],
  '/projects/{project_id}/branches': ['get'],
  '/projects/{project_id}/branches/{branch_id}': ['get'],
  '/projects/{project_id}/branches/{branch_id}/endpoints': ['get'],
  '/projects/{project_id}/endpoints': ['get'],
  '/users/me/organizations': ['get']
}

export async function neonContract(): Promise<Contract> {
  const document = YAML.parse(readFileSync(NEON_DOCUMENT, 'utf8')) as ApiDocument
  return openApiContract(trimDocument(document, NEON_PATHS_USED), { basePath: BASE_PATH })
}
