/*
 * What stands for the project gate's history beyond its first read (project-state.ts), read by
 * read: nothing to read when the first read got to the list's end; once it stopped short, the
 * state is read when the operations are final, and read again only while it keeps the gate open.
 * Through the gate over the local API server: simulated/authority.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import type { ProjectCompute } from '../src/domain/schemas.js'
import { ProjectState } from '../src/wait/project-state.js'
import { operation } from './support/neon/operations.js'

const compute = (id: string, current: string, pending?: string): ProjectCompute => ({
  id,
  branch_id: 'br-main-000001',
  current_state: current,
  pending_state: pending
})

/** A project's state, read from `answers` in turn (the last one repeats); counts the reads. */
function projectState(answers: ProjectCompute[][]) {
  const reads: string[] = []
  const state = new ProjectState('prj-state-000065', {
    listProjectComputes: async () => {
      reads.push('computes')
      return answers[
        Math.min(reads.filter((read) => read === 'computes').length, answers.length) - 1
      ]
    },
    listBranches: async () => {
      reads.push('branches')
      return { branches: [{ id: 'br-main-000001', name: 'main', current_state: 'ready' }] }
    }
  })
  return { state, reads }
}

describe('ProjectState: when the state is read', () => {
  it('a first read that got to the list’s end reads no state', async () => {
    const { state, reads } = projectState([[compute('ep-a', 'init', 'active')]])
    state.ended(false)
    await state.readAgain()
    expect(reads).toEqual([])
    expect(state.unsettled).toBeUndefined()
  })

  it('once the state shows everything settled, it is not read again', async () => {
    const { state, reads } = projectState([[compute('ep-a', 'idle')]])
    state.ended(true)
    await state.readAgain()
    await state.readAgain()
    expect(reads).toEqual(['computes', 'branches'])
  })

  it('while it keeps the gate open, it is read again, until it settles', async () => {
    const { state, reads } = projectState([
      [compute('ep-a', 'init', 'active')],
      [compute('ep-a', 'active')]
    ])
    state.ended(true)
    await state.readAgain()
    expect(state.unsettled).toContain('compute ep-a is init, pending active')
    await state.readAgain()
    await state.readAgain()
    expect(reads).toEqual(['computes', 'computes', 'branches'])
    expect(state.unsettled).toBeUndefined()
  })

  it('a compute whose operations the first read reached is left to them, whatever its state', async () => {
    const { state } = projectState([[compute('ep-a', 'init', 'active')]])
    state.note(operation({ endpoint_id: 'ep-a' }))
    state.note(operation({ endpoint_id: null }))
    state.ended(true)
    await state.readAgain()
    expect(state.unsettled).toBeUndefined()
  })
})
