/*
 * What a sweep reads (issue 69), over the real HTTP transport against the local API server held to
 * Neon's OpenAPI document: every branch of the project with what the verdict judges (`default`,
 * `protected`, `parent_id`, `updated_at`, `restricted_actions`), every page, and the project's
 * computes with `last_active` (GET /projects/{id}/endpoints); then the verdict on the demo's stale
 * previews.
 */
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals'
import { ApiClient } from '../src/api/api-client.js'
import { httpGet } from '../src/api/http-transport.js'
import { Pace } from '../src/api/pace.js'
import { RetryPolicy } from '../src/api/retry-policy.js'
import { ResponseFormatError } from '../src/domain/errors.js'
import type { Logger } from '../src/domain/logger.js'
import { sweepPatternInput } from '../src/domain/sweep-pattern.js'
import { judgeSweep, type SweepFacts } from '../src/domain/sweep-verdict.js'
import { Redactor } from '../src/domain/untrusted-text.js'
import { neonContract } from './support/neon/contract.js'
import type { ApiHandler } from './support/neon/handler.js'
import { KEYS, MAIN_BRANCH, MAIN_ENDPOINT, PROJECT } from './support/neon/ids.js'
import { API_HOST, nockWorld } from './support/neon/nock.js'
import { addStalePreviews } from './support/neon/stale-branches.js'
import { withoutNetwork } from './support/nock.js'
import type { Contract } from './support/openapi-contract.js'
import { FakeClock } from './support/time/clock.js'

const DAY = 86_400_000
const lines: string[] = []
const logger: Logger = {
  info: (message) => lines.push(message),
  warning: (message) => lines.push(message),
  notice: (message) => lines.push(message),
  debug: () => undefined
}

let contract: Contract
let api: ApiHandler | undefined
beforeAll(async () => {
  contract = await neonContract()
})
withoutNetwork(() => {
  lines.length = 0
})
afterEach(() => {
  expect(api?.violations ?? []).toEqual([])
  api = undefined
})

function setup() {
  const clock = new FakeClock()
  const found = nockWorld(clock, { contract, limits: { perSecondPerRoute: Infinity } })
  api = found.api
  const client = new ApiClient({
    baseUrl: API_HOST,
    apiKey: KEYS.organization,
    requestTimeoutMs: 5000,
    retryPolicy: new RetryPolicy({ random: () => 0 }),
    pace: new Pace(1000, clock, logger, () => 0),
    clock,
    logger,
    redactor: new Redactor([KEYS.organization]),
    deadline: clock.now() + 600_000,
    transport: httpGet
  })
  return { clock, world: found.world, client }
}

/** The sweep's reads and its verdict on `preview/pr-{pr}`, older than 7 days, as of `now`. */
async function sweepWith(
  client: ReturnType<typeof setup>['client'],
  now: number,
  { unseen, pullRequests }: { unseen?: string; pullRequests?: SweepFacts['pullRequests'] } = {}
) {
  const { branches, cut } = await client.branches.listBranches(
    PROJECT,
    unseen === undefined ? undefined : { unseen }
  )
  const computes = await client.computes.listProjectComputes(PROJECT)
  const pattern = sweepPatternInput.parse('preview/pr-{pr}')
  const verdict = judgeSweep({
    branches,
    computes,
    pattern,
    now,
    olderThanMs: 7 * DAY,
    pullRequests
  })
  return { verdict, cut, read: branches.length }
}

describe("a sweep's reads", () => {
  it('every branch with what the verdict judges, and every compute of the project with last_active', async () => {
    const { world, client } = setup()
    addStalePreviews(world)
    world.addCompute(PROJECT, { id: MAIN_ENDPOINT, branchId: MAIN_BRANCH })
    const { branches, cut } = await client.branches.listBranches(PROJECT)
    expect(cut).toBeUndefined()
    expect(branches.find((branch) => branch.id === MAIN_BRANCH)).toMatchObject({
      default: true,
      protected: false,
      updated_at: expect.any(String)
    })
    expect(branches.find((branch) => branch.id === 'br-preview-pr-6')).toMatchObject({
      parent_id: MAIN_BRANCH,
      updated_at: new Date(world.now() - 8 * DAY).toISOString(),
      restricted_actions: [{ name: 'delete-rw-endpoint', reason: 'used by a demo' }]
    })
    expect(branches.find((branch) => branch.id === 'br-preview-pr-10')?.parent_id).toBeUndefined()
    const computes = await client.computes.listProjectComputes(PROJECT)
    expect(computes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: 'ep-preview-pr-5',
          branch_id: 'br-preview-pr-5',
          last_active: new Date(world.now() - DAY).toISOString()
        }),
        // Never active: no last_active.
        expect.objectContaining({ id: MAIN_ENDPOINT, branch_id: MAIN_BRANCH })
      ])
    )
    expect(computes.find((compute) => compute.id === MAIN_ENDPOINT)?.last_active).toBeUndefined()
  })

  it('the demo’s stale previews, judged: age, a compute active yesterday, children, restrictions, never protected or root', async () => {
    const { world, client } = setup()
    addStalePreviews(world)
    const { verdict } = await sweepWith(client, world.now())
    expect(verdict.stale.map(({ name, reason, blockers }) => [name, reason, blockers])).toEqual([
      ['preview/pr-6', 'inactive', ['restricted']],
      ['preview/pr-4', 'inactive', ['children']],
      ['preview/pr-3', 'inactive', []]
    ])
    // pr-3's compute was last active 25 days ago, after its updated_at 30 days ago.
    expect(verdict.stale[2].last_active).toBe(new Date(world.now() - 25 * DAY).toISOString())
    expect(verdict.matched).toBe(7)
    const { verdict: withPullRequests } = await sweepWith(client, world.now(), {
      pullRequests: new Map([
        [5, 'open'],
        [8, 'closed']
      ])
    })
    expect(withPullRequests.stale.map(({ name, reason }) => [name, reason])[0]).toEqual([
      'preview/pr-8',
      'pr_closed'
    ])
  })

  it('thousands of branches over many pages, judged whole; at the page cap, what was not read is said', async () => {
    const { world, client } = setup()
    const add = (from: number, count: number) => {
      for (let i = from; i < from + count; i++) {
        // Every third one changed within older_than; the rest 8 days ago.
        const days = i % 3 === 0 ? 2 : 8
        world.addBranch(PROJECT, {
          id: `br-pr-${String(i).padStart(6, '0')}`,
          name: `preview/pr-${i}`,
          createdAt: world.now() - 30 * DAY + i,
          updatedAt: world.now() - days * DAY
        })
      }
    }
    add(1, 2999)
    const judged = () =>
      sweepWith(client, world.now(), {
        unseen: 'the stale branches among the rest are not listed'
      })
    const whole = await judged()
    expect(whole.cut).toBeUndefined()
    expect(whole.read).toBe(3000)
    expect(whole.verdict.matched).toBe(2999)
    expect(whole.verdict.stale).toHaveLength(2999 - 999)
    expect(api!.requests.filter((request) => request.route === 'branches')).toHaveLength(30)
    add(3000, 2500)
    const capped = await judged()
    expect(capped.cut).toBe('50 pages')
    expect(capped.read).toBe(5000)
    expect(lines).toContain(
      `Read 5000 branches of project "${PROJECT}" and stopped there (50 pages): the stale branches among the rest are not listed`
    )
  })

  it('oldest first (sort_by updated_at, ascending, as the document allows): a cut leaves out the most recently updated', async () => {
    const { world, client } = setup()
    for (let i = 0; i < 5100; i++) {
      world.addBranch(PROJECT, {
        id: `br-pr-${String(i).padStart(6, '0')}`,
        name: `preview/pr-${i}`,
        // Created in the opposite order to their last change: the order asked for is the one read.
        createdAt: world.now() - 30 * DAY + i,
        updatedAt: world.now() - 20 * DAY - i * 60_000
      })
    }
    const { branches, cut } = await client.branches.listBranches(PROJECT, { oldestFirst: true })
    expect(cut).toBe('50 pages')
    const ages = branches.map((branch) => Date.parse(branch.updated_at!))
    expect(ages).toEqual([...ages].sort((a, b) => a - b))
    // The 100 left unread (and the project's main branch) are the most recently updated.
    expect(branches.map((branch) => branch.id)).not.toContain('br-pr-000000')
    expect(branches.map((branch) => branch.id)).toContain('br-pr-005099')
    const asked = api!.requests.filter((request) => request.route === 'branches')
    expect(asked.map(({ query }) => [query.sort_by, query.sort_order])).toEqual(
      asked.map(() => ['updated_at', 'asc'])
    )
  })

  it('a compute of another project, or one without its branch, is no answer to trust', async () => {
    const { world, client } = setup()
    addStalePreviews(world)
    for (const alter of [{ project_id: 'other-project-000002' }, { branch_id: undefined }]) {
      api!.addFault({
        kind: 'altered',
        route: 'project-computes',
        alter: (body) => ({
          endpoints: (body as { endpoints: object[] }).endpoints.map((e) => ({ ...e, ...alter }))
        })
      })
      await expect(client.computes.listProjectComputes(PROJECT)).rejects.toBeInstanceOf(
        ResponseFormatError
      )
    }
    // The altered answers broke the document on purpose; the requests did not.
    api!.violations.length = 0
  })
})
