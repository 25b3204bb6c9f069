/*
 * The one paging rule for every list of the API. Lists keep their next page's cursor in different
 * places (operations and projects: `pagination.cursor`, which may repeat the last item; branches:
 * `pagination.next`, absent on the last page), so each reader says where, and this walks.
 */

export type PageWalkEnd = 'last page' | 'stopped' | 'page cap' | 'repeated cursor'

export interface PageWalk<P> {
  /** The page size asked for: a shorter page is the last. */
  limit: number
  maxPages: number
  length: (page: P) => number
  /** Where this list keeps the next page's cursor; undefined or empty: no next page. */
  nextCursor: (page: P) => string | null | undefined
  onPage: (page: P) => boolean | void
}

/**
 * Reads pages until the last one (shorter than `limit`, or without a cursor), until `onPage`
 * returns false, until `maxPages`, or until the API hands out a cursor it gave before (a server
 * that cycles must not keep the walk going forever). Says which of these ended it.
 */
export async function walkPages<P>(
  readPage: (cursor: string | undefined) => Promise<P>,
  walk: PageWalk<P>
): Promise<PageWalkEnd> {
  const cursors = new Set<string>()
  let cursor: string | undefined
  for (let pages = 1; ; pages++) {
    const page = await readPage(cursor)
    if (walk.onPage(page) === false) return 'stopped'
    const next = walk.nextCursor(page) ?? undefined
    if (walk.length(page) < walk.limit || !next) return 'last page'
    if (cursors.has(next) || next === cursor) return 'repeated cursor'
    if (pages >= walk.maxPages) return 'page cap'
    cursors.add(next)
    cursor = next
  }
}
