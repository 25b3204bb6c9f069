/*
 * Which gate the inputs ask for, decided once from the parsed inputs (the output `gate`, the source
 * of operations, the branch to resolve), and the run's first line after the banner, which says it
 * in words: what is checked, and whether a database is queried.
 */
import type { GateKind } from '../domain/gate-kind.js'
import type { InputNaming } from '../domain/input-naming.js'
import { plural } from '../domain/phrase.js'
import type { Inputs } from './inputs.js'

type GateInputs = Pick<
  Inputs,
  'projectId' | 'operationIds' | 'branchId' | 'before' | 'database' | 'listProjects' | 'orgId'
>

/**
 * The gate the inputs ask for. parseInputs has refused every combination in which an input would
 * be left out to the gate's loss: what is given here is checked.
 */
export function gateKindOf(inputs: GateInputs): GateKind {
  if (!inputs.projectId) return 'projects'
  if (inputs.before) return 'teardown'
  if (inputs.operationIds.length > 0) return 'operations'
  return inputs.branchId ? 'branch' : 'project'
}

/** Whether the run ends with a query of the database: with a gate, and never before a teardown. */
function queriesDatabase(inputs: GateInputs): boolean {
  const kind = gateKindOf(inputs)
  return inputs.database !== undefined && kind !== 'projects' && kind !== 'teardown'
}

/**
 * `Gate: branch preview/pr-12 of project …, its operations and then its readiness, then a query of
 * the database (database_url)`: what this run checks, said before it starts.
 */
export function gateLine(inputs: GateInputs, { mention }: InputNaming): string {
  const kind = gateKindOf(inputs)
  const listed = inputs.orgId ? ` in organization ${inputs.orgId}` : ''
  if (kind === 'projects') {
    return `Gate: none, only a list of the projects the key can see${listed}; no database query`
  }
  const project = `project ${inputs.projectId ?? ''}`
  const what = {
    operations: () =>
      `${inputs.operationIds.length === 1 ? `operation ${inputs.operationIds[0]}` : plural(inputs.operationIds.length, 'operation')} of ${project}`,
    branch: () =>
      `branch ${inputs.branchId ?? ''} of ${project}, its operations and then its readiness`,
    project: () =>
      `the whole ${project}, every operation in flight on any branch (no ${mention('branch_id')})`,
    teardown: () =>
      `before a ${inputs.before ?? ''} of branch ${inputs.branchId ?? ''}, the whole ${project} until it is idle, then whether the branch can go`
  }[kind]()
  const database = queriesDatabase(inputs)
    ? `, then a query of the database (${mention('database_url')})`
    : '; no database query'
  const listing = inputs.listProjects
    ? `; first, a list of the projects the key can see${listed}`
    : ''
  return `Gate: ${what}${database}${listing}`
}
