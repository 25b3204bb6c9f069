/*
 * examples/deploy-after-gate.yml as written: its gate step's inputs (secrets and variables filled
 * in) run over the bundle, and its deploy job needing the gate's. The recipe says what the gate
 * checks; these cases hold it to that: a failure on the deploy's branch just before the gate stops
 * the deploy, one elsewhere in the project does not, and a branch done and ready lets it go.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import YAML from 'yaml'
import { runAction, serve } from '../support/bundles/action.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

const recipe = YAML.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'deploy-after-gate.yml'), 'utf8')
) as {
  jobs: Record<
    string,
    { needs?: string; if?: string; steps: { id?: string; with?: Record<string, string> }[] }
  >
}

/** The gate step's inputs, its `${{ secrets.* }}` and `${{ vars.* }}` filled in as a repository would. */
function gateInputs(values: Record<string, string>): Record<string, string> {
  const step = recipe.jobs.gate.steps.find((candidate) => candidate.id === 'gate')!
  return Object.fromEntries(
    Object.entries(step.with ?? {}).map(([name, value]) => [
      name,
      String(value).replace(/\$\{\{\s*(?:secrets|vars)\.(\w+)\s*\}\}/g, (_, key: string) => {
        if (!(key in values))
          throw new Error(`the recipe reads ${key}, which the test does not set`)
        return values[key]
      })
    ])
  )
}

const MAIN = 'br-main-000001'

async function deployGate(failure?: { branchId: string }, branchVariable = 'main') {
  const { world, server } = await serve({ history: 10 })
  const now = world.now()
  world.addOperation(PROJECT, {
    action: 'start_compute',
    branchId: MAIN,
    endpointId: 'ep-main-000001',
    createdAt: now - 50_000,
    timeline: [{ status: 'running', ms: 2000 }, { status: 'finished' }]
  })
  if (failure) {
    world.addOperation(PROJECT, {
      action: 'apply_config',
      branchId: failure.branchId,
      endpointId: 'ep-main-000001',
      createdAt: now - 35_000,
      error: 'invalid setting',
      timeline: [{ status: 'running', ms: 5000 }, { status: 'error' }]
    })
  }
  const inputs = gateInputs({
    NEON_API_KEY: KEYS.organization,
    NEON_PROJECT_ID: PROJECT,
    NEON_BRANCH_ID: branchVariable
  })
  return runAction(server, { ...inputs, interval: '1s' })
}

describe('examples/deploy-after-gate.yml: what its gate checks', () => {
  it('the deploy job runs only when the gate job passed', () => {
    expect(recipe.jobs.deploy.needs).toBe('gate')
    expect(recipe.jobs.deploy.if).toBeUndefined()
  })

  it("an apply_config of the deploy's branch that failed 30 s before the gate fails it: no deploy", async () => {
    const run = await deployGate({ branchId: MAIN })
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({
      outcome: 'failure',
      action: 'apply_config',
      error: 'invalid setting'
    })
  })

  it("the deploy's branch done and ready passes, whatever failed on another branch", async () => {
    const run = await deployGate({ branchId: 'br-preview-000009' })
    expect(run.code).toBe(0)
    expect(run.outputs.outcome).toBe('success')
    expect(run.outputs.branch_state).toBe('ready')
  })

  it('NEON_BRANCH_ID unset (the expression comes out empty): an input error, never the project gate that passed over the failure', async () => {
    const run = await deployGate({ branchId: MAIN }, '')
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      '::error::Invalid input: input "branch_id": is empty, what an expression gives for an unset variable or a step output that does not exist'
    )
    expect(run.outputs.outcome).toBeUndefined()
  })
})
