/*
 * The example workflows (examples/*.yml) as their tests read them: parsed, their jobs and steps
 * typed with the keys the tests look at.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { root } from '../bundles/recipes.js'

/** A step; `Value`, what its `with:` holds (YAML's numbers and booleans where a test keeps them). */
export interface WorkflowStep<Value = string> {
  id?: string
  name?: string
  uses?: string
  if?: string
  run?: string
  env?: Record<string, string>
  with?: Record<string, Value>
}

export interface WorkflowJob {
  needs?: string | string[]
  if?: string
  permissions?: Record<string, string>
  outputs?: Record<string, string>
  strategy?: { matrix: Record<string, string>; 'max-parallel'?: number; 'fail-fast'?: boolean }
  steps: WorkflowStep[]
}

export interface Workflow {
  name: string
  on?: unknown
  permissions?: Record<string, string>
  concurrency?: Record<string, unknown>
  jobs: Record<string, WorkflowJob>
}

/** examples/`file`, parsed. */
export const exampleWorkflow = (file: string): Workflow =>
  parse(readFileSync(join(root, 'examples', file), 'utf8')) as Workflow
