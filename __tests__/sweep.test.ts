/*
 * The sweep's domain (issue 69): the pattern `sweep` (`*` within one part of a name, `{pr}` a pull
 * request's number), the age `older_than`, and the verdict on each branch from what was read: its
 * last activity against `older_than`, its pull request's state, never the default, a protected or
 * a root branch, and the blockers a delete would meet.
 */
import { describe, expect, it } from '@jest/globals'
import { z } from 'zod'
import type { RelatedBranch } from '../src/domain/schemas.js'
import { olderThanInput } from '../src/domain/sweep-age.js'
import { matchBranch, type SweepPattern, sweepPatternInput } from '../src/domain/sweep-pattern.js'
import {
  judgeSweep,
  type PullRequestState,
  pullRequestsToRead,
  type SweepFacts
} from '../src/domain/sweep-verdict.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW = Date.parse('2026-12-01T12:00:00Z')
const ago = (ms: number) => new Date(NOW - ms).toISOString()

/** The input parsed as a front end parses it: the value, or its problems. */
function parsed<T>(field: z.ZodType<T, string>, raw: string): T | string[] {
  const result = z.object({ value: field }).safeParse({ value: raw })
  return result.success ? result.data.value : result.error.issues.map((issue) => issue.message)
}

const pattern = (text: string) => parsed(sweepPatternInput, text) as SweepPattern

describe('the pattern', () => {
  it.each([
    ['preview/*', 'preview/pr-12', {}],
    ['preview/*', 'preview/', {}],
    ['preview/*', 'preview/a/b', undefined],
    ['preview/*', 'team/preview/a', undefined],
    ['preview/*', 'Preview/a', undefined],
    ['*/pr-*', 'preview/pr-12', {}],
    ['preview/pr-{pr}', 'preview/pr-12', { pr: 12 }],
    ['preview/pr-{pr}', 'preview/pr-012', undefined],
    ['preview/pr-{pr}', 'preview/pr-0', undefined],
    ['preview/pr-{pr}', 'preview/pr-12a', undefined],
    ['preview/pr-{pr}', 'preview/pr-', undefined],
    ['preview/pr-{pr}', 'preview/pr-999999999', { pr: 999_999_999 }],
    ['preview/pr-{pr}', 'preview/pr-1000000000', undefined],
    ['pr-{pr}-*', 'pr-7-fix', { pr: 7 }],
    ['a.b+(c)', 'a.b+(c)', {}],
    ['a.b+(c)', 'aXb+(c)', undefined],
    ['a.b', 'a.bc', undefined]
  ])('%s against %s: %j', (text, name, expected) => {
    expect(matchBranch(pattern(text), name)).toEqual(expected)
  })

  it('says whether it captures a pull request', () => {
    expect(pattern('preview/*').capturesPr).toBe(false)
    expect(pattern(' preview/pr-{pr} ')).toMatchObject({
      text: 'preview/pr-{pr}',
      capturesPr: true
    })
  })

  it.each([
    ['', 'is empty; give a branch-name pattern (preview/*, preview/pr-{pr})'],
    ['  ', 'is empty; give a branch-name pattern (preview/*, preview/pr-{pr})'],
    ['pr-{pr}-{pr}', '"pr-{pr}-{pr}" holds {pr} 2 times; a branch stands for one pull request'],
    [
      'preview/{PR}',
      '"preview/{PR}" holds a brace that is not {pr}; {pr} (in lower case) is the only placeholder'
    ],
    [
      'preview/{pr',
      '"preview/{pr" holds a brace that is not {pr}; {pr} (in lower case) is the only placeholder'
    ],
    [
      'preview/\u202e*',
      '"preview/\u202e*" holds a control or invisible character, which no branch name has'
    ],
    ['p'.repeat(257), `"${'p'.repeat(257)}" is 257 characters long; a branch name has at most 256`],
    // A * beside {pr} would take some of its digits (pr123 read as #3): the number is ambiguous.
    [
      'preview/pr*{pr}',
      '"preview/pr*{pr}" has a * right beside {pr}, which would take some of its digits; put a character that is no digit between them (preview/pr-{pr})'
    ],
    [
      'preview/pr-{pr}*',
      '"preview/pr-{pr}*" has a * right beside {pr}, which would take some of its digits; put a character that is no digit between them (preview/pr-{pr})'
    ]
  ])('refuses %j', (text, message) => {
    expect(parsed(sweepPatternInput, text)).toEqual([message])
  })
})

describe('older_than', () => {
  it.each([
    ['7d', 7 * DAY],
    [' 36h ', 36 * HOUR],
    ['2w', 14 * DAY],
    ['1.5d', 36 * HOUR],
    ['90m', 90 * 60_000],
    ['60m', HOUR],
    ['3650d', 3650 * DAY],
    ['7D', 7 * DAY]
  ])('%j is %d ms', (text, ms) => {
    expect(parsed(olderThanInput, text)).toBe(ms)
  })

  it.each([
    ['7', 'is not an age'],
    ['7s', 'is not an age'],
    ['-7d', 'is not an age'],
    ['7 days', 'is not an age'],
    ['59m', 'is below the minimum of 1 hour'],
    ['3651d', 'is above the maximum of 3650 days']
  ])('refuses %j', (text, problem) => {
    const problems = parsed(olderThanInput, text) as string[]
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(new RegExp(`^"${text}" ${problem}`))
  })

  it('names the units it takes', () => {
    expect(parsed(olderThanInput, '7')).toEqual([
      '"7" is not an age; use a number with a unit: m (minutes), h (hours), d (days) or w (weeks), as in 7d, 36h, 2w'
    ])
  })
})

const MAIN: RelatedBranch = {
  id: 'br-main',
  name: 'main',
  default: true,
  updated_at: ago(30 * DAY)
}
const branch = (id: string, fields: Partial<RelatedBranch> = {}): RelatedBranch => ({
  id: `br-${id}`,
  name: `preview/pr-${id}`,
  parent_id: 'br-main',
  updated_at: ago(10 * DAY),
  ...fields
})
const facts = (branches: RelatedBranch[], more: Partial<SweepFacts> = {}): SweepFacts => ({
  branches: [MAIN, ...branches],
  computes: [],
  pattern: pattern('preview/pr-{pr}'),
  now: NOW,
  olderThanMs: 7 * DAY,
  ...more
})

describe('the verdict', () => {
  it('stale when the newest of updated_at and its computes’ last_active is older than older_than', () => {
    const verdict = judgeSweep(
      facts(
        [
          branch('1'),
          branch('2'),
          branch('3', { updated_at: ago(7 * DAY) }),
          branch('4', { updated_at: ago(7 * DAY + 1) }),
          branch('5', { updated_at: ago(DAY) })
        ],
        {
          computes: [
            // Active yesterday on an old branch: not stale.
            { branch_id: 'br-2', last_active: ago(DAY) },
            { branch_id: 'br-1', last_active: ago(20 * DAY) },
            { branch_id: 'br-1', last_active: null }
          ]
        }
      )
    )
    expect(verdict.stale).toEqual([
      {
        id: 'br-4',
        name: 'preview/pr-4',
        last_active: ago(7 * DAY + 1),
        reason: 'inactive',
        blockers: []
      },
      {
        id: 'br-1',
        name: 'preview/pr-1',
        last_active: ago(10 * DAY),
        reason: 'inactive',
        blockers: []
      }
    ])
    expect(verdict.undecided).toEqual([])
    expect(verdict.matched).toBe(5)
  })

  it('never the default (or primary), a protected or a root branch, however old', () => {
    const old = { updated_at: ago(400 * DAY) }
    const verdict = judgeSweep(
      facts([
        branch('1', { ...old, default: true }),
        branch('2', { ...old, default: null, primary: true }),
        branch('3', { ...old, protected: true }),
        branch('4', { ...old, parent_id: null }),
        branch('5', { ...old, parent_id: '' }),
        branch('6', { ...old, default: false, primary: true })
      ])
    )
    expect(verdict.stale.map((item) => item.id)).toEqual(['br-6'])
    expect(verdict.matched).toBe(6)
  })

  it('children and restricted deletes are blockers; other restrictions are not', () => {
    const verdict = judgeSweep(
      facts([
        branch('1'),
        branch('2', { parent_id: 'br-1', updated_at: ago(DAY) }),
        branch('3', { restricted_actions: [{ name: 'delete-rw-endpoint', reason: 'in use' }] }),
        branch('4', { restricted_actions: [{ name: 'restore', reason: 'x' }] })
      ])
    )
    expect(verdict.stale.map(({ id, blockers }) => [id, blockers])).toEqual([
      ['br-1', ['children']],
      ['br-3', ['restricted']],
      ['br-4', []]
    ])
  })

  it('with {pr}: closed and merged are stale whatever the age; open is not; unreadable is named', () => {
    const recent = { updated_at: ago(HOUR) }
    const branches = [
      branch('11', recent),
      branch('12', recent),
      branch('13', recent),
      branch('14', recent),
      branch('15', recent),
      branch('16')
    ]
    expect(pullRequestsToRead(facts(branches))).toEqual([11, 12, 13, 14, 15])
    const pullRequests = new Map<number, PullRequestState>([
      [11, 'closed'],
      [12, 'merged'],
      [13, 'open'],
      [14, { unreadable: 'HTTP 404' }]
    ])
    const verdict = judgeSweep(facts(branches, { pullRequests }))
    expect(verdict.stale.map(({ id, reason }) => [id, reason])).toEqual([
      ['br-11', 'pr_closed'],
      ['br-12', 'pr_merged'],
      ['br-16', 'inactive']
    ])
    expect(verdict.undecided).toEqual([
      {
        id: 'br-14',
        name: 'preview/pr-14',
        last_active: ago(HOUR),
        why: 'pull request #14 could not be read: HTTP 404'
      },
      {
        id: 'br-15',
        name: 'preview/pr-15',
        last_active: ago(HOUR),
        why: 'pull request #15 could not be read'
      }
    ])
    // Without the states (the command): age alone decides.
    expect(judgeSweep(facts(branches)).stale.map(({ id }) => id)).toEqual(['br-16'])
  })

  it('a branch whose activity cannot be read is named, not judged; its closed pull request still decides', () => {
    const branches = [
      branch('21', { updated_at: 'yesterday' }),
      branch('22', { updated_at: null }),
      branch('23', { updated_at: null })
    ]
    const verdict = judgeSweep(
      facts(branches, {
        pullRequests: new Map<number, PullRequestState>([
          [21, 'open'],
          [22, 'closed'],
          [23, 'open']
        ])
      })
    )
    expect(verdict.stale).toEqual([
      { id: 'br-22', name: 'preview/pr-22', last_active: null, reason: 'pr_closed', blockers: [] }
    ])
    expect(verdict.undecided.map(({ id, why }) => [id, why])).toEqual([
      ['br-21', 'its activity cannot be read (no updated_at or last_active it can read)'],
      ['br-23', 'its activity cannot be read (no updated_at or last_active it can read)']
    ])
  })

  it('a compute in use now (active, starting, or with a change pending) keeps its branch, however old its times', () => {
    const old = { updated_at: ago(30 * DAY) }
    const verdict = judgeSweep(
      facts([branch('21', old), branch('22', old), branch('23', old), branch('24', old)], {
        computes: [
          { branch_id: 'br-21', last_active: null, current_state: 'active' },
          { branch_id: 'br-22', last_active: ago(20 * DAY), current_state: 'active' },
          { branch_id: 'br-23', last_active: null, current_state: 'init' },
          {
            branch_id: 'br-24',
            last_active: ago(20 * DAY),
            current_state: 'idle',
            pending_state: 'active'
          }
        ]
      })
    )
    expect(verdict.stale).toEqual([])
    expect(verdict.undecided).toEqual([])
    // In use now outweighs a closed or merged pull request: a recipe would delete it in use.
    const closed = judgeSweep(
      facts([branch('21', old), branch('24', old)], {
        computes: [
          { branch_id: 'br-21', last_active: null, current_state: 'active' },
          {
            branch_id: 'br-24',
            last_active: ago(20 * DAY),
            current_state: 'idle',
            pending_state: 'active'
          }
        ],
        pullRequests: new Map<number, PullRequestState>([
          [21, 'closed'],
          [24, 'merged']
        ])
      })
    )
    expect(closed.stale).toEqual([])
    // Idle with nothing pending: its times decide.
    const idle = judgeSweep(
      facts([branch('25', old)], {
        computes: [{ branch_id: 'br-25', last_active: ago(20 * DAY), current_state: 'idle' }]
      })
    )
    expect(idle.stale.map(({ id }) => id)).toEqual(['br-25'])
  })

  it('a branch changing now (being created or reset, or a change pending) is in use, whatever its times or pull request', () => {
    const old = { updated_at: ago(30 * DAY) }
    const verdict = judgeSweep(
      facts(
        [
          branch('31', { ...old, current_state: 'init', pending_state: 'ready' }),
          branch('32', { ...old, current_state: 'resetting' }),
          branch('33', { ...old, current_state: 'ready', pending_state: 'archived' }),
          branch('34', { ...old, current_state: 'ready' }),
          branch('35', { ...old, current_state: 'archived' })
        ],
        { pullRequests: new Map<number, PullRequestState>([[31, 'closed']]) }
      )
    )
    expect(verdict.stale.map(({ id }) => id).sort()).toEqual(['br-34', 'br-35'])
  })

  it.each([
    'garbage',
    'garbage 1',
    'n/a 2024',
    '2026-11-29 junk',
    '1',
    'Sun, 29 Nov 2026 12:00:00 GMT'
  ])(
    'a time it cannot read as the API writes one (%j), beside readable ones, leaves the branch not judged, never stale',
    (text) => {
      const verdict = judgeSweep(
        facts([branch('31', { updated_at: ago(30 * DAY) })], {
          computes: [{ branch_id: 'br-31', last_active: text }]
        })
      )
      expect(verdict.stale).toEqual([])
      expect(verdict.undecided.map(({ id }) => id)).toEqual(['br-31'])
    }
  )

  it('newest activity first; ties by name', () => {
    const verdict = judgeSweep(
      facts(
        [
          branch('31', { updated_at: ago(9 * DAY) }),
          branch('33', { updated_at: ago(8 * DAY) }),
          branch('32', { updated_at: ago(8 * DAY) }),
          branch('34', { updated_at: null })
        ],
        { pullRequests: new Map<number, PullRequestState>([[34, 'merged']]) }
      )
    )
    expect(verdict.stale.map(({ id }) => id)).toEqual(['br-32', 'br-33', 'br-31', 'br-34'])
  })

  it('only names the pattern matches count; others are never looked at', () => {
    const verdict = judgeSweep(
      facts([branch('41', { name: 'feature/x' }), branch('42')], { pattern: pattern('preview/*') })
    )
    expect(verdict.stale.map(({ id }) => id)).toEqual(['br-42'])
    expect(verdict.matched).toBe(1)
  })
})
