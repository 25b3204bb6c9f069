/*
 * Every interleaving, not a sample (issue 66): the scheduler (support/github/interleavings.ts)
 * runs every order of the GitHub calls of the legs' comment protocols against the local GitHub
 * API, for matrices of up to 3 legs, 2 attempts and 2 runs, with cancelled legs (they write
 * nothing), legs told apart or not, a push between the runs or none, or a push no run follows,
 * and with or without an earlier run's comment. Three legs writing at once (THREE_WRITING) take minutes: they run with
 * INTERLEAVINGS_THREE=1. In every final state the comment shows exactly the results of the
 * newest run of the pull request's head (a leg told apart by its newest attempt, one not told
 * apart by every attempt), the worst at its head: no failure of the newest run lost, no success
 * shown beside it, one comment; no leg ends on its cap of rounds; and a red leg ends only on a
 * comment that showed its red. The oracle is the scenario itself, not the code under test.
 * Legs may stop mid-protocol (STOPPING: a time limit, a cancelled job): then every failure of a
 * leg that did not stop is shown in a comment, no comment shows a pass beside it, and each comment
 * shows results legs wrote, its worst at its head (a stopped leg's late write may leave a second
 * comment: a placeholder that shows no result, or a view of an older read).
 *
 * Why the orders the scheduler skips reach no final state that those it takes do not:
 * 1. A read (the comments, a commit's statuses, the head) changes nothing on GitHub, and a leg
 *    decides once every call it made at once (a batch: the comments and its record, then the
 *    head and the records) is answered, on the answers alone, in whatever order they came. So a
 *    read and a step next to it that does not write the read's resource can swap places: both
 *    orders reach the same state (GitHub's and every leg's).
 * 2. Take any order of the steps. Move each read later, one swap at a time, as far as (1)
 *    allows. It stops right before a write of its resource (by any leg, its own record too), or
 *    in the block of reads that ends its leg's batch (nothing of its leg can pass the batch's
 *    end). Reads swap among themselves, so in each run of reads put every leg's batch-ending
 *    block first. The new order reaches the same final state and each leg's same end.
 * 3. The scheduler takes every write, every leg's reads under way as one step, and a read alone
 *    while a write of its resource can be taken. That covers the new order: in it, a read that
 *    does not end its batch stands, past other reads only, before the write it races; reads
 *    enable no write except by ending a batch, and those blocks come first. So that write can
 *    be taken right then.
 * 4. A read that no step to come can change (the head once pushed; a commit's statuses once each
 *    leg of that commit has recorded or ended) swaps with every step that can follow: it is taken
 *    at once, alone.
 * 5. A state met again is not explored again. Nor is one that differs from a state explored only
 *    in what a leg logs, or in legs fewer rounds in: a round's number changes nothing but the
 *    cap. Were the cap reached from the state explored, the test fails; otherwise the orders from
 *    the other state are the same and end the same.
 * 6. A leg that may stop, stops in any state where it has calls under way. A stop after a read is
 *    a stop before it (the read changed nothing); a write under way at the stop landed (its step
 *    was taken first) or not. A stopped leg acts as one that ended (no calls), and the final check
 *    asks less of it: a state is covered by the same state with that leg ended normally.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from '@jest/globals'
import { BY_SEVERITY, recordContext } from '../../src/runner/comment-records.js'
import type { WriterConfig, WriterState } from '../../src/runner/comment-round.js'
import { readView, type View } from '../../src/runner/comment-view.js'
import {
  explore,
  PROTOCOL,
  type Protocol,
  REPOSITORY,
  type Writer
} from '../support/github/interleavings.ts'
import { restore, type Saved, save } from '../support/github/interleavings-calls.ts'
import { ACTIONS_BOT, createGitHubApi, type GitHubApi } from '../support/github/server.ts'

const TOKEN = 'ghs_interleavings_token_000000'
const MARKER = '<!-- neon-operations-gate:00112233445566ff -->'
const GATE = '00112233445566ff'
const SHA_A = 'a'.repeat(40)
const SHA_B = 'b'.repeat(40)
/** A commit that no run of the gate follows (a push with a paths filter, `[skip ci]`). */
const SHA_UNRUN = 'c'.repeat(40)
/** The commit of an earlier green run, before the scenario's. */
const SHA_EARLIER = '0'.repeat(40)

type Outcome = 'success' | 'failure' | 'cancelled'

/** A leg of a run: its outcome in each attempt (absent: not re-run). */
interface LegPlan {
  name: string
  told: boolean
  attempts: Outcome[]
  /** Each of its attempts may stop mid-protocol (its time limit, a cancelled job). */
  stops?: boolean
}

interface RunPlan {
  run: number
  sha: string
  legs: LegPlan[]
}

interface Scenario {
  runs: RunPlan[]
  /**
   * The pull request's head moves to the second run's commit while the first run writes; or
   * (`unrun`) to a commit no run of the gate follows.
   */
  push: boolean | 'unrun'
  /** An earlier run's comment (run 100, red on the first run's commit; or green on another) is there before. */
  earlier: boolean | 'green'
  /** pr_comment: `always` unless `failure` (a pass then writes only once it finds a comment). */
  mode?: 'failure'
}

const keyOf = (name: string) => `n-${createHash('sha256').update(name).digest('hex').slice(0, 24)}`

function configOf(
  run: number,
  sha: string,
  leg: LegPlan,
  attempt: number,
  mode: 'always' | 'failure' = 'always'
): WriterConfig {
  const outcome = leg.attempts[attempt - 1] as 'success' | 'failure'
  const legId = leg.told ? keyOf(leg.name) : `u-${run}-${attempt}-${leg.name}`
  const emoji = outcome === 'success' ? '✅' : '❌'
  return {
    marker: MARKER,
    gateHash: GATE,
    author: ACTIONS_BOT.login,
    mode,
    serverUrl: 'https://github.com',
    repository: REPOSITORY,
    sha,
    own: {
      id: `${run}${leg.name}${attempt}`,
      leg: recordContext(GATE, legId),
      told: leg.told,
      run,
      attempt,
      outcome,
      ...(leg.told ? { name: leg.name } : {}),
      line: `${emoji} ${outcome}: leg ${leg.name} of run ${run}, attempt ${attempt}`
    },
    details: `<p>details of ${leg.name} ${run} ${attempt}</p>`
  }
}

/** The writers of a scenario: one per leg and attempt that ran its gate. */
function writersOf(scenario: Scenario): Writer[] {
  const writers: Writer[] = []
  scenario.runs.forEach((plan, runIndex) => {
    const byAttempt = new Map<number, number[]>()
    for (const leg of plan.legs) {
      leg.attempts.forEach((outcome, i) => {
        if (outcome === 'cancelled') return
        const attempt = i + 1
        const after = [...byAttempt.entries()]
          .filter(([a]) => a < attempt)
          .flatMap(([, ids]) => ids)
        byAttempt.set(attempt, [...(byAttempt.get(attempt) ?? []), writers.length])
        writers.push({
          config: configOf(plan.run, plan.sha, leg, attempt, scenario.mode),
          after,
          afterPush: scenario.push === true && runIndex === 1,
          stops: leg.stops === true
        })
      })
    }
  })
  // Attempt 2 waits for every writer of attempt 1 of its run (listed before it).
  for (const writer of writers) {
    writer.after = writers
      .map((other, index) => ({ other, index }))
      .filter(
        ({ other }) =>
          other.config.own.run === writer.config.own.run &&
          other.config.own.attempt < writer.config.own.attempt
      )
      .map(({ index }) => index)
  }
  return writers
}

const ran = (leg: LegPlan) =>
  leg.attempts
    .map((outcome, i) => ({ outcome, attempt: i + 1 }))
    .filter((a) => a.outcome !== 'cancelled')

/** The newest of `runs` that ran a gate, if any. */
const newestOf = (runs: RunPlan[]) =>
  runs
    .filter((plan) => plan.legs.some((leg) => ran(leg).length > 0))
    .sort((a, b) => b.run - a.run)[0]

/** A run's results that stay: a leg told apart by its newest attempt, one not told apart by every attempt. */
function resultsOfRun(plan: RunPlan): string[] {
  return plan.legs
    .flatMap((leg) => {
      const attempts = ran(leg)
      const kept = leg.told ? attempts.slice(-1) : attempts
      return kept.map(({ outcome, attempt }) => `${plan.run} ${leg.name} ${attempt} ${outcome}`)
    })
    .sort()
}

/** What the comment must show: the newest run of the head, each leg's results that stay. */
function expected(scenario: Scenario): string[] | undefined {
  const head = scenario.push === true ? scenario.runs[1].sha : scenario.runs[0].sha
  const newest = newestOf(scenario.runs.filter((plan) => plan.sha === head))
  return newest && resultsOfRun(newest)
}

/**
 * A writer ends on a round that found the comment holding what it read, never on the cap. A red
 * leg that ends so read a comment showing its red, or a newer run of the head; the last view it
 * wrote showed its red too, or a newer run.
 */
function checkEnded(scenario: Scenario, state: WriterState, index: number): void {
  if (state.ending === 'rounds') throw new Error(`a writer ended after ${state.round} rounds`)
  const { outcome, line, run } = writersOf(scenario)[index].config.own
  if (outcome === 'success') return
  // showsOf: `<run> <shown> <detailed> <keys…>`.
  const [wroteRun, , , ...wroteKeys] = state.mine?.shows.split(' ') ?? []
  if (state.mine && !wroteKeys.includes(state.recorded!) && !(Number(wroteRun) > run)) {
    throw new Error(`a red writer last wrote a view without its red: ${legOf(line)}`)
  }
  if (state.ending !== 'written') return
  const view = state.answers.comments?.at(-1)?.view
  if (!view?.results.some((result) => result.line === line) && !(view && view.run > run)) {
    throw new Error(`a writer ended on a comment without its red: ${legOf(line)}`)
  }
}

/** `<run> <leg> <attempt>`, from the line a leg writes (configOf). */
function legOf(line: string): string {
  const [, name, run, attempt] = /leg (\w+) of run (\d+), attempt (\d+)$/.exec(line) ?? []
  return `${run} ${name} ${attempt}`
}

const severity = (result: string) => BY_SEVERITY.indexOf(result.split(' ')[3] as 'success')

/**
 * Without stops: one comment, showing exactly `expected`, the worst at its head. With a leg that
 * may stop: a write it sent may land after every other leg ended, in a comment that then stays
 * (its view of an older read: an earlier attempt's result, or an older run's). So: every failure in
 * `expected` of a leg that did not stop is shown in a comment, no comment is headed ✅ beside it,
 * and each comment shows results that legs wrote, the worst of them at its head.
 */
// Each result by the line its leg wrote (configOf), not by how the code names its record.
const shownBy = (view: View) => view.results.map((r) => `${legOf(r.line)} ${r.outcome}`)
const headline = (view: View) => view.results.find((r) => r.key === view.shown)!.outcome

/** The failures among `results` of legs that did not stop. */
function failuresThatStay(scenario: Scenario, results: string[], stopped: Set<number>): string[] {
  const writers = writersOf(scenario)
  const stoppedLegs = [...stopped].map((index) => `${legOf(writers[index].config.own.line)} `)
  return results.filter((w) => severity(w) > 0 && !stoppedLegs.some((l) => w.startsWith(l)))
}

function checkFinal(scenario: Scenario, github: GitHubApi, stopped: Set<number>): void {
  const comments = github.comments.filter((comment) => comment.body.startsWith(MARKER))
  // A comment without a view is one a leg made and stopped before it could fill (placeholder).
  const views = comments.flatMap((comment) => readView(comment.body, MARKER) ?? [])
  if (scenario.push === 'unrun') return checkHeadless(scenario, views, stopped)
  const want = expected(scenario)
  if (!want) return
  if (!scenario.runs.some((plan) => plan.legs.some((leg) => leg.stops))) {
    expect(comments).toHaveLength(1)
    expect(views).toHaveLength(1)
    expect(shownBy(views[0]).sort()).toEqual(want)
    expect(BY_SEVERITY.indexOf(headline(views[0]))).toBe(Math.max(...want.map(severity)))
    return
  }
  const written = writersOf(scenario).map(
    ({ config }) => `${legOf(config.own.line)} ${config.own.outcome}`
  )
  const kept = failuresThatStay(scenario, want, stopped)
  for (const failure of kept) {
    expect(views.map(shownBy)).toContainEqual(expect.arrayContaining([failure]))
  }
  // No comment shows a pass beside a failure that stays.
  if (kept.length > 0) expect(views.map(headline)).not.toContain('success')
  for (const view of views) {
    expect(written).toEqual(expect.arrayContaining(shownBy(view)))
    expect(BY_SEVERITY.indexOf(headline(view))).toBe(Math.max(...shownBy(view).map(severity)))
  }
}

/**
 * A push no run of the gate follows: the head never gets a result. Once the gate's comment is
 * there (an earlier run's, or one a leg made before the push), it shows every failure of the newest
 * run of a leg that did not stop, and no comment is headed ✅ beside one: an older pass is never
 * left over it. No comment at all shows no pass either.
 */
function checkHeadless(scenario: Scenario, views: View[], stopped: Set<number>): void {
  if (views.length === 0) return
  const failures = failuresThatStay(scenario, resultsOfRun(newestOf(scenario.runs)!), stopped)
  for (const failure of failures) {
    expect(views.map(shownBy)).toContainEqual(expect.arrayContaining([failure]))
  }
  if (failures.length > 0) expect(views.map(headline)).not.toContain('success')
}

/**
 * `protocol`, held to two more rules on the comments it makes (GitHub notifies the pull request of
 * each): a superseded run makes none but to show a red of its own run (its head had no result of
 * the gate), and a red leg makes one beside one already there only to show its red.
 */
function heldToCreates(protocol: Protocol): Protocol {
  return {
    ...protocol,
    advance: (config, state, call, answer) => {
      const next = protocol.advance(config, state, call, answer)
      const create = next.calls.find((c) => c.call === 'create')
      if (!create) return next
      const { outcome, line } = config.own
      const view = readView(create.body, MARKER)
      const ownRed =
        view?.run === config.own.run &&
        view.results.some((r) => severity(`${legOf(r.line)} ${r.outcome}`) > 0)
      if (next.head !== next.sha && !ownRed) {
        throw new Error(`a writer made a comment for a superseded run: ${legOf(line)}`)
      }
      // The comments the round read (the answers before the decision).
      const beside = (state.answers.comments ?? []).length > 0
      if (beside && outcome !== 'success' && !view?.results.some((r) => r.line === line)) {
        throw new Error(`a writer made a comment without its red: ${legOf(line)}`)
      }
      return next
    }
  }
}

async function run(scenario: Scenario, protocol: Protocol = PROTOCOL, maxStates?: number) {
  const github = createGitHubApi({ apiUrl: 'https://api.github.com' })
  github.tokens.set(TOKEN, { user: ACTIONS_BOT, canWrite: true })
  const green = scenario.earlier === 'green'
  github.pulls.set(`${REPOSITORY}#42`, green ? SHA_EARLIER : scenario.runs[0].sha)
  if (scenario.earlier) {
    const earlier: LegPlan = { name: 'e', told: false, attempts: [green ? 'success' : 'failure'] }
    const sha = green ? SHA_EARLIER : SHA_A
    const writer = { config: configOf(100, sha, earlier, 1), after: [], afterPush: false }
    // One leg alone: its one final state is where the scenario starts (explore leaves GitHub
    // wherever its last step was).
    let written: Saved | undefined
    await explore(github, [writer], { ended: () => undefined, check: (g) => (written = save(g)) })
    restore(github, written!)
    github.pulls.set(`${REPOSITORY}#42`, scenario.runs[0].sha)
    if (process.env.DEBUG_EARLIER)
      process.stdout.write(
        `earlier: ${JSON.stringify(github.comments.map((c) => c.id))} ${github.statuses.length}\n`
      )
  }
  return explore(github, writersOf(scenario), {
    protocol: heldToCreates(protocol),
    push: scenario.push === 'unrun' ? SHA_UNRUN : scenario.push ? scenario.runs[1].sha : undefined,
    ended: (state, index) => checkEnded(scenario, state, index),
    check: (final, stopped) => checkFinal(scenario, final, stopped),
    maxStates
  })
}

const leg = (name: string, told: boolean, ...attempts: Outcome[]): LegPlan => ({
  name,
  told,
  attempts
})

const one = (legs: LegPlan[], earlier = false): Scenario => ({
  runs: [{ run: 101, sha: SHA_A, legs }],
  push: false,
  earlier
})

/** One run (101) on SHA_A, and a push no run follows while it writes. */
const unrun = (legs: LegPlan[], earlier: Scenario['earlier']): Scenario => ({
  runs: [{ run: 101, sha: SHA_A, legs }],
  push: 'unrun',
  earlier
})

const two = (older: LegPlan[], newer: LegPlan[], push: boolean, earlier: boolean): Scenario => ({
  runs: [
    { run: 101, sha: SHA_A, legs: older },
    { run: 102, sha: push ? SHA_B : SHA_A, legs: newer }
  ],
  push,
  earlier
})

/**
 * The scenarios, each explored in every order of its legs' calls. Up to three legs, but in the
 * suite at most two write at once (three: THREE_WRITING). The attempts of a run follow one
 * another, as GitHub re-runs only a finished run; two runs overlap.
 */
const SCENARIOS: Record<string, Scenario> = {
  'legs finishing together, not told apart': one([
    leg('p', false, 'failure'),
    leg('q', false, 'success')
  ]),
  'legs finishing together, told apart, over an earlier comment': one(
    [leg('p', true, 'success'), leg('q', true, 'failure')],
    true
  ),
  'two red legs finishing together, told apart': one([
    leg('p', true, 'failure'),
    leg('q', true, 'failure')
  ]),
  'fail-fast: q and r cancelled, then re-run and green (not told apart)': one([
    leg('p', false, 'failure'),
    leg('q', false, 'cancelled', 'success'),
    leg('r', false, 'cancelled', 'success')
  ]),
  'fail-fast: q cancelled, then re-run alone and green (not told apart)': one([
    leg('p', false, 'failure'),
    leg('q', false, 'cancelled', 'success')
  ]),
  'fail-fast with a named red leg: the unnamed leg’s re-run': one([
    leg('p', true, 'failure'),
    leg('q', false, 'cancelled', 'success')
  ]),
  'fail-fast: q and r cancelled, only q re-run (not told apart)': one([
    leg('p', false, 'failure'),
    leg('q', false, 'cancelled', 'success'),
    leg('r', false, 'cancelled')
  ]),
  'fail-fast with a named red leg: q re-run, r cancelled and not re-run': one([
    leg('p', true, 'failure'),
    leg('q', false, 'cancelled', 'success'),
    leg('r', false, 'cancelled')
  ]),
  'fail-fast with a named red leg: two unnamed legs re-run together': one([
    leg('p', true, 'failure'),
    leg('q', false, 'cancelled', 'success'),
    leg('r', false, 'cancelled', 'success')
  ]),
  'a re-run of the red leg (told apart) keeps the other, and turns green': one([
    leg('p', true, 'failure', 'success'),
    leg('q', true, 'success')
  ]),
  'a re-run of a leg not told apart adds its green beside the red': one(
    [leg('p', false, 'failure', 'success'), leg('q', false, 'success')],
    true
  ),
  'two runs, a push between, the older green, over an earlier comment': two(
    [leg('p', false, 'success')],
    [leg('p', false, 'failure')],
    true,
    true
  ),
  'two runs, a push between, no comment yet': two(
    [leg('p', true, 'success')],
    [leg('p', true, 'failure')],
    true,
    false
  ),
  'two runs of the same commit': two(
    [leg('p', true, 'success')],
    [leg('p', true, 'failure')],
    false,
    false
  ),
  'two runs of the same commit, the older red': two(
    [leg('p', true, 'failure')],
    [leg('p', true, 'success')],
    false,
    false
  ),
  'the older run re-run while the newer writes': two(
    [leg('p', true, 'failure', 'success')],
    [leg('p', true, 'failure')],
    true,
    false
  ),
  'a push no run follows, over an earlier green comment, told apart': unrun(
    [leg('p', true, 'success'), leg('q', true, 'failure')],
    'green'
  ),
  'a push no run follows, over an earlier green comment, not told apart': unrun(
    [leg('p', false, 'failure'), leg('q', false, 'success')],
    'green'
  ),
  'a push no run follows, no comment yet': unrun(
    [leg('p', true, 'success'), leg('q', true, 'failure')],
    false
  )
}

const stops = (plan: LegPlan): LegPlan => ({ ...plan, stops: true })

/**
 * Scenarios with a leg that may stop wherever it has calls under way (checkFinal says what holds).
 * Where a green leg may stop, its write from a read made before the red's record can land after
 * the red leg's last round: it lands in a comment older than the red's, or in one of its own.
 */
const STOPPING: Record<string, Scenario> = {
  'legs finishing together, told apart, the red leg may stop': one(
    [stops(leg('p', true, 'failure')), leg('q', true, 'success')],
    true
  ),
  'fail-fast: q cancelled, then re-run alone and green, and may stop (not told apart)': one([
    leg('p', false, 'failure'),
    stops(leg('q', false, 'cancelled', 'success'))
  ]),
  'legs finishing together, told apart, the green leg may stop': one(
    [leg('p', true, 'failure'), stops(leg('q', true, 'success'))],
    true
  ),
  'legs finishing together, not told apart, the green leg may stop': one([
    leg('p', false, 'failure'),
    stops(leg('q', false, 'success'))
  ]),
  'two red legs, told apart, one may stop': one([
    leg('p', true, 'failure'),
    stops(leg('q', true, 'failure'))
  ]),
  'a re-run of the green leg may stop beside the red (told apart)': one(
    [leg('p', true, 'failure'), stops(leg('q', true, 'success', 'success'))],
    true
  ),
  'two runs of the same commit, the older may stop': two(
    [stops(leg('p', true, 'success'))],
    [leg('p', true, 'failure')],
    false,
    false
  ),
  'two runs, a push between, the older may stop': two(
    [stops(leg('p', true, 'success'))],
    [leg('p', true, 'failure')],
    true,
    true
  ),
  'a push no run follows, over an earlier green comment, the green leg may stop': unrun(
    [leg('p', true, 'failure'), stops(leg('q', true, 'success'))],
    'green'
  )
}

/**
 * Three legs writing at once: one red, two green. Before a leg could end on another leg's view
 * over its own, one order ended the red leg on its cap of 8 rounds: the green legs kept writing
 * views without its details, and it wrote them back each time. Now none does: each of the two
 * reaches 961,057 states and 18 final states in 196 to 245 s on a 2-core machine, busy with a
 * mutation run (2026-11-30, since new comments are placeholders; 790,431 states before, and
 * 3,690,928 before the reads came in order).
 */
const THREE_WRITING: Record<string, Scenario> = {
  'three legs writing at once, not told apart': one([
    leg('p', false, 'failure'),
    leg('q', false, 'success'),
    leg('r', false, 'success')
  ]),
  'three legs writing at once, told apart': one([
    leg('p', true, 'failure'),
    leg('q', true, 'success'),
    leg('r', true, 'success')
  ])
}

describe('every interleaving of the legs’ calls keeps every result of the newest run', () => {
  it('no failure of the newest run lost, no success beside it, one comment, in every final state', async () => {
    const started = performance.now()
    let states = 0
    let finals = 0
    const all = Object.entries(SCENARIOS)
    for (const [name, scenario] of all) {
      try {
        const t0 = performance.now()
        const counts = await run(scenario)
        if (process.env.DEBUG_INTERLEAVINGS) {
          process.stdout.write(
            `${name}: ${counts.states} ${Math.round(performance.now() - t0)} ms\n`
          )
        }
        states += counts.states
        finals += counts.finals
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`, { cause: error })
      }
    }
    const ms = Math.round(performance.now() - started)
    process.stdout.write(
      `comment interleavings: ${all.length} scenarios, ${states} states, ${finals} final states, ${ms} ms\n`
    )
    expect(finals).toBeGreaterThan(all.length)
  }, 60_000)
})

/*
 * Wrong variants of the protocol, each breaking one rule; the scheduler must find a final state
 * (or a writer's end) that breaks the oracle for each. They wrap the real protocol, so each
 * differs from it in that rule alone.
 */

/** Keeps each leg's result inside the shared comment (its record never written). */
const recordsInTheComment: Protocol = {
  ...PROTOCOL,
  call: (github, config, call) =>
    call.call === 'record' ? Promise.resolve('refused') : PROTOCOL.call(github, config, call)
}

/** Skips the head-commit check: it takes its own run's commit for the pull request's head. */
const noHeadCheck: Protocol = {
  ...PROTOCOL,
  advance: (config, state, call, answer) =>
    PROTOCOL.advance(config, state, call, call.call === 'head' ? { head: config.sha } : answer)
}

/** A leg that cannot tell itself apart writes as if it were the run's one leg: it replaces. */
const untold = (config: WriterConfig): WriterConfig =>
  config.own.told
    ? config
    : {
        ...config,
        own: {
          ...config.own,
          told: true,
          leg: recordContext(GATE, keyOf(`untold ${config.own.run}`))
        }
      }
const untoldReplaces: Protocol = {
  start: (config) => PROTOCOL.start(untold(config)),
  advance: (config, ...rest) => PROTOCOL.advance(untold(config), ...rest),
  call: (github, config, call) => PROTOCOL.call(github, untold(config), call)
}

/**
 * Planted bug 1: an unnamed leg of a later attempt takes the place of the only earlier result,
 * even when a named leg wrote it (it records in that result's context).
 */
const unnamedTakesTheLoneResult: Protocol = {
  ...PROTOCOL,
  call: (github, config, call) => {
    if (call.call !== 'record' || config.own.told || config.own.attempt < 2) {
      return PROTOCOL.call(github, config, call)
    }
    const earlier = github.statuses.filter(
      (status) =>
        status.sha === call.sha &&
        status.context.includes(GATE) &&
        !status.target_url!.endsWith(`/attempts/${config.own.attempt}`)
    )
    if (earlier.length !== 1) return PROTOCOL.call(github, config, call)
    const status = { ...call.status, context: earlier[0].context }
    return PROTOCOL.call(github, config, { ...call, status })
  }
}

/** Planted bug 2: a leg stops watching once the comment it read holds its own result. */
const stopsOnceItsOwnIsIn: Protocol = {
  ...PROTOCOL,
  advance: (config, state, call, answer) => {
    const next = PROTOCOL.advance(config, state, call, answer)
    const read =
      call.call === 'comments' && typeof answer === 'object' && 'comments' in answer
        ? answer.comments.map((c) => readView(c.body ?? '', MARKER))
        : (state.answers.comments ?? []).map((c) => c.view)
    const own = read.some((view) => view?.results.some((r) => r.key === next.recorded))
    const writes = next.calls.some((c) => c.call === 'update')
    return own && writes ? { ...next, calls: [], ending: 'written' } : next
  }
}

/** `scenario` explored whole, its state counts and its time written out under `name`. */
async function explored(name: string, scenario: Scenario, maxStates?: number): Promise<void> {
  const t0 = performance.now()
  const counts = await run(scenario, PROTOCOL, maxStates)
  process.stdout.write(
    `${name}: ${counts.states} states, ${counts.finals} final states, ${Math.round(performance.now() - t0)} ms\n`
  )
}

describe('a leg that stops mid-protocol loses no failure of a leg that did not', () => {
  it.each(Object.keys(STOPPING))('%s', (name) => explored(name, STOPPING[name]), 120_000)
  // pr_comment: failure, where a passing leg reads the comments before it records.
  it.each(Object.keys(STOPPING))(
    'pr_comment: failure, %s',
    (name) => explored(`failure: ${name}`, { ...STOPPING[name], mode: 'failure' }),
    120_000
  )
})

/** Leaves an older pass over its red when the head has no result: it never reads its own commit's. */
const supersededWritesNothing: Protocol = {
  ...PROTOCOL,
  advance: (config, state, call, answer) =>
    PROTOCOL.advance(
      config,
      { ...state, answers: { ...state.answers, ownRecords: undefined } },
      call,
      answer
    )
}

/**
 * Planted bug 3: a red leg keeps its result in whatever comment is newest, one made before its
 * record too (comment-round.ts's homeless, never true).
 */
const redInAnOlderComment: Protocol = {
  ...PROTOCOL,
  advance: (config, state, call, answer) =>
    PROTOCOL.advance(config, { ...state, home: 0 }, call, answer)
}

describe('the scheduler catches a wrong variant of each rule', () => {
  const caught = async (protocol: Protocol, names: string[]) => {
    const failures: string[] = []
    for (const name of names) {
      try {
        await run(SCENARIOS[name] ?? STOPPING[name], protocol)
      } catch (error) {
        // Caught by the oracle (a final state or a writer's end), not by a crash of the variant.
        const message = (error as Error).message.split('\n')[0]
        if (/^expect\(|^a writer (ended|made)/.test(message)) failures.push(`${name}: ${message}`)
        else throw error
      }
    }
    return failures
  }

  const threeLegs = 'fail-fast: q and r cancelled, then re-run and green (not told apart)'
  it.each([
    ['a writer that keeps its records inside the shared comment', recordsInTheComment, [threeLegs]],
    [
      'a writer that skips the head-commit check',
      noHeadCheck,
      ['two runs, a push between, no comment yet']
    ],
    [
      'a leg that cannot tell itself apart and replaces',
      untoldReplaces,
      [
        'fail-fast: q cancelled, then re-run alone and green (not told apart)',
        'fail-fast: q and r cancelled, only q re-run (not told apart)'
      ]
    ],
    [
      'an unnamed leg of a later attempt that replaces a named leg’s lone result',
      unnamedTakesTheLoneResult,
      [
        'fail-fast with a named red leg: the unnamed leg’s re-run',
        'fail-fast with a named red leg: q re-run, r cancelled and not re-run'
      ]
    ],
    [
      'a leg that stops watching once its own result is in',
      stopsOnceItsOwnIsIn,
      ['legs finishing together, not told apart', threeLegs]
    ],
    [
      'a superseded red run that leaves an older pass shown when the head has no result',
      supersededWritesNothing,
      ['a push no run follows, over an earlier green comment, told apart']
    ],
    [
      'a red leg that keeps its result in a comment made before its record',
      redInAnOlderComment,
      ['legs finishing together, told apart, the green leg may stop']
    ]
  ])(
    '%s',
    async (_, protocol, names) => {
      // The real protocol passes the same scenarios.
      for (const name of names) await run(SCENARIOS[name] ?? STOPPING[name])
      const failures = await caught(protocol, names)
      expect(failures).toHaveLength(names.length)
    },
    120_000
  )
})

/*
 * Three legs writing at once take minutes (the count is above THREE_WRITING): they run with
 * INTERLEAVINGS_THREE=1 (`npm run test:simulated -- comment-interleavings -t 'three legs'`).
 */
const three = process.env.INTERLEAVINGS_THREE === '1' ? describe : describe.skip
three('three legs writing at once', () => {
  it.each(Object.keys(THREE_WRITING))(
    '%s',
    (name) => explored(name, THREE_WRITING[name], 5_000_000),
    1_200_000
  )
})
