/*
 * Matrix legs that write the sticky comment at once, and re-runs of some legs, on the simulated
 * network: each leg is the action's own comment code, and every request of every leg takes its own
 * time each way to the local GitHub API (held to GitHub's REST description), so that the legs'
 * reads and writes reach GitHub interleaved in any order, as concurrent legs' do. Every result must
 * survive, in every trial. The order of two legs' calls set by hand is ../comment-legs.test.ts's.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { githubContract } from '../support/github/contract.ts'
import {
  gateComments,
  latency,
  type Leg,
  runLegs,
  staleWrites,
  TOKEN
} from '../support/github/matrix-legs.ts'
import { ACTIONS_BOT, createGitHubApi, type GitHubApi } from '../support/github/server.ts'
import { seeded } from '../support/fleet/fleet-plan.ts'
import type { Contract } from '../support/openapi-contract.ts'
import { SimulatedTime } from '../support/time/clock.ts'

let contract: Contract
beforeAll(async () => {
  contract = await githubContract()
})

function github(options: { actionsRead?: boolean } = {}): GitHubApi {
  const api = createGitHubApi({ apiUrl: 'https://api.github.com', contract })
  api.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: true, actionsRead: options.actionsRead })
  return api
}

/** Eight legs of one run, the sixth failing, each with its own round trip (40 to 240 ms). */
function eightLegs(random: () => number, spreadMs: number): Leg[] {
  return Array.from({ length: 8 }, (_, i) => ({
    name: `leg-${i}`,
    outcome: i === 5 ? 'failure' : 'success',
    startMs: random() * spreadMs,
    halfTripMs: latency(random, 20 + 100 * random())
  }))
}

/** What the comment holds: one comment, its results (leg, outcome, attempt) and the leg shown. */
function theComment(api: GitHubApi) {
  const comments = gateComments(api)
  expect(comments).toHaveLength(1)
  const [{ comment, content }] = comments
  expect(content).toBeDefined()
  const results = content!.results.results.map((r) => [r.name ?? r.leg, r.outcome, r.attempt])
  return { comment, content: content!, results }
}

const warningsOf = (lines: string[][]) => lines.flat().filter((line) => line.startsWith('warning'))

describe('eight legs that finish in the same second keep every result', () => {
  const trials = Array.from({ length: 24 }, (_, i) => i + 1)

  it.each(trials)(
    'trial %i: 8 results, the worst headline, every comment_url holds its leg',
    async (seed) => {
      const random = seeded(seed)
      const api = github()
      const time = new SimulatedTime()
      // Trials 1-4 start every leg at the same instant; the others within one second.
      const legs = eightLegs(random, seed <= 4 ? 0 : 1000)
      const { urls, lines } = await runLegs(time, api, legs, { seed })
      // The race happened: some leg wrote from a read older than another leg's write.
      expect(staleWrites(api)).toBeGreaterThan(0)
      const { comment, content, results } = theComment(api)
      expect(results.map(([leg]) => leg).sort()).toEqual(legs.map((leg) => leg.name).sort())
      expect(content.results.shown).toBe('leg-5')
      expect(comment.body).toContain('<b>❌ failure</b>: <code>action_of_leg-5</code>')
      expect(comment.body).toContain('<h3>8 results of this workflow run</h3>')
      // The failed leg's comment_url (and every other leg's) is the comment that holds its result.
      expect(urls).toEqual(legs.map(() => comment.html_url))
      expect(warningsOf(lines)).toEqual([])
      expect(api.violations).toEqual([])
      // Within the comment's 5 s.
      expect(time.now()).toBeLessThan(1000 + 5000)
    }
  )
})
