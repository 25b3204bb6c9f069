/*
 * The run's first line after the banner: which gate the plan runs, in words: what is checked, and
 * whether a database is queried.
 */
import type { InputNaming } from '../domain/input-naming.js'
import { plural } from '../domain/phrase.js'
import { type GatePlan, queriesDatabase } from './plan.js'

/**
 * `Gate: branch preview/pr-12 of project …, its operations and then its readiness, then a query of
 * the database (database_url)`: what this run checks, said before it starts.
 */
export function gateLine(plan: GatePlan, { mention }: InputNaming): string {
  const { inputs, wait } = plan
  const listed = inputs.orgId ? ` in organization ${inputs.orgId}` : ''
  if (plan.gate === 'projects') {
    return `Gate: none, only a list of the projects the key can see${listed}; no database query`
  }
  const project = `project ${inputs.projectId ?? ''}`
  if (plan.gate === 'sweep') {
    return `Gate: a sweep of ${project}, every branch that matches ${inputs.sweep?.text ?? ''}, for those stale; no wait, no database query`
  }
  const what = {
    operations: () =>
      `${inputs.operationIds.length === 1 ? `operation ${inputs.operationIds[0]}` : plural(inputs.operationIds.length, 'operation')} of ${project}`,
    branch: () =>
      `branch ${inputs.branchId ?? ''} of ${project}, its operations and then its readiness`,
    project: () =>
      `the whole ${project}, every operation in flight on any branch (no ${mention('branch_id')})`,
    'idle project': () =>
      `${wait.idle?.for ?? ''} of branch ${inputs.branchId ?? ''}, the whole ${project} until it is idle, then ${wait.idle?.then ?? ''}`
  }[wait.covers]()
  const database = queriesDatabase(plan)
    ? `, then a query of the database (${mention('database_url')})`
    : '; no database query'
  const listing = inputs.listProjects
    ? `; first, a list of the projects the key can see${listed}`
    : ''
  return `Gate: ${what}${database}${listing}`
}
