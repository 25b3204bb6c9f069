/*
 * GitHub's REST description (@octokit/openapi's api.github.com.json, read from node_modules) as the
 * contract of the local GitHub API: the calls the pull-request comment makes, trimmed at load time
 * to those paths and what they reference (support/openapi-contract.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type ApiDocument,
  type Contract,
  openApiContract,
  trimDocument
} from '../openapi-contract.ts'

const GITHUB_DESCRIPTION = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'node_modules',
  '@octokit',
  'openapi',
  'generated',
  'api.github.com.json'
)

/**
 * List, create, update and delete issue comments, who the token is, a run attempt's jobs, a pull
 * request (its head; its state, for a sweep), and a commit's statuses (create, list).
 */
const GITHUB_PATHS_USED = {
  '/repos/{owner}/{repo}/pulls/{pull_number}': ['get'],
  '/repos/{owner}/{repo}/statuses/{sha}': ['post'],
  '/repos/{owner}/{repo}/commits/{ref}/statuses': ['get'],
  '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs': ['get'],
  '/repos/{owner}/{repo}/issues/{issue_number}/comments': ['get', 'post'],
  '/repos/{owner}/{repo}/issues/comments/{comment_id}': ['patch', 'delete'],
  '/user': ['get']
}

export async function githubContract(): Promise<Contract> {
  const description = JSON.parse(readFileSync(GITHUB_DESCRIPTION, 'utf8')) as ApiDocument
  const trimmed = trimDocument(description, GITHUB_PATHS_USED)
  nullableEnums(trimmed)
  return openApiContract(trimmed)
}

/**
 * A field the description marks `nullable` with an `enum` (a job's `conclusion`, null while it
 * runs, as GitHub sends it) takes null too: the validator reads the enum alone, without the null
 * that `nullable` adds in OpenAPI 3.0.
 */
function nullableEnums(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(nullableEnums)
  if (value === null || typeof value !== 'object') return
  const schema = value as { nullable?: unknown; enum?: unknown[] }
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) {
    schema.enum = [...schema.enum, null]
  }
  Object.values(value).forEach(nullableEnums)
}
