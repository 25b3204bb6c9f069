/*
 * Which gate a run is (the output `gate`) and the line that says it in words after the banner,
 * with whether a database is queried, in each front end's spelling (issue 58).
 */
import { describe, expect, it } from '@jest/globals'
import { parseCommandLine } from '../src/command/flags.js'
import { CONTRACT_NAMING } from '../src/domain/input-naming.js'
import { gateLine } from '../src/gate/gate-line.js'
import { planOf } from '../src/gate/plan.js'
import { parseInputs } from '../src/gate/inputs.js'
import { OP_A, OP_B, PROJECT } from './support/neon/ids.js'

const URL = 'postgresql://app:pw@127.0.0.1/app?sslmode=disable'

const parsed = (values: Record<string, string>) =>
  parseInputs((name) => ({ api_key: 'k', ...values })[name], CONTRACT_NAMING)

describe('the plan’s gate and gateLine', () => {
  it.each([
    [
      { project_id: PROJECT, operation_id: OP_A },
      'operations',
      `Gate: operation ${OP_A} of project ${PROJECT}; no database query`
    ],
    [
      { project_id: PROJECT, operation_id: `${OP_A},${OP_B}`, database_url: URL },
      'operations',
      `Gate: 2 operations of project ${PROJECT}, then a query of the database (database_url)`
    ],
    [
      { project_id: PROJECT, branch_id: 'preview/pr-12', database_url: URL },
      'branch',
      `Gate: branch preview/pr-12 of project ${PROJECT}, its operations and then its readiness, then a query of the database (database_url)`
    ],
    [
      { project_id: PROJECT },
      'project',
      `Gate: the whole project ${PROJECT}, every operation in flight on any branch (no branch_id); no database query`
    ],
    [
      { project_id: PROJECT, branch_id: 'main', before: 'delete', database_url: URL },
      'teardown',
      `Gate: before a delete of branch main, the whole project ${PROJECT} until it is idle, then whether the branch can go; no database query`
    ],
    [
      { project_id: PROJECT, list_projects: 'true', org_id: 'org-1' },
      'project',
      `Gate: the whole project ${PROJECT}, every operation in flight on any branch (no branch_id); no database query; first, a list of the projects the key can see in organization org-1`
    ],
    [
      { list_projects: 'true' },
      'projects',
      'Gate: none, only a list of the projects the key can see; no database query'
    ]
  ])('%j: %s', (values, kind, line) => {
    const plan = planOf(parsed(values))
    expect(plan.gate).toBe(kind)
    expect(gateLine(plan, CONTRACT_NAMING)).toBe(line)
  })

  it('the command names its flags', () => {
    const parsedCommand = parseCommandLine(['--project-id', PROJECT, '--database-url', URL], {})
    if (!('request' in parsedCommand)) throw new Error('not a request')
    const { values, naming } = parsedCommand.request
    const inputs = parseInputs((name) => ({ ...values, api_key: 'k' })[name], naming)
    expect(gateLine(planOf(inputs), naming)).toBe(
      `Gate: the whole project ${PROJECT}, every operation in flight on any branch (no --branch-id), then a query of the database (--database-url)`
    )
  })
})
