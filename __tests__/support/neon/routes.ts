/*
 * The routes of the local API server, and what it answers to an authenticated request of one, as
 * the live API does, with the key's scope checked: the key's organizations, one operation, one
 * branch, a branch's or a project's computes (not paged, as the live API lists them); the paged
 * lists (projects, a project's operations, the branch search) are lists.ts. The rest
 * (keys, limits, faults, the log) is handler.ts.
 */
import { branchJson, computeJson, operationJson, organizationJson } from './api-json.ts'
import { type Answer, errorBody } from './answers.ts'
import { listBranches, listOperations, listProjects } from './lists.ts'
import type { ApiKey } from './records.ts'
import type { World } from './world.ts'

export const BASE_PATH = '/api/v2'

export type Route =
  | 'projects'
  | 'operations'
  | 'operation'
  | 'branches'
  | 'branch'
  | 'computes'
  | 'project-computes'
  | 'organizations'

/** The answer to `route` (with its path `params` and `query`) for an authenticated `key`. */
export function answerRoute(
  world: World,
  key: ApiKey,
  route: Route,
  params: string[],
  query: Record<string, string>
): Answer {
  if (route === 'projects') return listProjects(world, key, query)
  if (route === 'organizations') {
    // A personal key's organizations; the one that owns an organization or project key.
    const organizations = key.orgIds.flatMap((id) => world.organizations.get(id) ?? [])
    return { status: 200, body: { organizations: organizations.map(organizationJson) } }
  }

  const project = world.project(params[0])
  if (!project) return { status: 404, body: errorBody(`project ${params[0]} not found`) }
  const reachable =
    key.type === 'project' ? key.projectId === project.id : key.orgIds.includes(project.orgId)
  if (!reachable) return { status: 403, body: errorBody('you do not have access to this project') }
  if (route === 'branch') return readBranch(world, project.id, params[1])
  if (route === 'computes') return listComputes(world, project.id, params[1])
  if (route === 'project-computes') {
    const computes = world.branchesOf(project.id).flatMap((branch) => world.computesOf(branch))
    return { status: 200, body: { endpoints: computes.map(computeJson) } }
  }
  if (route === 'branches') return listBranches(world, project.id, query)
  if (route === 'operation') {
    const operation = world.operation(project.id, params[1])
    if (!operation) return { status: 404, body: errorBody(`operation ${params[1]} not found`) }
    world.observe(project.id, [operation])
    world.read([operation])
    return { status: 200, body: { operation: operationJson(operation, world.now()) } }
  }
  return listOperations(world, project.id, query)
}

/** One branch, read alone: its scripted state moves on (world.ts's readBranch). */
function readBranch(world: World, projectId: string, id: string): Answer {
  const branch = world.branchesOf(projectId).find((item) => item.id === id)
  if (!branch) return { status: 404, body: errorBody(`branch ${id} not found`) }
  return {
    status: 200,
    body: {
      branch: branchJson(world.readBranch(branch)),
      annotation: { object: { type: 'console/branch', id: branch.id }, value: {} }
    }
  }
}

/** A branch's computes (`GET …/branches/{id}/endpoints`), one list, as the live API lists them. */
function listComputes(world: World, projectId: string, id: string): Answer {
  const branch = world.branchesOf(projectId).find((item) => item.id === id)
  if (!branch) return { status: 404, body: errorBody(`branch ${id} not found`) }
  return { status: 200, body: { endpoints: world.computesOf(branch).map(computeJson) } }
}

export function matchRoute(path: string): [Route | undefined, string[]] {
  if (!path.startsWith(`${BASE_PATH}/`)) return [undefined, []]
  const segments = path
    .slice(BASE_PATH.length + 1)
    .split('/')
    .map(decodeURIComponent)
  if (segments.length === 1 && segments[0] === 'projects') return ['projects', []]
  if (segments.join('/') === 'users/me/organizations') return ['organizations', []]
  if (segments.length === 3 && segments[0] === 'projects' && segments[2] === 'operations')
    return ['operations', [segments[1]]]
  if (segments.length === 4 && segments[0] === 'projects' && segments[2] === 'operations') {
    return ['operation', [segments[1], segments[3]]]
  }
  if (segments.length === 3 && segments[0] === 'projects' && segments[2] === 'endpoints')
    return ['project-computes', [segments[1]]]
  if (segments.length === 3 && segments[0] === 'projects' && segments[2] === 'branches')
    return ['branches', [segments[1]]]
  if (segments.length === 4 && segments[0] === 'projects' && segments[2] === 'branches')
    return ['branch', [segments[1], segments[3]]]
  if (segments.length === 5 && segments[0] === 'projects' && segments[4] === 'endpoints') {
    if (segments[2] === 'branches') return ['computes', [segments[1], segments[3]]]
  }
  return [undefined, []]
}
