/*
 * What stands for the project gate's history beyond its first read (project-state.ts), read by
 * read: nothing to read when the first read was the whole list on one page; otherwise the state is
 * read when the operations are final, and read again only while it keeps the gate open; a compute
 * is left to its operations only when the first page holds one newer than that page's end.
 * Through the gate over the local API server: simulated/authority.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import type { PageWalkEnd } from '../src/api/paging.js'
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
function projectState(
  answers: ProjectCompute[][],
  aside?: string,
  branchState = 'ready',
  cut?: string
) {
  const reads: string[] = []
  const state = new ProjectState(
    'prj-state-000065',
    {
      listProjectComputes: async () => {
        reads.push('computes')
        return answers[
          Math.min(reads.filter((read) => read === 'computes').length, answers.length) - 1
        ]
      },
      listBranches: async () => {
        reads.push('branches')
        return {
          branches: [{ id: 'br-main-000001', name: 'main', current_state: branchState }],
          cut
        }
      }
    },
    aside
  )
  return { state, reads }
}

const iso = (ms: number) => new Date(ms).toISOString()
const T = Date.parse('2026-11-21T12:00:00Z')
const on = (endpoint: string | null, atMs: number) =>
  operation({ endpoint_id: endpoint, created_at: iso(T + atMs), status: 'finished' })

describe('ProjectState: when the state is read', () => {
  it('a first read that was the whole list, on one page, reads no state', async () => {
    const { state, reads } = projectState([[compute('ep-a', 'init', 'active')]])
    state.page([on('ep-b', 0)])
    state.ended('last page')
    await state.readAgain()
    expect(reads).toEqual([])
    expect(state.unsettled).toBeUndefined()
  })

  it.each<PageWalkEnd>(['last page', 'stopped', 'page cap', 'repeated cursor'])(
    'a first read over two pages that ended so (%s): the state decides (a tie at the page end may hide one)',
    async (end) => {
      const { state, reads } = projectState([[compute('ep-a', 'init', 'active')]])
      state.page([on('ep-b', 1)])
      state.page([on('ep-b', 0)])
      state.ended(end)
      await state.readAgain()
      expect(reads).toEqual(['computes'])
      expect(state.unsettled).toContain('compute ep-a is init, pending active')
    }
  )

  it('a first read that stopped on its first page, short of the list’s end: the state decides', async () => {
    const { state, reads } = projectState([[compute('ep-a', 'idle')]])
    state.page([on('ep-b', 0)])
    state.ended('stopped')
    await state.readAgain()
    expect(reads).toEqual(['computes', 'branches'])
  })

  it('once the state shows everything settled, it is not read again', async () => {
    const { state, reads } = projectState([[compute('ep-a', 'idle')]])
    state.ended('page cap')
    await state.readAgain()
    await state.readAgain()
    expect(reads).toEqual(['computes', 'branches'])
  })

  it('while it keeps the gate open, it is read again, until it settles', async () => {
    const { state, reads } = projectState([
      [compute('ep-a', 'init', 'active')],
      [compute('ep-a', 'active')]
    ])
    state.ended('page cap')
    await state.readAgain()
    expect(state.unsettled).toContain('compute ep-a is init, pending active')
    await state.readAgain()
    await state.readAgain()
    expect(reads).toEqual(['computes', 'computes', 'branches'])
    expect(state.unsettled).toBeUndefined()
  })
})

describe('ProjectState: which computes the first read reached', () => {
  it('a compute of the first page newer than its end is left to its operations, whatever its state', async () => {
    const { state } = projectState([[compute('ep-a', 'init', 'active')]])
    state.page([on('ep-a', 2), on(null, 1), on('ep-c', 0)])
    state.page([on('ep-d', -1)])
    state.ended('page cap')
    await state.readAgain()
    expect(state.unsettled).toBeUndefined()
  })

  it('one whose newest operation read ends the first page is not: one tied with it may be on neither page', async () => {
    const { state } = projectState([[compute('ep-a', 'idle'), compute('ep-b', 'init', 'active')]])
    state.page([on('ep-a', 1), on('ep-b', 0)])
    state.page([on('ep-a', -1)])
    state.ended('last page')
    await state.readAgain()
    expect(state.unsettled).toContain('compute ep-b is init, pending active')
  })

  it('nor one of a later page, nor any when the first page’s end has no time to read', async () => {
    for (const first of [
      [on('ep-x', 1), on('ep-y', 0)],
      [on('ep-b', 1), operation({ created_at: 'no time' })]
    ]) {
      const { state } = projectState([[compute('ep-b', 'init', 'active')]])
      state.page(first)
      state.page([on('ep-b', -1)])
      state.ended('last page')
      await state.readAgain()
      expect(state.unsettled).toContain('compute ep-b is init, pending active')
    }
  })

  it('read whole on one page, every compute listed is left to its operations, the last one’s too', async () => {
    const { state, reads } = projectState([[compute('ep-b', 'init', 'active')]])
    state.page([on('ep-a', 1), on('ep-b', 0)])
    state.ended('last page')
    await state.readAgain()
    expect(reads).toEqual([])
  })
})

describe('ProjectState: the branch a teardown removes decides nothing', () => {
  it('neither its own state nor its computes’ keep the gate open; another branch’s would', async () => {
    const aside = projectState([[compute('ep-a', 'init', 'active')]], 'br-main-000001', 'init')
    aside.state.ended('page cap')
    await aside.state.readAgain()
    expect(aside.state.unsettled).toBeUndefined()
    const other = projectState([[compute('ep-a', 'idle')]], 'br-other-000002', 'init')
    other.state.ended('page cap')
    await other.state.readAgain()
    expect(other.state.unsettled).toContain('branch main (br-main-000001) is')
  })
})

describe('ProjectState: a branch list cut at its cap', () => {
  it('says what the state check did not judge; a whole list says nothing', async () => {
    const cut = projectState([[compute('ep-a', 'idle')]], undefined, 'ready', '50 pages')
    cut.state.ended('page cap')
    await cut.state.readAgain()
    expect(cut.state.unsettled).toBeUndefined()
    expect(cut.state.notJudged).toBe(
      'Project gate: its state check read 1 branch and stopped there (50 pages): a branch beyond them still changing was not judged'
    )
    const whole = projectState([[compute('ep-a', 'idle')]])
    whole.state.ended('page cap')
    await whole.state.readAgain()
    expect(whole.state.notJudged).toBeUndefined()
  })
})
