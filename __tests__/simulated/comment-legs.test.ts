/*
 * Matrix legs that write the sticky comment at once, and re-runs of some legs, on the simulated
 * network: each leg is the action's own comment code, and every request of every leg takes its own
 * time each way to the local GitHub API (held to GitHub's REST description), so that the legs'
 * reads and writes reach GitHub interleaved in any order, as concurrent legs' do. Every result must
 * survive, in every trial, with no warning to excuse a loss. Every order of the calls, not a
 * sample, is comment-interleavings.test.ts's.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { githubContract } from '../support/github/contract.ts'
import {
  gateComments,
  latency,
  type Leg,
  runLegs,
  staleWrites,
  TOKEN
} from '../support/github/matrix-legs.ts'
import {
  ACTIONS_BOT,
  createGitHubApi,
  deletedAnchors,
  type GitHubApi
} from '../support/github/server.ts'
import { seeded } from '../support/fleet/fleet-plan.ts'
import type { Contract } from '../support/openapi-contract.ts'
import { SimulatedTime } from '../support/time/clock.ts'
import type { View } from '../../src/runner/comment-view.js'

let contract: Contract
beforeAll(async () => {
  contract = await githubContract()
})

/**
 * The local GitHub API; held to GitHub's REST description unless `unchecked` (the property's
 * hundred matrices: the checks took two thirds of its time, and its oracle reads no violation;
 * the trials here check the same calls).
 */
function github(options: { actionsRead?: boolean; unchecked?: boolean } = {}): GitHubApi {
  const api = createGitHubApi({
    apiUrl: 'https://api.github.com',
    contract: options.unchecked ? undefined : contract
  })
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
  const results = content!.results.map((r) => [legName(r), r.outcome, String(r.attempt)])
  return { comment, content: content!, results }
}

/** A leg's id, as the context of a leg not told apart ends with it. */
const idOf = (name: string) => name.replace(/[^0-9a-z]/gi, '').slice(0, 12)

/** A result's leg: its name when told apart, else its id (`leg5` for leg-5). */
const legName = (result: { name?: string; leg: string }) =>
  result.name ?? /\/u-\d+-\d+-(\w+)$/.exec(result.leg)?.[1] ?? result.leg

/** The leg of the result a view shows. */
const shownLeg = (content: View | undefined) =>
  content && legName(content.results.find((result) => result.key === content.shown)!)

const warningsOf = (lines: string[][]) => lines.flat().filter((line) => line.startsWith('warning'))

/**
 * Each leg's comment_url is the comment it ended on, which held its result: the one that holds
 * every result now, or one deleted since, once a newer comment held every result (a red leg's).
 */
function expectUrls(api: GitHubApi, urls: (string | undefined)[], comment: { html_url: string }) {
  const deleted = deletedAnchors(api)
  for (const url of urls) {
    if (url !== comment.html_url) expect(deleted).toContain(url?.slice(url.indexOf('#')))
  }
}

describe('eight legs that finish in the same second keep every result', () => {
  const trials = Array.from({ length: 24 }, (_, i) => i + 1)

  it.each(trials)(
    'trial %i: 8 results, the worst headline, every comment_url held its leg',
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
      expect(results.map(([leg]) => leg).sort()).toEqual(legs.map((leg) => idOf(leg.name)).sort())
      expect(shownLeg(content)).toBe('leg5')
      expect(comment.body).toMatch(/<b>❌ failure<\/b>: (<code>)?action_of_leg-5/)
      expect(comment.body).toContain('<h3>8 results of this workflow run</h3>')
      expect(urls).toContain(comment.html_url)
      expectUrls(api, urls, comment)
      expect(warningsOf(lines)).toEqual([])
      expect(api.violations).toEqual([])
      // Within the comment's 10 s.
      expect(time.now()).toBeLessThan(1000 + 10_000)
    }
  )
})

describe('one leg 5 to 10 times slower than the others keeps every result too', () => {
  // Before, a slow leg's write, made from a read older than a fast leg's write and check, dropped
  // that result after the fast leg stopped watching: 95 of 300 such trials lost one, 17 the red.
  const trials = Array.from({ length: 24 }, (_, i) => i + 1)

  it.each(trials)(
    'trial %i: 8 results in one comment, the red one shown, every comment_url held its leg',
    async (seed) => {
      const random = seeded(seed * 7919)
      const api = github()
      const time = new SimulatedTime()
      const legs = eightLegs(random, 1000)
      const slow = Math.floor(random() * 8)
      legs[slow].halfTripMs = latency(random, 70 * (5 + 5 * random()))
      const { urls, lines } = await runLegs(time, api, legs, { seed })
      expect(staleWrites(api)).toBeGreaterThan(0)
      const { comment, content, results } = theComment(api)
      expect(results.map(([leg]) => leg).sort()).toEqual(legs.map((leg) => idOf(leg.name)).sort())
      expect(shownLeg(content)).toBe('leg5')
      expectUrls(api, urls, comment)
      // The slow leg (round trips up to 1.4 s) may run out of its 10 s for a last round: it says so.
      for (const warning of warningsOf(lines)) {
        expect(warning).toContain("so it may not show every leg's result yet")
      }
      expect(api.violations).toEqual([])
    }
  )
})

describe('a gate of one leg, on a network slower than any pause', () => {
  it.each([1, 2, 3])(
    'seed %i: a later run’s red takes a comment of its own and deletes the older; its green re-run updates it in place; the re-run of a leg not told apart keeps the red',
    async (seed) => {
      const random = seeded(400 + seed)
      const api = github()
      const time = new SimulatedTime()
      // Round trips of 0.35 to 2.1 s: every read is slower than the shortest pause.
      const only = (outcome: 'success' | 'failure'): Leg => ({
        name: 'only',
        outcome,
        halfTripMs: latency(random, 70 * (5 + 5 * random()))
      })
      await runLegs(time, api, [only('failure')], { seed, runId: '8' })
      const [{ comment: first }] = gateComments(api)
      const posts = () =>
        api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments')).length
      expect(posts()).toBe(1)
      const later = await runLegs(time, api, [only('failure')], { seed, runId: '9' })
      expect(posts()).toBe(2)
      const [{ comment: second }] = gateComments(api)
      expect(second.id).toBeGreaterThan(first.id)
      const rerun = await runLegs(time, api, [only('success')], { seed, runId: '9', attempt: '2' })
      expect(posts()).toBe(2)
      const { comment, results } = theComment(api)
      expect(comment.id).toBe(second.id)
      expect([later.urls, rerun.urls]).toEqual([[second.html_url], [second.html_url]])
      // A leg that cannot tell itself apart adds its result and removes none: the red stays.
      expect(results.map(([, outcome, attempt]) => `${outcome} ${attempt}`)).toEqual([
        'failure 1',
        'success 2'
      ])
      expect(comment.body).toContain('<b>❌ failure</b>')
      expect(warningsOf([...later.lines, ...rerun.lines])).toEqual([])
    }
  )
})

describe('a gate of one leg, on a network of 1.2 to 2.4 s round trips', () => {
  it.each([1, 2, 3, 4, 5, 6])(
    'seed %i: the comment holds the result; a warning says only that the read back did not finish',
    async (seed) => {
      const random = seeded(700 + seed)
      const api = github()
      const time = new SimulatedTime()
      if (seed % 2 === 0) {
        const older: Leg = { name: 'older', outcome: 'failure', halfTripMs: () => 50 }
        await runLegs(time, api, [older], { seed, runId: '8' })
      }
      const only: Leg = { name: 'only', outcome: 'failure', halfTripMs: () => 600 * (1 + random()) }
      const { urls, lines } = await runLegs(time, api, [only], { seed })
      const { comment, results } = theComment(api)
      expect(results).toEqual([['only', 'failure', '1']])
      expect(urls).toEqual([comment.html_url])
      // Out of time for its read back, it says so; the comment holds its result all the same.
      for (const warning of warningsOf(lines)) {
        expect(warning).toContain("so it may not show every leg's result yet")
      }
    }
  )
})

describe('a slow red leg (3.6 s round trips) that the 10 s cut short', () => {
  it.each([1, 2, 3])(
    'seed %i: its comment lands though its answer came too late: it says so, and the comment shows the red',
    async (seed) => {
      const api = github()
      const time = new SimulatedTime()
      const green: Leg = { name: 'green', outcome: 'success', halfTripMs: () => 40 + 10 * seed }
      // Its create is sent after two round trips (7.2 s), lands at 9 s, and answers at 10.8 s.
      const red: Leg = { name: 'red', outcome: 'failure', startMs: 300, halfTripMs: () => 1800 }
      const { urls, lines } = await runLegs(time, api, [green, red], { seed })
      const comments = gateComments(api)
      expect(comments).toHaveLength(2)
      const [older, created] = comments.map(({ comment }) => comment)
      expect(urls).toEqual([older.html_url, undefined])
      expect(warningsOf([lines[1]])).toEqual([
        `warning: pr_comment: creating the comment got no answer (the GitHub API did not answer within 10 s), but it may have landed all the same: look at the pull request's comments`
      ])
      expect(created.body).toContain('<b>❌ failure</b>')
      expect(api.statuses.map((status) => status.state).sort()).toEqual(['failure', 'success'])
      const late: Leg = { name: 'late', outcome: 'success', halfTripMs: () => 50 }
      const after = await runLegs(time, api, [late], { seed })
      const { comment, content } = theComment(api)
      expect(comment.id).toBe(created.id)
      expect(shownLeg(content)).toBe('red')
      expect(comment.body).toContain('<b>❌ failure</b>')
      expect(after.urls).toEqual([comment.html_url])
      expect(api.violations).toEqual([])
    }
  )
})

describe('never green over a red, never a lost result', () => {
  // Any matrix: 2 to 8 legs, each with its own round trips (20 to 480 ms) and start (within 1 s),
  // one red, at most one leg 5 to 10 times slower than 70 ms each way, on a pull request with or
  // without an earlier run's comment; some named by pr_comment_leg, the same name for several. (When every leg is that slow, the 10 s run out for all of
  // them: each warns.)
  const matrix = fc.record({
    legs: fc.array(
      fc.record({
        startMs: fc.integer({ min: 0, max: 1000 }),
        baseMs: fc.integer({ min: 10, max: 120 }),
        // Legs named by pr_comment_leg, some with the same name: one name never hides another leg.
        legInput: fc.option(fc.constantFrom('eu-west', 'us-east'), { nil: undefined })
      }),
      { minLength: 2, maxLength: 8 }
    ),
    red: fc.nat(),
    slow: fc.option(
      fc.record({ leg: fc.nat(), factor: fc.double({ min: 5, max: 10, noNaN: true }) })
    ),
    earlier: fc.boolean(),
    seed: fc.integer({ min: 1, max: 1_000_000 })
  })

  it('the red result heads the comment; every other is in it, and no leg warns', async () => {
    await fc.assert(
      fc.asyncProperty(matrix, async ({ legs: drawn, red, slow, earlier, seed }) => {
        const random = seeded(seed)
        const api = github({ unchecked: true })
        const time = new SimulatedTime()
        if (earlier) {
          const older: Leg = { name: 'older', outcome: 'failure', halfTripMs: () => 50 }
          await runLegs(time, api, [older], { seed, runId: '8' })
        }
        const legs: Leg[] = drawn.map(({ startMs, baseMs, legInput }, i) => ({
          name: `leg-${i}`,
          legInput,
          outcome: i === red % drawn.length ? 'failure' : 'success',
          startMs,
          halfTripMs: latency(random, slow?.leg === i % drawn.length ? 70 * slow.factor : baseMs)
        }))
        const { lines } = await runLegs(time, api, legs, { seed })
        const [kept] = gateComments(api)
        expect(gateComments(api)).toHaveLength(1)
        const held = kept?.content?.results.map(legName) ?? []
        const named = (leg: Leg) => leg.legInput ?? idOf(leg.name)
        // The red result heads the comment, always; every other is there, and nobody warned.
        const redLeg = legs[red % drawn.length]
        expect(kept?.content?.results.find((r) => r.key === kept.content!.shown)?.line).toContain(
          `action_of_${redLeg.name}`
        )
        expect([...held].sort()).toEqual(legs.map(named).sort())
        expect(warningsOf(lines).filter((line) => !line.includes('same name'))).toEqual([])
      }),
      { seed: 60, numRuns: 100, endOnFailure: true }
    )
  })
})

describe('a re-run of some legs keeps the others, on the simulated network', () => {
  /** Leg i of attempt `attempt`, on its own runner, whose job the jobs API lists as `gate (i)`. */
  function legOf(
    api: GitHubApi,
    random: () => number,
    i: number,
    attempt: number,
    red: boolean,
    slow = false
  ) {
    const runnerName = `GitHub Actions ${attempt * 100 + i}`
    api.jobs.push({ runId: 9, attempt, name: `gate (${i})`, runnerName, status: 'in_progress' })
    // Another attempt's job on a runner of the same name must not be taken for this one.
    api.jobs.push({
      runId: 9,
      attempt: attempt + 50,
      name: 'other',
      runnerName,
      status: 'completed'
    })
    const leg: Leg = {
      name: `leg-${i}-attempt-${attempt}`,
      outcome: red ? 'failure' : 'success',
      startMs: random() * 1000,
      // A slow leg's round trips are 5 to 10 times the others' mean.
      halfTripMs: latency(random, slow ? 70 * (5 + 5 * random()) : 20 + 100 * random()),
      runnerName
    }
    return leg
  }

  const newest = (api: GitHubApi) =>
    theComment(api)
      .results.map(([name, outcome, attempt]) => `${name} ${outcome} ${attempt}`)
      .sort()

  /**
   * Eight legs, 2 and 5 red (5 slow, when `slow`), then "Re-run failed jobs": legs 2 and 5 at once,
   * 2 passes and 5 fails again; on a GitHub API whose jobs API tells the legs apart, drawn from
   * `draws` + `seed`. The re-run's lines and addresses, and what the test goes on with.
   */
  async function reRunOfTwoRedLegs(seed: number, draws: number, slow: boolean) {
    const random = seeded(draws + seed)
    const api = github({ actionsRead: true })
    const time = new SimulatedTime()
    const first = Array.from({ length: 8 }, (_, i) =>
      legOf(api, random, i, 1, i === 2 || i === 5, slow && i === 5)
    )
    await runLegs(time, api, first, { seed, attempt: '1' })
    const second = [legOf(api, random, 2, 2, false), legOf(api, random, 5, 2, true, slow)]
    const reRun = await runLegs(time, api, second, { seed, attempt: '2' })
    return { random, api, time, reRun }
  }

  /** The newest result of each leg after that re-run: 2 and 5 of it, the others of the first. */
  const AFTER_RE_RUN = [0, 1, 3, 4, 6, 7]
    .map((i) => `gate (${i}) success 1`)
    .concat('gate (2) success 2', 'gate (5) failure 2')
    .sort()

  it.each([1, 2, 3, 4, 5])(
    'seed %i: told apart by the jobs API (actions: read), a re-run replaces only the legs it re-ran, and turns green once every red leg passed',
    async (seed) => {
      const { random, api, time, reRun } = await reRunOfTwoRedLegs(seed, 100, false)
      expect(warningsOf(reRun.lines)).toEqual([])
      expect(newest(api)).toEqual(AFTER_RE_RUN)
      const red = theComment(api)
      expect(red.comment.body).toContain(
        '<b>❌ failure</b>: <code>action_of_leg-5-attempt-2</code>'
      )
      expect(red.comment.body).toContain('Results of earlier attempts stay')
      // Leg 5 again, and it passes: every leg's newest result is green.
      const { urls } = await runLegs(time, api, [legOf(api, random, 5, 3, false)], {
        seed,
        attempt: '3'
      })
      expect(newest(api)).toContain('gate (5) success 3')
      expect(newest(api)).toHaveLength(8)
      const green = theComment(api)
      expect(green.comment.body).toMatch(/\n<p><b>✅ success<\/b>/)
      expect(urls).toEqual([green.comment.html_url])
      expect(api.violations).toEqual([])
    }
  )

  it.each([1, 2, 3, 4, 5])(
    'seed %i: a re-run whose red leg is 5 to 10 times slower keeps the legs it did not re-run, and its red over the green',
    async (seed) => {
      const { api, reRun } = await reRunOfTwoRedLegs(seed, 300, true)
      expect(newest(api)).toEqual(AFTER_RE_RUN)
      const { comment } = theComment(api)
      expect(comment.body).toContain('<b>❌ failure</b>: <code>action_of_leg-5-attempt-2</code>')
      // The slow leg may run out of time for its last check (a warning).
      expectUrls(api, reRun.urls, comment)
      expect(api.violations).toEqual([])
    }
  )

  it.each([1, 2, 3, 4])(
    'seed %i: two jobs of the attempt with the same name (a name of some matrix values): both results stay, never green over the red',
    async (seed) => {
      const random = seeded(500 + seed)
      const api = github({ actionsRead: true })
      const time = new SimulatedTime()
      const twin = (i: number, attempt: number, red: boolean): Leg => {
        const runnerName = `GitHub Actions ${attempt * 10 + i}`
        api.jobs.push({
          runId: 9,
          attempt,
          name: 'gate eu-west',
          runnerName,
          status: 'in_progress'
        })
        return {
          name: `twin-${i}-attempt-${attempt}`,
          outcome: red ? 'failure' : 'success',
          halfTripMs: latency(random, 20 + 100 * random()),
          runnerName
        }
      }
      const [red, green] = [twin(1, 1, true), twin(2, 1, false)]
      // Odd seeds: the red leg, then the green one; even seeds: both at once.
      const first =
        seed % 2 === 1
          ? await runLegs(time, api, [red], { seed, attempt: '1' })
          : await runLegs(time, api, [red, green], { seed, attempt: '1' })
      if (seed % 2 === 1) await runLegs(time, api, [green], { seed, attempt: '1' })
      const { comment, results } = theComment(api)
      expect(results.map(([, outcome]) => outcome).sort()).toEqual(['failure', 'success'])
      expect(comment.body).toContain('<b>❌ failure</b>')
      expectUrls(api, first.urls, comment)
      expect(first.lines[0]).toContainEqual(
        expect.stringContaining(
          'info: pr_comment: another job of this run attempt is also named "gate eu-west"'
        )
      )
      // A re-run of one of them, green: which one it re-ran is unknown, so the red stays and heads.
      await runLegs(time, api, [twin(1, 2, false)], { seed, attempt: '2' })
      const rerun = theComment(api)
      expect(rerun.results.map(([, outcome, attempt]) => `${outcome} ${attempt}`).sort()).toEqual([
        'failure 1',
        'success 1',
        'success 2'
      ])
      expect(rerun.comment.body).toContain('<b>❌ failure</b>')
      expect(api.violations).toEqual([])
    }
  )

  it.each([1, 2, 3])(
    'seed %i: without actions: read, one warning a leg, and a re-run’s green never hides the red it could not replace',
    async (seed) => {
      const random = seeded(200 + seed)
      const api = github({ actionsRead: false })
      const time = new SimulatedTime()
      const first = Array.from({ length: 4 }, (_, i) => legOf(api, random, i, 1, i < 2))
      await runLegs(time, api, first, { seed, attempt: '1' })
      const second = [legOf(api, random, 0, 2, false), legOf(api, random, 1, 2, false)]
      const { lines } = await runLegs(time, api, second, { seed, attempt: '2' })
      for (const own of lines) {
        const warnings = own.filter((line) => line.startsWith('warning'))
        expect(warnings).toHaveLength(1)
        expect(warnings[0]).toContain('permissions: actions: read')
        expect(warnings[0]).toContain('Resource not accessible by integration (HTTP 403)')
      }
      const { comment, results } = theComment(api)
      // Every result stays, the two red ones of attempt 1 among them, and they head the comment.
      expect(results).toHaveLength(6)
      expect(results.filter(([, outcome]) => outcome === 'failure')).toHaveLength(2)
      expect(comment.body).toContain('<b>❌ failure</b>')
      expect(comment.body).toContain('cannot be told apart')
      expect(api.violations).toEqual([])
    }
  )
})
