/*
 * What the sweep's recipe tests share: the lists they sweep (the whole one, or one cut at its page
 * cap), the writing front that answers Neon's CLI's deletes, and what a recipe says after its
 * deletes when the list was cut.
 */
import type { ApiServer } from '../neon/server.ts'
import { addBusyBranches, addStaleBeyondTheCli, addStalePreviews } from '../neon/stale-branches.js'
import type { World } from '../neon/world.ts'
import { startWritingFront } from '../neon/writes.js'
import { serve } from './action.js'

/** What the sweep's recipes say once their deletes are done, when the branch list was cut. */
export const SWEEP_CUT_SHORT =
  'The sweep read the branch list only to its page cap: more stale branches may exist beyond it, not listed and not deleted.'

/** The two lists a recipe's sweep meets: read whole, or cut at its page cap (`cut`). */
export const WHOLE_OR_CUT = [
  ['the whole list read', false],
  ['a list cut at its page cap', true]
] as const

/** What a sweep's world holds besides addStalePreviews' branches. */
export interface StaleList {
  /** addBusyBranches' beyond the page cap: the list is cut. */
  cut?: boolean
  /** addStaleBeyondTheCli's: a stale branch whose id Neon's CLI would read as another's name. */
  beyondTheCli?: boolean
}

/**
 * A world of addStalePreviews' branches and what `list` adds, on a server of its own without a
 * limit per second and route: 50 pages in a few seconds, and that limit is not what is tested.
 */
export async function serveStalePreviews(list: StaleList = {}) {
  const served = await serve({ limits: { perSecondPerRoute: Infinity } })
  addStalePreviews(served.world)
  if (list.cut) addBusyBranches(served.world)
  if (list.beyondTheCli) addStaleBeyondTheCli(served.world)
  return served
}

/**
 * The writing front before `server` that answers the deletes (`options`: those refused), with a
 * database URL that nothing connects to (a sweep never does).
 */
export const deletingFront = (
  world: World,
  server: ApiServer,
  options: { refusedDeletes?: Record<string, number> } = {}
) =>
  startWritingFront(world, server, { databaseUrl: 'postgresql://app@127.0.0.1:1/app', ...options })
