/*
 * Before a teardown (`before`): the rules that decide whether the API would refuse to delete or
 * reset a branch now (domain/teardown-rules.ts), and the check that reads the branch and
 * every branch of its project once to apply them (steps/teardown/teardown-check.ts), with readers
 * of its own.
 */
import { describe, expect, it } from '@jest/globals'
import { ApiError, InputError } from '../src/domain/errors.js'
import type { RelatedBranch, TeardownBranch } from '../src/domain/schemas.js'
import { judgeTeardown, restrictionCovers } from '../src/domain/teardown-rules.js'
import { NoSuchBranchError } from '../src/wait/branch-resolver.js'
import { checkTeardown, type TeardownReader } from '../src/steps/teardown/teardown-check.js'
import { teardownNotes } from '../src/steps/teardown/teardown-words.js'
import { phraseText } from '../src/domain/phrase.js'

const CHILD_OF_MAIN = { parent_id: 'br-main-1' }
/** The branch with every blocker a branch itself can hold: root, default, protected, restricted. */
const everyBlocker = (restrictions: TeardownBranch['restricted_actions']) =>
  branch({ parent_id: null, default: true, protected: true, restricted_actions: restrictions })

const branch = (fields: Partial<TeardownBranch> = {}): TeardownBranch => ({
  id: 'br-preview-7',
  name: 'preview/pr-7',
  ...CHILD_OF_MAIN,
  ...fields
})
const related = (id: string, parent?: string | null): RelatedBranch => ({
  id,
  name: `name of ${id}`,
  parent_id: parent
})
const reasons = (found: { blockers: { reason: string }[] }) =>
  found.blockers.map((blocker) => blocker.reason)

describe('which restricted_actions stop which teardown', () => {
  it.each([
    ['delete', 'delete', true],
    ['delete-rw-endpoint', 'delete', true],
    ['Delete-Branch', 'delete', true],
    [' delete', 'delete', true],
    ['restore', 'delete', false],
    ['undelete', 'delete', false],
    ['restore', 'reset', true],
    ['reset', 'reset', true],
    ['RESTORE-to-parent', 'reset', true],
    ['delete-rw-endpoint', 'reset', false],
    ['prerestore', 'reset', false],
    ['update', 'reset', false]
  ] as const)('%s covers a %s: %s', (name, action, covers) => {
    expect(restrictionCovers(name, action)).toBe(covers)
  })
})

describe('before a delete', () => {
  it('a child branch that is neither default nor protected, with nothing restricted: clear', () => {
    const judged = judgeTeardown('delete', branch({ default: false, protected: false }), [
      related('br-main-1', null),
      related('br-preview-7', 'br-main-1'),
      related('br-other-8', 'br-main-1')
    ])
    expect(judged).toEqual({ blockers: [], childrenBeforeReset: [], otherRestrictions: [] })
  })

  it('each blocker on its own', () => {
    expect(reasons(judgeTeardown('delete', branch({ parent_id: null }), []))).toEqual(['root'])
    expect(reasons(judgeTeardown('delete', branch({ parent_id: '' }), []))).toEqual(['root'])
    expect(reasons(judgeTeardown('delete', branch({ default: true }), []))).toEqual(['default'])
    expect(reasons(judgeTeardown('delete', branch({ protected: true }), []))).toEqual(['protected'])
    const restricted = [{ name: 'delete-rw-endpoint', reason: 'used by an integration' }]
    expect(judgeTeardown('delete', branch({ restricted_actions: restricted }), [])).toEqual({
      blockers: [{ reason: 'restricted', restrictions: restricted }],
      childrenBeforeReset: [],
      otherRestrictions: []
    })
  })

  it('children: every branch whose parent is this one, on any page, never itself or a grandchild', () => {
    const children = [related('br-a', 'br-preview-7'), related('br-b', 'br-preview-7')]
    const judged = judgeTeardown('delete', branch(), [
      related('br-main-1', null),
      children[0],
      related('br-preview-7', 'br-preview-7'),
      related('br-grandchild', 'br-a'),
      children[1]
    ])
    expect(judged.blockers).toEqual([{ reason: 'children', children }])
  })

  it('everything at once, in the order root, default, protected, children, restricted; other restrictions listed apart', () => {
    const restrictions = [
      { name: 'restore', reason: 'a restore is running' },
      { name: 'delete', reason: 'it is the production branch' }
    ]
    const judged = judgeTeardown('delete', everyBlocker(restrictions), [
      related('br-a', 'br-preview-7')
    ])
    expect(reasons(judged)).toEqual(['root', 'default', 'protected', 'children', 'restricted'])
    expect(judged.blockers.at(-1)).toEqual({
      reason: 'restricted',
      restrictions: [restrictions[1]]
    })
    expect(judged.otherRestrictions).toEqual([restrictions[0]])
    expect(judged.childrenBeforeReset).toEqual([])
  })

  it('older answers: primary: true where default is absent is the default; default, when given, decides', () => {
    const reasonsOf = (fields: Partial<TeardownBranch>) =>
      reasons(judgeTeardown('delete', branch(fields), []))
    expect(reasonsOf({ primary: true })).toEqual(['default'])
    expect(reasonsOf({ default: null, primary: true })).toEqual(['default'])
    expect(reasonsOf({ default: false, primary: true })).toEqual([])
    expect(reasonsOf({ default: true, primary: false })).toEqual(['default'])
    expect(reasonsOf({ primary: false })).toEqual([])
    // A reset does not care which branch is the default.
    expect(reasons(judgeTeardown('reset', branch({ primary: true }), []))).toEqual([])
  })

  it('default, protected and restricted_actions absent or null block nothing', () => {
    const judged = judgeTeardown(
      'delete',
      branch({ default: null, protected: null, restricted_actions: null }),
      []
    )
    expect(judged.blockers).toEqual([])
  })
})

describe('before a reset', () => {
  it.each([
    ['init', true],
    ['resetting', true],
    ['some-new-state', true],
    ['ready', false],
    ['archived', false],
    [undefined, false]
  ])('a branch %s: blocked by its state %s (a delete never is)', (state, blocks) => {
    const judged = judgeTeardown('reset', branch({ current_state: state }), [])
    expect(judged.blockers).toEqual(blocks ? [{ reason: 'state', state }] : [])
    expect(reasons(judgeTeardown('delete', branch({ current_state: state }), []))).toEqual([])
  })

  it('its state is the last blocker, after the others', () => {
    const restrictions = [{ name: 'restore', reason: 'a restore is running' }]
    const judged = judgeTeardown(
      'reset',
      { ...everyBlocker(restrictions), current_state: 'init' },
      []
    )
    expect(reasons(judged)).toEqual(['root', 'protected', 'restricted', 'state'])
  })

  it('root, protected and a restore restriction block it; default does not; children are a warning', () => {
    const children = [related('br-a', 'br-preview-7')]
    const restrictions = [
      { name: 'restore', reason: 'a restore is running' },
      { name: 'delete-rw-endpoint', reason: 'used by an integration' }
    ]
    const judged = judgeTeardown('reset', everyBlocker(restrictions), children)
    expect(reasons(judged)).toEqual(['root', 'protected', 'restricted'])
    expect(judged.childrenBeforeReset).toEqual(children)
    expect(judged.otherRestrictions).toEqual([restrictions[1]])
  })

  it('a default branch with a parent and children: clear, the children a warning', () => {
    const judged = judgeTeardown('reset', branch({ default: true }), [
      related('br-a', 'br-preview-7')
    ])
    expect(judged.blockers).toEqual([])
    expect(judged.childrenBeforeReset.map((child) => child.id)).toEqual(['br-a'])
  })
})

describe('the check: one fresh read of the branch, then every branch of the project', () => {
  const resolved = { id: 'br-preview-7', name: 'preview/pr-7' }
  const input = 'preview/pr-7'
  const ids = { projectId: 'p-1', input }
  /** A reader whose branch read gives `read`; every branch of the project: `family`. */
  const reader = (
    read: (id: string) => Promise<TeardownBranch>,
    family: RelatedBranch[] | (() => Promise<RelatedBranch[]>) = [related('br-main-1', null)]
  ) => {
    const calls: string[] = []
    const fake: TeardownReader = {
      getTeardownBranch: async (projectId, id) => {
        calls.push(`branch ${projectId} ${id}`)
        return read(id)
      },
      getBranch: async (projectId, id) => {
        calls.push(`by id ${projectId} ${id}`)
        return read(id)
      },
      searchBranches: async (projectId, search) => {
        calls.push(`search ${projectId} ${search}`)
        const every = typeof family === 'function' ? await family() : family
        return every.filter((item) => item.name.toLowerCase().includes(search.toLowerCase()))
      },
      listBranches: async (projectId) => {
        calls.push(`list ${projectId}`)
        return { branches: typeof family === 'function' ? await family() : family }
      }
    }
    return { fake, calls }
  }
  const notFound = () =>
    Promise.reject(new ApiError({ status: 404, endpoint: 'GET /x', subject: 'branch' }))

  it('clear and blocked, from what the two reads found', async () => {
    const clear = reader(async () => branch())
    expect(await checkTeardown('delete', resolved, { ...ids, reader: clear.fake })).toEqual({
      action: 'delete',
      preflight: 'clear',
      branch: branch(),
      judgement: { blockers: [], childrenBeforeReset: [], otherRestrictions: [] }
    })
    expect(clear.calls).toEqual(['branch p-1 br-preview-7', 'list p-1'])
    const blocked = reader(async () => branch({ protected: true }))
    const check = await checkTeardown('reset', resolved, { ...ids, reader: blocked.fake })
    expect(check).toMatchObject({ action: 'reset', preflight: 'blocked' })
  })

  it('a list cut short: clear, saying what was not read (a child beyond it makes the API refuse, never a wrong teardown); blockers still block', async () => {
    const cutReader = (protectedBranch: boolean) => {
      const { fake } = reader(async () => branch({ protected: protectedBranch }))
      const listBranches: TeardownReader['listBranches'] = async (projectId, reading) => ({
        ...(await fake.listBranches(projectId, reading)),
        cut: '50 pages'
      })
      return { ...fake, listBranches }
    }
    const cut = await checkTeardown('delete', resolved, { ...ids, reader: cutReader(false) })
    expect(cut).toMatchObject({ preflight: 'clear', unread: '50 pages' })
    const unread =
      "Branch preview/pr-7 (br-preview-7): the project's branch list stopped (50 pages) before its end, so its children among the branches beyond it were not read; "
    expect(teardownNotes(cut).warnings.map(phraseText)).toEqual([
      `${unread}the API refuses to delete a branch that has children, so at worst the delete is refused, never a wrong one`
    ])
    // A blocker that needs no list still blocks, and the list's end is no news then.
    const blocked = await checkTeardown('delete', resolved, { ...ids, reader: cutReader(true) })
    expect(blocked).toMatchObject({ preflight: 'blocked', unread: '50 pages' })
    expect(teardownNotes(blocked).warnings).toEqual([])
    const reset = await checkTeardown('reset', resolved, { ...ids, reader: cutReader(false) })
    expect(reset).toMatchObject({ preflight: 'clear', unread: '50 pages' })
    expect(teardownNotes(reset).warnings.map(phraseText)).toEqual([
      `${unread}the API refuses to reset a branch that has children without preserve_under_name, so at worst the reset is refused`
    ])
    // A list read to its end: nothing unread.
    const whole = await checkTeardown('delete', resolved, {
      ...ids,
      reader: reader(async () => branch()).fake
    })
    expect(whole).not.toHaveProperty('unread')
  })

  it('a branch gone before a delete: gone, once the project answered with its branches', async () => {
    const gone = reader(notFound)
    expect(await checkTeardown('delete', resolved, { ...ids, reader: gone.fake })).toEqual({
      action: 'delete',
      preflight: 'gone',
      branch: resolved
    })
    expect(gone.calls).toEqual(['branch p-1 br-preview-7', 'search p-1 preview/pr-7', 'list p-1'])
  })

  it('the branch read 404 and the project does not answer (404, 403), or lists no branch: never gone', async () => {
    for (const status of [404, 403]) {
      const refusal = new ApiError({ status, endpoint: 'GET /x', subject: 'project' })
      const missing = reader(notFound, () => Promise.reject(refusal))
      await expect(
        checkTeardown('delete', resolved, { ...ids, reader: missing.fake })
      ).rejects.toBe(refusal)
    }
    const empty = reader(notFound, [])
    const checking = checkTeardown('delete', resolved, { ...ids, reader: empty.fake })
    await expect(checking).rejects.toBeInstanceOf(InputError)
    await expect(checking).rejects.toThrow('lists no branch at all')
  })

  it('a branch gone, and another under its name: the other is read and judged', async () => {
    const other = branch({ id: 'br-preview-8', protected: true })
    const renamed = reader(
      (id) => (id === other.id ? Promise.resolve(other) : notFound()),
      [related('br-main-1', null), { ...related('br-preview-8', 'br-main-1'), name: input }]
    )
    const check = await checkTeardown('delete', resolved, { ...ids, reader: renamed.fake })
    expect(check).toMatchObject({ preflight: 'blocked', branch: { id: 'br-preview-8' } })
  })

  it('a branch gone before a reset: an input error naming branch_id', async () => {
    const gone = reader(notFound)
    const checking = checkTeardown('reset', resolved, { ...ids, reader: gone.fake })
    await expect(checking).rejects.toBeInstanceOf(NoSuchBranchError)
    await expect(checking).rejects.toBeInstanceOf(InputError)
    await expect(checking).rejects.toThrow(
      'input "branch_id": project "p-1" has no branch "br-preview-7" any more (preview/pr-7 was deleted while the gate waited); there is nothing to reset'
    )
  })

  it('any other error of the read is no verdict: it ends the gate', async () => {
    const refused = reader(() =>
      Promise.reject(new ApiError({ status: 403, endpoint: 'GET /x', subject: 'branch' }))
    )
    await expect(
      checkTeardown('delete', resolved, { ...ids, reader: refused.fake })
    ).rejects.toBeInstanceOf(ApiError)
  })
})
