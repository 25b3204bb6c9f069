/*
 * Neon's OpenAPI document (the live API's own description, from the pinned devDependency
 * @neondatabase/api-client, read from node_modules) as the contract of the local API server: the
 * endpoints the action uses, every request and answer checked (support/openapi-contract.ts).
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import YAML from 'yaml'
import {
  type ApiDocument,
  type Contract,
  openApiContract,
  trimDocument
} from '../openapi-contract.ts'
import { BASE_PATH } from './routes.ts'

const NODE_MODULES = join(import.meta.dirname, '..', '..', '..', 'node_modules')

export const NEON_DOCUMENT = join(
  NODE_MODULES,
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

/**
 * Where parsed copies of the document are kept between test files and runs: its 430 KB of YAML
 * take 0.43 CPU-seconds to parse and its JSON 3 ms (2026-11-30), and five test files read it.
 */
const PARSED_CACHE = join(NODE_MODULES, '.cache', 'neon-gate-tests')

/** The YAML parser's version: another parser may read the same text otherwise. */
const YAML_VERSION = (
  JSON.parse(readFileSync(join(NODE_MODULES, 'yaml', 'package.json'), 'utf8')) as {
    version: string
  }
).version

/** Where the parsed copy of the document `text` is kept: named by its digest and the parser's. */
export const parsedCopyOf = (text: string) =>
  join(
    PARSED_CACHE,
    `openapi-${createHash('sha256').update(YAML_VERSION).update(text).digest('hex')}.json`
  )

/**
 * Neon's OpenAPI document, parsed: from its JSON copy when there is one (a changed document or
 * parser has another name, never a stale copy), or parsed and the copy written, whole (renamed
 * into place: a worker beside this one reads it whole or not at all).
 */
export function neonDocument(): ApiDocument {
  const text = readFileSync(NEON_DOCUMENT, 'utf8')
  const copy = parsedCopyOf(text)
  try {
    return JSON.parse(readFileSync(copy, 'utf8')) as ApiDocument
  } catch {
    // No copy yet, or one cut short: parsed again below.
  }
  const document = YAML.parse(text) as ApiDocument
  try {
    mkdirSync(PARSED_CACHE, { recursive: true })
    const partial = `${copy}.${process.pid}-${Math.random().toString(36).slice(2)}`
    writeFileSync(partial, JSON.stringify(document))
    renameSync(partial, copy)
  } catch {
    // A node_modules this user cannot write: parsed at each read, only slower.
  }
  return document
}

export async function neonContract(): Promise<Contract> {
  const document = neonDocument()
  return openApiContract(trimDocument(document, NEON_PATHS_USED), { basePath: BASE_PATH })
}
