/*
 * The sticky comment in GitHub's order, through the bundle against the local GitHub API (issue 66):
 * an older run with slow round trips never writes over a newer run's red (nor adds a second
 * comment under it), and a fail-fast-cancelled leg re-run alone never turns a red comment green.
 * Slowness is an event here: the older run's answers wait until the newer run's comment is done.
 * And a run whose commit is no longer the head, where the head has no run of the gate (a push a
 * `paths:` filter or `[skip ci]` kept from starting one), shows its red over an older green.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, serve, terminateOn } from '../support/bundles/action.js'
import { ACTIONS_BOT, type GitHubServer, startGitHubServer } from '../support/github/server.ts'
import { ORG, PROJECT } from '../support/neon/ids.js'
import { operationIn } from '../support/neon/scenarios.js'
import { readView } from '../../src/runner/comment-view.js'

const REPOSITORY = 'octo/app'
const OLD_TOKEN = 'ghs_local_older_run_token_01234'
const NEW_TOKEN = 'ghs_local_newer_run_token_56789'
const OLD_HEAD = '1'.repeat(40)
/** The newer run's Neon key, and the read of the operation it makes: past `finished`. */
const NEWER_NEON_KEY = 'napi_local_newer_run_4e81c0d7b2a9'
const LATE_READ = 1000
const NEW_HEAD = '2'.repeat(40)

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function github(): Promise<GitHubServer> {
  const server = await startGitHubServer()
  for (const token of [OLD_TOKEN, NEW_TOKEN]) {
    server.tokens.set(token, { user: ACTIONS_BOT, canWrite: true })
  }
  cleanups.push(server.close)
  return server
}

/** A pull_request run of pull request 42 at `head`, as the runner sets it. */
function runnerEnv(api: GitHubServer, run: { id: string; attempt?: string; head: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'event-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const eventPath = join(dir, 'event.json')
  const head = { sha: run.head, repo: { full_name: REPOSITORY } }
  writeFileSync(eventPath, JSON.stringify({ number: 42, pull_request: { number: 42, head } }))
  return {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_WORKFLOW: 'Preview',
    GITHUB_JOB: 'gate',
    GITHUB_RUN_ID: run.id,
    GITHUB_RUN_ATTEMPT: run.attempt ?? '1',
    GITHUB_ACTOR: 'octocat',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: api.apiUrl
  }
}

/** The gate's comments on the pull request (a person's never start with the marker). */
const gateComments = (api: GitHubServer) =>
  api.comments.filter((comment) => comment.body.startsWith('<!-- neon-operations-gate:'))

/**
 * One gate (the same operation, so one comment) for two runs or legs at once: finished for
 * OLD_TOKEN's, failed for NEW_TOKEN's, whichever reads it first (the two bundles start at once):
 * the red one has a Neon key of its own, and each read is the first of the timeline, or for that
 * key a late one. `leg` names a leg (pr_comment_leg).
 */
async function greenAndRed() {
  const api = await github()
  const { world, server } = await serve()
  const op = operationIn(world, 'finished', {
    then: 'error',
    reads: LATE_READ,
    branchId: 'br-preview-42',
    error: 'out of capacity'
  })
  world.addKey({ token: NEWER_NEON_KEY, type: 'organization', accountId: ORG, orgIds: [ORG] })
  server.onRequest = (record) => {
    op.reads = record.headers.authorization === `Bearer ${NEWER_NEON_KEY}` ? LATE_READ : 0
  }
  const inputs = (token: string, leg?: string) => ({
    project_id: PROJECT,
    operation_id: op.id,
    pr_comment: 'always',
    github_token: token,
    ...(leg ? { pr_comment_leg: leg } : {}),
    ...(token === NEW_TOKEN ? { api_key: NEWER_NEON_KEY } : {})
  })
  return { api, server, inputs }
}

/**
 * Two runs of one pull request: run 777 at OLD_HEAD passes, run 778 at NEW_HEAD (the pull
 * request's head) fails. The older run's answers are held from its first GitHub request until the
 * newer run has ended: GET (old) · … every call of the newer run … · the older run's writes.
 */
async function olderRunSlow(earlier: boolean) {
  const { api, server, inputs } = await greenAndRed()
  if (earlier) {
    // An earlier run (776) of the older commit wrote the comment.
    api.pulls.set(`${REPOSITORY}#42`, OLD_HEAD)
    const first = await runAction(server, inputs(OLD_TOKEN), {
      env: runnerEnv(api, { id: '776', head: OLD_HEAD })
    })
    expect(first.code).toBe(0)
    expect(gateComments(api)).toHaveLength(1)
  }
  api.pulls.set(`${REPOSITORY}#42`, NEW_HEAD)
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  let reached: () => void = () => undefined
  const oldReachedGitHub = new Promise<void>((resolve) => (reached = resolve))
  // Both bundles start at once; the newer run's GitHub calls wait until the older run has read, so
  // the older run's 10 s cover only the newer run's comment, never a loaded machine's bundle start.
  api.beforeAnswer = async (record) => {
    if (record.token !== OLD_TOKEN) return oldReachedGitHub
    reached()
    await released
  }
  const older = runAction(server, inputs(OLD_TOKEN), {
    env: runnerEnv(api, { id: '777', head: OLD_HEAD })
  })
  // Released once the newer run's comment work is done (its last pr_comment line).
  const newer = await runAction(server, inputs(NEW_TOKEN), {
    env: runnerEnv(api, { id: '778', head: NEW_HEAD }),
    onStdout: (chunk) => {
      if (/pr_comment: (created|updated|Could not)|Could not write the pull-request/.test(chunk))
        release()
    }
  })
  release()
  return { api, older: await older, newer }
}

describe('an older run never writes over a newer run’s result (issue 66)', () => {
  it('the older run, its round trips slow, leaves the newer run’s red comment as it is', async () => {
    const { api, older, newer } = await olderRunSlow(true)
    expect(newer.code).toBe(1)
    const comments = gateComments(api)
    expect(comments).toHaveLength(1)
    expect(comments[0].body).toMatch(/\n<p><b>❌ failure<\/b>/)
    expect(comments[0].body).toContain('actions/runs/778')
    expect(comments[0].body).not.toContain('actions/runs/777')
    expect(older.stdout).toMatch(/pr_comment: .*superseded/)
  })

  it('with no comment yet, the older run adds no second comment under the red', async () => {
    const { api, older } = await olderRunSlow(false)
    const comments = gateComments(api)
    expect(comments).toHaveLength(1)
    expect(comments[0].body).toMatch(/\n<p><b>❌ failure<\/b>/)
    expect(comments[0].body).toContain('actions/runs/778')
    expect(older.stdout).toMatch(/pr_comment: .*superseded/)
  })
})

/** One gate whose operation reads `first`, then `then` (the comment's inputs, NEW_TOKEN's). */
async function oneGate(first: 'error' | 'finished', then: 'error' | 'finished') {
  const api = await github()
  const { world, server } = await serve()
  const op = operationIn(world, first, {
    then,
    branchId: 'br-preview-42',
    error: 'out of capacity'
  })
  const inputs = {
    project_id: PROJECT,
    operation_id: op.id,
    pr_comment: 'always',
    github_token: NEW_TOKEN
  }
  return { api, server, inputs }
}

describe('a fail-fast-cancelled leg, re-run alone, never turns a red comment green (issue 66)', () => {
  it('leg A fails; leg B, cancelled before its gate, is re-run and passes: the red stays the headline', async () => {
    // The first read finds the operation failed (leg A), the next finished (leg B's re-run).
    const { api, server, inputs } = await oneGate('error', 'finished')
    api.pulls.set(`${REPOSITORY}#42`, NEW_HEAD)
    const legA = await runAction(server, inputs, {
      env: runnerEnv(api, { id: '778', head: NEW_HEAD })
    })
    expect(legA.code).toBe(1)
    // GitHub cancelled leg B (fail-fast) before its gate: it wrote nothing. "Re-run this job":
    const legB = await runAction(server, inputs, {
      env: runnerEnv(api, { id: '778', attempt: '2', head: NEW_HEAD })
    })
    expect(legB.code).toBe(0)
    const comments = gateComments(api)
    expect(comments).toHaveLength(1)
    expect(comments[0].body).toMatch(/\n<p><b>❌ failure<\/b>/)
    expect(comments[0].body).toMatch(/<td>❌ failure: apply_config on br-preview-42 ended in error/)
    expect(comments[0].body).toMatch(/<td>✅ success/)
  })
})

/**
 * Two legs of run 778, told apart: the green leg's write to a comment, from its read before the red
 * leg's record, waits until the red leg has ended; it lands, and the green leg is cancelled
 * (SIGINT) before it reads again. With `earlier`, an earlier run's comment is there first.
 */
async function greenWriteLandsLate(earlier: boolean) {
  // One gate, two legs: the green leg reads the operation finished, the red leg (a key of its
  // own) reads it failed.
  const { api, server, inputs } = await greenAndRed()
  api.pulls.set(`${REPOSITORY}#42`, NEW_HEAD)
  const env = (id: string) => runnerEnv(api, { id, head: NEW_HEAD })
  if (earlier) {
    expect((await runAction(server, inputs(OLD_TOKEN, 'green'), { env: env('776') })).code).toBe(0)
  }
  const before = gateComments(api)
  let redEnded: () => void = () => undefined
  const ended = new Promise<void>((resolve) => (redEnded = resolve))
  let landed: () => void = () => undefined
  const cancel = terminateOn((listener) => (landed = listener), 'SIGINT')
  let sent: () => void = () => undefined
  const writeSent = new Promise<void>((resolve) => (sent = resolve))
  // The green leg's write to a comment (its token is OLD_TOKEN here; its record is a status).
  const greenWrite = (record: { method: string; path: string; headers: object }) =>
    String((record.headers as { authorization?: string }).authorization).endsWith(OLD_TOKEN) &&
    ['PATCH', 'POST'].includes(record.method) &&
    !record.path.includes('/statuses/')
  api.onRequest = (record) => (greenWrite(record) ? sent() : undefined)
  api.beforeHandle = (record) => (greenWrite(record) ? ended : undefined)
  api.beforeAnswer = (record) => (greenWrite(record) ? landed() : undefined)
  const green = runAction(server, inputs(OLD_TOKEN, 'green'), {
    env: env('778'),
    onStart: cancel.onStart
  })
  // The red leg starts once the green leg's write is sent (its reads came before).
  await writeSent
  const red = await runAction(server, inputs(NEW_TOKEN, 'red'), { env: env('778') })
  expect(red.code).toBe(1)
  redEnded()
  await green
  expect(cancel.sentAt()).toBeGreaterThan(0)
  return { before, comments: gateComments(api) }
}

describe('a green leg that stops after a write from an old read never drops a red (issue 66)', () => {
  it('its late write lands, it is cancelled before it reads again: the red still heads the comment', async () => {
    const { before, comments } = await greenWriteLandsLate(true)
    expect(comments).toHaveLength(1)
    expect(comments[0].body).toMatch(/\n<p><b>❌ failure<\/b>/)
    expect(comments[0].body).toMatch(/<td>✅ success/)
    // The red leg wrote a comment of its own, and deleted the earlier one the late write hit.
    expect(comments[0].id).toBeGreaterThan(before[0].id)
  })

  it('with no comment yet, its late create lands beside the red comment: it shows no ✅', async () => {
    const { before, comments } = await greenWriteLandsLate(false)
    expect(before).toHaveLength(0)
    // The red leg's comment, then the green leg's, made as a placeholder that claims no result.
    expect(comments).toHaveLength(2)
    expect(comments[0].body).toMatch(/\n<p><b>❌ failure<\/b>/)
    expect(comments[1].body).toContain('⏳')
    for (const comment of comments) expect(comment.body).not.toMatch(/<b>✅ success/)
  })
})

/** A commit pushed while a run's gate waits, that starts no run of the workflow (paths, [skip ci]). */
const UNRUN_HEAD = 'd'.repeat(40)
/** What the gate's one comment shows: its view (the data on its last line) and its headline. */
function shownBy(comment: { body: string }) {
  const marker = comment.body.slice(0, comment.body.indexOf('\n'))
  const view = readView(comment.body, marker)
  const headline = /\n<p><b>([^<]*)<\/b>/.exec(comment.body)?.[1]
  return { view, headline }
}
/** The line a superseded run logs, which leaves the comment to the head's runs. */
const CLAIMS_HEAD_SHOWN = /pr_comment: superseded:/

describe('a superseded run whose head has no run of the gate shows its red (issue 66)', () => {
  it('run 776 passed on the old head; run 777 fails after a push no run follows: its red replaces the ✅', async () => {
    // The first read finds the operation finished (run 776), the next failed (run 777).
    const { api, server, inputs } = await oneGate('finished', 'error')
    api.pulls.set(`${REPOSITORY}#42`, 'a'.repeat(40))
    const green = await runAction(server, inputs, {
      env: runnerEnv(api, { id: '776', head: 'a'.repeat(40) })
    })
    expect(green.code).toBe(0)
    expect(gateComments(api)).toHaveLength(1)
    expect(shownBy(gateComments(api)[0]).headline).toBe('✅ success')
    // Commit c (run 777) is pushed, then d, which starts no run, while 777's gate waits: the head
    // has no result of the gate, and run 777 is newer than the run the comment shows.
    api.pulls.set(`${REPOSITORY}#42`, UNRUN_HEAD)
    const red = await runAction(server, inputs, {
      env: runnerEnv(api, { id: '777', head: 'c'.repeat(40) })
    })
    expect(red.code).toBe(1)
    const comments = gateComments(api)
    expect(comments).toHaveLength(1)
    const { view, headline } = shownBy(comments[0])
    expect({ run: view?.run, headline }).toEqual({ run: 777, headline: '❌ failure' })
    expect(comments[0].body).toContain('actions/runs/777')
    expect(comments[0].body).not.toContain('actions/runs/776')
    expect(red.stdout).not.toMatch(CLAIMS_HEAD_SHOWN)
  })

  it('leg a of run 777 passed on the head; after a push no run follows, leg b fails: both show, the red first', async () => {
    const api = await github()
    const { world, server } = await serve()
    const op = operationIn(world, 'finished', { branchId: 'br-preview-42' })
    const BAD_NEON_KEY = 'napi_local_rejected_key_b_7c2e91'
    const inputs = (leg: string) => ({
      project_id: PROJECT,
      operation_id: op.id,
      pr_comment: 'always',
      pr_comment_leg: leg,
      github_token: NEW_TOKEN,
      // Leg b's key is one the API rejects: its gate fails before it reads the operation.
      ...(leg === 'b' ? { api_key: BAD_NEON_KEY } : {})
    })
    const head = 'c'.repeat(40)
    api.pulls.set(`${REPOSITORY}#42`, head)
    const legA = await runAction(server, inputs('a'), { env: runnerEnv(api, { id: '777', head }) })
    expect(legA.code).toBe(0)
    expect(gateComments(api)).toHaveLength(1)
    expect(shownBy(gateComments(api)[0]).headline).toBe('✅ success')
    // d is pushed while leg b waits, and starts no run: leg b's commit is no longer the head.
    api.pulls.set(`${REPOSITORY}#42`, UNRUN_HEAD)
    const legB = await runAction(server, inputs('b'), { env: runnerEnv(api, { id: '777', head }) })
    expect(legB.code).toBe(1)
    const comments = gateComments(api)
    expect(comments).toHaveLength(1)
    const { view, headline } = shownBy(comments[0])
    expect(headline).toMatch(/^❌ /)
    expect(view?.run).toBe(777)
    expect(view?.results.map((result) => [result.name, result.outcome]).sort()).toEqual([
      ['a', 'success'],
      ['b', expect.not.stringMatching(/^success$/)]
    ])
    expect(comments[0].body).toContain('actions/runs/777')
    expect(comments[0].body).toMatch(/<td>✅ success[^<]*<\/td><td>a<\/td>/)
    expect(comments[0].body).toMatch(/<td>❌ [^<]*<\/td><td>b<\/td>/)
    expect(legB.stdout).not.toMatch(CLAIMS_HEAD_SHOWN)
  })
})
