/*
 * Matrix legs share the sticky comment: the legs of one workflow run and attempt add their results,
 * the worst outcome heads it, a new run or attempt starts afresh, and legs that write at once
 * converge (and what GitHub's REST API leaves of that race). Against GitHub's comments kept in
 * memory, so that the order of two legs' calls is the test's; the HTTP side is pr-comment.test.ts,
 * and the bundle's legs over the local GitHub server are e2e/pull-request.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import type { Clock } from '../src/domain/clock.js'
import type { Outcome } from '../src/wait/wait-for-operations.js'
import type { RunReport } from '../src/report/report.js'
import {
  DETAILS_BUDGET_BYTES,
  legResult,
  mergeResults,
  readComment
} from '../src/runner/comment-results.js'
import { renderComment, RESULTS_BUDGET_BYTES } from '../src/runner/comment-render.js'
import type { CommentMode } from '../src/runner/comment-writes.js'
import type { CommentApi, IssueComment } from '../src/runner/github-comments.js'
import { legInputName } from '../src/runner/comment-leg.js'
import { gateMarker, writePullRequestComment } from '../src/runner/pr-comment.js'
import { pullRequestContext } from './support/github/context.js'
import { collectingLogger } from './support/logger.js'
import { operation } from './support/neon/operations.js'

const BOT = { login: 'github-actions[bot]', type: 'Bot' }
const context = pullRequestContext('http://127.0.0.1:9')
const gate = { projectId: 'p-1', branchId: 'br-1', operationIds: [] }
const marker = gateMarker(context, gate)
const url = (id: number) => `https://github.com/octo/app/pull/42#issuecomment-${id}`

/**
 * A clock whose pauses between a leg's writes end at the next turn of the event loop, and whose
 * time limit (5 s) never comes unless aborted: the order of the legs' calls is the test's alone.
 */
let quickTime = 0
function quickClock(): Clock {
  return {
    now: () => quickTime,
    wallNow: () => Date.parse('2026-11-21T12:00:00Z') + quickTime++,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
        if (ms >= 5000) return
        quickTime += ms
        setImmediate(resolve)
      })
  }
}

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; release: () => void } {
  let release = () => undefined as void
  const promise = new Promise<void>((resolve) => (release = resolve))
  return { promise, release }
}

/**
 * GitHub's issue comments in memory. Each list takes its snapshot when asked and answers it when
 * `afterSnapshot` lets it: a list can answer a state that a write has changed since, as on the real
 * API.
 */
class MemoryGitHub {
  comments: IssueComment[] = []
  readonly calls: string[] = []
  private nextId = 100
  /** Called as each list's snapshot is taken; the list answers once what it returns settles. */
  afterSnapshot?: () => Promise<void> | void

  api(): CommentApi {
    return {
      authenticatedLogin: async () => BOT.login,
      // eslint-disable-next-line require-yield -- no jobs API here: legs cannot be told apart
      listJobs: async function* () {
        throw Object.assign(new Error('Resource not accessible by integration'), { status: 403 })
      },
      listComments: () => this.list(),
      createComment: async (body) => {
        this.calls.push('POST')
        const id = this.nextId++
        const comment = { id, body, user: BOT, html_url: url(id) }
        this.comments.push(comment)
        return { ...comment }
      },
      updateComment: async (id, body) => {
        this.calls.push(`PATCH ${id}`)
        const found = this.comments.find((comment) => comment.id === id)
        if (!found) throw Object.assign(new Error('Not Found'), { status: 404 })
        found.body = body
        return { ...found }
      },
      deleteComment: async (id) => {
        this.calls.push(`DELETE ${id}`)
        this.comments = this.comments.filter((comment) => comment.id !== id)
      }
    }
  }

  private async *list(): AsyncIterable<IssueComment[]> {
    this.calls.push('GET')
    const snapshot = this.comments.map((comment) => ({ ...comment }))
    await this.afterSnapshot?.()
    yield snapshot
  }

  /** The one comment there is, and what it holds. */
  only() {
    expect(this.comments).toHaveLength(1)
    const [comment] = this.comments
    return { comment, content: readComment(comment.body ?? '', marker)! }
  }
}

/** A report of `outcome` on one operation (its action names the leg), failed when it is not a success. */
function report(outcome: Outcome, action: string): RunReport {
  const status = outcome === 'success' ? 'finished' : outcome === 'failure' ? 'error' : 'running'
  const operations = [
    operation({ action, status, error: status === 'error' ? 'no capacity' : undefined })
  ]
  const wait = { outcome, polls: 1, observed: true, readAt: new Map(), elapsedMs: 10, operations }
  return { outcome, wait, elapsedMs: 10, requests: { requests: 1, retries: 0 } }
}

/** One leg of run 9 (or of `runId`, `runAttempt`): its comment, with `pr_comment: always`. */
function leg(
  github: MemoryGitHub,
  name: string,
  outcome: Outcome,
  {
    runId = '9',
    runAttempt = '1',
    mode = 'always',
    legInput
  }: { runId?: string; runAttempt?: string; mode?: CommentMode; legInput?: string } = {}
) {
  const { logger, lines } = collectingLogger()
  const written = writePullRequestComment({
    mode,
    token: 'ghs_memory_token',
    context: { ...context, runId, runAttempt },
    report: report(outcome, `action_of_${name}`),
    gate,
    logger,
    redact: (text) => text,
    api: async () => github.api(),
    leg: name,
    legInput,
    clock: quickClock(),
    random: () => 0.5
  })
  return { written, lines }
}

const legsOf = (content: ReturnType<MemoryGitHub['only']>['content']) =>
  content.results.results.map((result) => [result.leg, result.outcome])

describe('legs of one run and attempt add their results; the worst heads the comment', () => {
  it('a failure, then a success and a timeout: the failure stays the headline, with every result', async () => {
    const github = new MemoryGitHub()
    expect(await leg(github, 'a', 'failure').written).toBe(url(100))
    expect(await leg(github, 'b', 'success').written).toBe(url(100))
    expect(await leg(github, 'c', 'timeout').written).toBe(url(100))
    const { comment, content } = github.only()
    expect(legsOf(content)).toEqual([
      ['a', 'failure'],
      ['b', 'success'],
      ['c', 'timeout']
    ])
    expect(content.results).toMatchObject({ run: '9', attempt: '1', shown: 'a' })
    // The headline and the details are the failing leg's; the table lists all three.
    expect(comment.body).toMatch(
      new RegExp(
        `^${marker}\\n<h2>Neon operations gate</h2>\\n<p><b>❌ failure</b>: <code>action_of_a</code>`
      )
    )
    expect(comment.body).toContain('<h3>3 results of this workflow run</h3>')
    expect(comment.body).toMatch(/<tr><td>2<\/td><td>✅ success: the operation finished/)
    expect(comment.body).toMatch(/<tr><td>3<\/td><td>⌛ timeout/)
    expect(Buffer.byteLength(comment.body!)).toBeLessThan(60_000)
  })

  it('a red leg after a green one takes the headline; of two failures the newer shows', async () => {
    const github = new MemoryGitHub()
    await leg(github, 'a', 'success').written
    await leg(github, 'b', 'failure').written
    expect(github.only().content.results.shown).toBe('b')
    expect(github.only().comment.body).toContain('<code>action_of_b</code>')
    await leg(github, 'c', 'failure').written
    expect(github.only().content.results.shown).toBe('c')
    await leg(github, 'd', 'cancelled').written
    expect(github.only().content.results.shown).toBe('c')
  })

  it('a re-run keeps the results of earlier attempts, marked with their attempt; a new run starts afresh; a later run’s comment is left alone', async () => {
    const github = new MemoryGitHub()
    await leg(github, 'a', 'failure').written
    await leg(github, 'b', 'success').written
    // Legs that cannot be told apart: the re-run's green result is added, and the red one stays.
    expect(await leg(github, 'c', 'success', { runAttempt: '2' }).written).toBe(url(100))
    const { comment, content } = github.only()
    expect(legsOf(content)).toEqual([
      ['a', 'failure'],
      ['b', 'success'],
      ['c', 'success']
    ])
    expect(content.results.results.map((result) => result.attempt)).toEqual(['1', '1', '2'])
    expect(comment.body).toContain('<b>❌ failure</b>')
    expect(comment.body).toContain('<h3>3 results of this workflow run</h3>')
    expect(comment.body).toContain('cannot be told apart')
    await leg(github, 'd', 'timeout', { runId: '10' }).written
    expect(legsOf(github.only().content)).toEqual([['d', 'timeout']])
    // A leg of run 9 that finishes last does not overwrite run 10's results.
    const late = leg(github, 'e', 'success', { runAttempt: '3' })
    expect(await late.written).toBeUndefined()
    expect(late.lines).toEqual([
      `info: pr_comment: ${url(100)} holds the results of a later run of this gate; left as it is`
    ])
    expect(legsOf(github.only().content)).toEqual([['d', 'timeout']])
  })

  it('legs named by pr_comment_leg: a re-run of some replaces their results only, and a re-run that fixes every red one turns the comment green', async () => {
    const github = new MemoryGitHub()
    const named = (name: string, outcome: Outcome, runAttempt: string) =>
      leg(github, `${name}${runAttempt}`, outcome, {
        runAttempt,
        legInput: `{\n  "region": "${name}"\n}`
      }).written
    await Promise.all([
      named('a', 'failure', '1'),
      named('b', 'failure', '1'),
      named('c', 'success', '1')
    ])
    // Attempt 2 re-runs a alone, and it passes: b's failure stays, and heads the comment.
    await named('a', 'success', '2')
    const second = github.only()
    expect(second.content.results.results.map((r) => [r.name, r.outcome, r.attempt])).toEqual([
      ['b', 'failure', '1'],
      ['c', 'success', '1'],
      ['a', 'success', '2']
    ])
    // b's details, or its line where the comment no longer holds them.
    expect(second.comment.body).toMatch(/\n<p>(<b>)?❌ failure(<\/b>)?: (<code>)?action_of_b1/)
    expect(second.comment.body).toContain('Results of earlier attempts stay')
    expect(second.comment.body).not.toContain('cannot be told apart')
    // Attempt 3 re-runs b, and it passes: every leg's newest result is green.
    await named('b', 'success', '3')
    const third = github.only()
    expect(third.content.results.results.map((r) => [r.name, r.outcome, r.attempt])).toEqual([
      ['c', 'success', '1'],
      ['a', 'success', '2'],
      ['b', 'success', '3']
    ])
    expect(third.comment.body).toMatch(/\n<p><b>✅ success<\/b>/)
  })

  it('two legs given the same pr_comment_leg in one attempt: both results stay, red over green, one warning', async () => {
    const github = new MemoryGitHub()
    const red = leg(github, 'red', 'failure', { legInput: 'eu-west' })
    const redUrl = await red.written
    const green = leg(github, 'green', 'success', { legInput: 'eu-west' })
    await green.written
    const { comment, content } = github.only()
    expect(legsOf(content)).toEqual([
      ['red', 'failure'],
      ['green', 'success']
    ])
    expect(comment.body).toContain('<b>❌ failure</b>')
    // The red leg's comment_url still holds its result.
    expect(redUrl).toBe(comment.html_url)
    expect(green.lines.filter((line) => line.startsWith('warning'))).toEqual([
      expect.stringContaining(
        'pr_comment: another leg of this run attempt has the same name (eu-west)'
      )
    ])
    // A re-run of one of them cannot tell which it replaces: both stay, and the red heads.
    await leg(github, 'again', 'success', { legInput: 'eu-west', runAttempt: '2' }).written
    expect(legsOf(github.only().content)).toEqual([
      ['red', 'failure'],
      ['green', 'success'],
      ['again', 'success']
    ])
    expect(github.only().comment.body).toContain('<b>❌ failure</b>')
  })

  it('a named leg and an unnamed one: the named leg’s re-run replaces its own result only, never the unnamed leg’s', async () => {
    for (const other of ['failure', 'success'] as const) {
      const github = new MemoryGitHub()
      const region = '{"region":"eu-west"}'
      await leg(github, 'named', 'failure', { legInput: region }).written
      await leg(github, 'unnamed', other).written
      // "Re-run job" on the named leg alone, which now passes.
      await leg(github, 'named-again', 'success', { legInput: region, runAttempt: '2' }).written
      const { comment, content } = github.only()
      expect([other, legsOf(content)]).toEqual([
        other,
        [
          ['unnamed', other],
          ['named-again', 'success']
        ]
      ])
      if (other === 'failure') expect(comment.body).toContain('<b>❌ failure</b>')
    }
  })

  it('a gate of one leg, re-run: its new result takes the place of the old one, as before (always and failure)', async () => {
    for (const mode of ['always', 'failure'] as const) {
      const github = new MemoryGitHub()
      await leg(github, 'first', 'failure', { mode }).written
      await leg(github, 'again', 'success', { mode, runAttempt: '2' }).written
      const { comment, content } = github.only()
      expect(legsOf(content)).toEqual([['again', 'success']])
      expect(comment.body).toMatch(/\n<p><b>✅ success<\/b>/)
      expect(comment.body).not.toContain('results of this workflow run')
      await leg(github, 'third', 'timeout', { mode, runAttempt: '3' }).written
      expect(legsOf(github.only().content)).toEqual([['third', 'timeout']])
    }
  })

  it('pr_comment: failure adds a green leg to a red comment of its run; it creates none alone', async () => {
    const github = new MemoryGitHub()
    expect(await leg(github, 'a', 'success', { mode: 'failure' }).written).toBeUndefined()
    expect(github.comments).toEqual([])
    await leg(github, 'b', 'failure', { mode: 'failure' }).written
    await leg(github, 'c', 'success', { mode: 'failure' }).written
    expect(legsOf(github.only().content)).toEqual([
      ['b', 'failure'],
      ['c', 'success']
    ])
  })

  it('a comment without results (an older version’s, or one edited by hand) is replaced', async () => {
    const github = new MemoryGitHub()
    github.comments.push({ id: 5, body: `${marker}\n<p>old</p>`, user: BOT, html_url: url(5) })
    expect(await leg(github, 'a', 'success').written).toBe(url(5))
    expect(legsOf(github.only().content)).toEqual([['a', 'success']])
    github.comments[0].body = `${github.comments[0].body!.slice(0, -5)}{"bad" -->`
    await leg(github, 'b', 'timeout').written
    expect(legsOf(github.only().content)).toEqual([['b', 'timeout']])
  })
})

describe('re-runs of some legs, named or not: never green over a red no newer result of that leg replaced', () => {
  // Legs of one matrix, each with its own name, the same name as another, or none; attempt 1 runs
  // every leg, attempt 2 re-runs some of them, each in any order. Found: a named leg's re-run took
  // the place of an unnamed leg's red result.
  const matrix = fc.record({
    legs: fc.array(
      fc.record({
        name: fc.option(fc.constantFrom('eu-west', 'us-east', 'ap-south'), {
          nil: undefined,
          freq: 2
        }),
        first: fc.constantFrom<Outcome>('success', 'failure'),
        rerun: fc.option(fc.constantFrom<Outcome>('success', 'failure'), {
          nil: undefined,
          freq: 2
        })
      }),
      { minLength: 1, maxLength: 5 }
    ),
    order: fc.array(fc.nat(), { minLength: 10, maxLength: 10 })
  })

  it('holds over generated matrices and re-runs (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(matrix, async ({ legs, order }) => {
        const github = new MemoryGitHub()
        const shuffled = <T>(items: T[]) =>
          items
            .map((item, i) => ({ item, key: order[i % order.length] + i / 100 }))
            .sort((a, b) => a.key - b.key)
            .map(({ item }) => item)
        for (const [attempt, pick] of [
          ['1', (l: (typeof legs)[number]) => l.first],
          ['2', (l: (typeof legs)[number]) => l.rerun]
        ] as const) {
          for (const [i, drawn] of shuffled([...legs.entries()])) {
            const outcome = pick(drawn)
            if (!outcome) continue
            const options = { runAttempt: attempt, legInput: drawn.name }
            await leg(github, `leg${i}-${attempt}`, outcome, options).written
          }
        }
        const newestRed = legs.some((drawn) => (drawn.rerun ?? drawn.first) === 'failure')
        const { comment, content } = github.only()
        const { shown, results } = content.results
        const headline = results.find((result) => result.leg === shown)?.outcome
        expect(headline === 'failure' || !newestRed).toBe(true)
        // The headline as written: the shown result's line, first under the title.
        if (newestRed) expect(comment.body).toMatch(/<\/h2>\n<p>(<b>)?❌ failure/)
      }),
      { numRuns: 150, seed: 61_2026 }
    )
  })
})

describe('legs that write at once', () => {
  it('both list before either creates: two comments, then one, holding both results', async () => {
    const github = new MemoryGitHub()
    const both = deferred()
    let lists = 0
    // The first list waits for the second: both see no comment, and both create one.
    github.afterSnapshot = () =>
      ++lists === 2 ? both.release() : lists === 1 ? both.promise : undefined
    const [a, b] = [leg(github, 'a', 'failure'), leg(github, 'b', 'success')]
    const [urlA, urlB] = await Promise.all([a.written, b.written])
    expect(github.calls.filter((call) => call === 'POST')).toHaveLength(2)
    const { comment, content } = github.only()
    expect([urlA, urlB]).toEqual([comment.html_url, comment.html_url])
    expect(legsOf(content).sort()).toEqual([
      ['a', 'failure'],
      ['b', 'success']
    ])
    expect(content.results.shown).toBe('a')
    expect([...a.lines, ...b.lines].filter((line) => line.startsWith('warning'))).toEqual([])
  })

  it('a leg whose new comment another leg merged and deleted names the comment that holds its result', async () => {
    const github = new MemoryGitHub()
    const both = deferred()
    let lists = 0
    github.afterSnapshot = () =>
      ++lists === 2 ? both.release() : lists === 1 ? both.promise : undefined
    // The second create lands at once, but GitHub answers it only once the other leg is done: that
    // leg merges both results into its own comment and deletes this one before this leg reads back.
    const api = github.api()
    const otherDone = deferred()
    let creates = 0
    github.api = () => ({
      ...api,
      createComment: async (body) => {
        const created = await api.createComment(body)
        if (++creates === 2) await otherDone.promise
        return created
      }
    })
    const [a, b] = [leg(github, 'a', 'failure'), leg(github, 'b', 'success')]
    const first = await Promise.race([a.written, b.written])
    otherDone.release()
    const urls = await Promise.all([a.written, b.written])
    const { comment, content } = github.only()
    expect(first).toBe(comment.html_url)
    expect(legsOf(content).sort()).toEqual([
      ['a', 'failure'],
      ['b', 'success']
    ])
    // Both name the comment that holds their results, never the one deleted, in the output and the log.
    expect(urls).toEqual([comment.html_url, comment.html_url])
    for (const { lines } of [a, b]) expect(lines.at(-1)).toContain(comment.html_url!)
  })

  it('both read the comment before either writes: the one overwritten merges its result back in', async () => {
    const github = new MemoryGitHub()
    await leg(github, 'first', 'success').written
    github.calls.length = 0
    const both = deferred()
    // Lists 2 and 3 (each leg's first) see the same comment, before either leg writes.
    let lists = 0
    // Each leg's first list sees the same comment: the first waits for the second.
    github.afterSnapshot = () =>
      ++lists === 2 ? both.release() : lists === 1 ? both.promise : undefined
    const [a, b] = [leg(github, 'a', 'timeout'), leg(github, 'b', 'failure')]
    await Promise.all([a.written, b.written])
    expect(legsOf(github.only().content).sort()).toEqual([
      ['a', 'timeout'],
      ['b', 'failure'],
      ['first', 'success']
    ])
    expect(github.only().content.results.shown).toBe('b')
    // Both wrote from the same read; one read back without its result and wrote again.
    expect(github.calls.filter((call) => call.startsWith('PATCH'))).toHaveLength(3)
  })

  it('a leg whose read is older than the shortest watch writes a comment of its own, so the result another leg wrote after that read survives', async () => {
    // Leg b reads, leg a writes and reads back (its result is there) and ends, then b's answer
    // comes: b's read took longer than any leg watches after its write. b's update would drop a's
    // result after a stopped watching (as it did before), so b creates a comment of its own instead,
    // then merges it into the oldest from a new read, and deletes it.
    const github = new MemoryGitHub()
    await leg(github, 'first', 'success').written
    const aDone = deferred()
    let lists = 0
    // b's first list (its snapshot taken at once) answers only once a is done.
    github.afterSnapshot = () => (++lists === 1 ? aDone.promise : undefined)
    const b = leg(github, 'b', 'success')
    await new Promise((resolve) => setImmediate(resolve))
    const callsBefore = github.calls.length
    const a = leg(github, 'a', 'failure')
    expect(await a.written).toBe(url(100))
    const callsOfA = github.calls.length - callsBefore
    aDone.release()
    expect(await b.written).toBe(url(100))
    expect(legsOf(github.only().content)).toEqual([
      ['first', 'success'],
      ['b', 'success'],
      ['a', 'failure']
    ])
    expect(github.calls.slice(callsBefore + callsOfA)).toEqual([
      'POST',
      'GET',
      'PATCH 100',
      'DELETE 101',
      'GET'
    ])
    expect(b.lines).toEqual([`info: pr_comment: updated ${url(100)}`])
  })

  it('legs that keep overwriting each other: at most 5 writes each, then a warning', async () => {
    const github = new MemoryGitHub()
    await leg(github, 'first', 'success').written
    // Another leg that overwrites every write of this one with a comment that lacks it.
    const api = github.api()
    const before = github.only().comment.body!
    const update = api.updateComment
    let writes = 0
    github.api = () => ({
      ...api,
      updateComment: async (id, body) => {
        writes++
        await update(id, body)
        return update(id, before)
      }
    })
    const stubborn = leg(github, 'a', 'failure')
    expect(await stubborn.written).toBe(url(100))
    expect(writes).toBe(5)
    expect(stubborn.lines).toEqual([
      `warning: pr_comment: other runs of this gate kept writing ${url(100)} at the same time; after 5 writes it may lack a result (each run's own check and summary keep theirs)`,
      `info: pr_comment: updated ${url(100)}`
    ])
  })
})

describe('the results within the comment’s size', () => {
  const details = '<h2>Neon operations gate</h2>\n<p>d</p>\n'
  const own = (leg: string, outcome: Outcome | 'error', line = `${outcome} of ${leg}`) => ({
    run: '9',
    attempt: '1',
    result: legResult(leg, outcome, line, Date.parse('2026-11-21T12:00:00Z')),
    details
  })

  it('40 legs with long lines: the 30 most severe kept, the table and the data within their budget', () => {
    let content = {
      results: { run: '9', attempt: '1', shown: '', results: [] },
      details
    } as ReturnType<typeof mergeResults>
    for (let i = 0; i < 40; i++) {
      const outcome = i === 3 ? 'failure' : 'success'
      const merged = mergeResults([content as never], own(`leg-${i}`, outcome, `<&>`.repeat(300)))
      if (merged === 'later') throw new Error('not a later run')
      content = merged
    }
    if (content === 'later') throw new Error('not a later run')
    expect(content.results.results).toHaveLength(30)
    expect(content.results.shown).toBe('leg-3')
    expect(content.results.results.map((result) => result.leg)).toContain('leg-3')
    expect(content.results.results.at(-1)!.leg).toBe('leg-39')
    const body = renderComment(marker, content, '')
    const results = body.slice(body.indexOf('<!-- neon-operations-gate-details-end -->'))
    expect(Buffer.byteLength(results)).toBeLessThanOrEqual(RESULTS_BUDGET_BYTES + 100)
    // The data line holds no `>` that could end its HTML comment early, and reads back.
    expect(body.split('\n').at(-1)!.slice(4, -4)).not.toMatch(/[<>]/)
    expect(readComment(body, marker)?.results.results.length).toBeGreaterThan(1)
  })

  it('details at their budget and a full table stay under 60,000 bytes; details edited past it give way to the line', () => {
    const big = `<h2>Neon operations gate</h2>\n<p>${'é'.repeat(DETAILS_BUDGET_BYTES / 2 - 40)}</p>\n`
    expect(Buffer.byteLength(big)).toBeLessThanOrEqual(DETAILS_BUDGET_BYTES)
    let content: ReturnType<typeof mergeResults> = {
      results: { run: '9', attempt: '1', shown: 'red', results: [] },
      details: big
    }
    content = mergeResults([content], { ...own('red', 'failure', '>'.repeat(300)), details: big })
    for (let i = 0; i < 40 && content !== 'later'; i++) {
      content = mergeResults([content], own(`leg-${i}`, 'success', '<'.repeat(300)))
    }
    if (content === 'later') throw new Error('not a later run')
    expect(content.details).toBe(big)
    const footer =
      '<p><sub><a href="https://github.com/octo/app/actions/runs/9">Workflow run</a></sub></p>\n'
    const body = renderComment(marker, content, footer)
    expect(Buffer.byteLength(body)).toBeLessThan(60_000)
    expect(readComment(body, marker)?.details).toBe(big)
    const edited = { ...content, details: big + 'x'.repeat(1000) }
    const merged = mergeResults([edited], own('green', 'success'))
    if (merged === 'later') throw new Error('not a later run')
    expect(merged.details).toMatch(
      /^<h2>Neon operations gate<\/h2>\n<p>(&gt;){150,200}… \[\d+ more characters\]<\/p>\n$/
    )
  })
})

describe('pr_comment_leg names the leg as GitHub names a matrix job', () => {
  it('a matrix’s values, a job without a matrix by its id, other text as it is', () => {
    expect(legInputName('{\n  "region": "eu-west",\n  "node": 16\n}', 'gate')).toBe('eu-west, 16')
    expect(legInputName('{"os": {"name": "linux"}}', 'gate')).toBe('{"name":"linux"}')
    expect(legInputName('null', 'gate')).toBe('gate')
    expect(legInputName('"eu"', 'gate')).toBe('eu')
    expect(legInputName('  eu  west ', 'gate')).toBe('eu west')
  })
})
