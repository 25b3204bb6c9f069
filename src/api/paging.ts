/*
 * The one paging rule for every list of the API. Lists say in different ways that a page was the
 * last, so each reader says how:
 * - operations and projects keep the next page's cursor in `pagination.cursor`, present on every
 *   page (it is the last item's key): a page shorter than asked is the last, except where a capped
 *   page must not hide the rest (the project gate's first poll reads on to an empty page). A page
 *   that has items but no cursor where the list's rule says more may follow ends the walk short of
 *   the list's end (`no cursor`), never at it: what lies past it was not read;
 * - branches keep it in `pagination.next`, absent on the last page: a page may be shorter than asked
 *   (a server may cap `limit`), or even empty, and still have a next one, so only `next` ends the
 *   list (or an empty page whose `next` the walk has seen: nothing lies past it).
 */

export type PageWalkEnd = 'last page' | 'stopped' | 'page cap' | 'repeated cursor' | 'no cursor'

/** The ends short of the list's end that the API caused, as messages say them. */
export const SERVER_STOPS: Partial<Record<PageWalkEnd, string>> = {
  'repeated cursor': 'a page cursor handed out twice',
  'no cursor': 'a page without a cursor to read on from'
}

export interface PageWalk<P> {
  /** The page size asked for. */
  limit: number
  maxPages: number
  length: (page: P) => number
  /**
   * Where this list keeps the next page's cursor; undefined or empty: no next page (for `next`), or
   * none given (otherwise: the walk ends there, `no cursor`, unless the page is the last by rule).
   */
  nextCursor: (page: P) => string | null | undefined
  /**
   * What ends the list beside a page without a cursor: a page shorter than `limit` (`short`), an
   * empty page (`empty`), or nothing else (`next`): an empty page with a cursor not seen before is
   * read past.
   */
  lastPage: 'short' | 'empty' | 'next'

  onPage: (page: P) => boolean | void
}

/**
 * Reads pages until the last one (without a cursor, or empty or short where the list's rule says so),
 * until `onPage` returns false, until `maxPages`, until the API hands out a cursor it gave before
 * (a server that cycles must not keep the walk going forever), or until a page that is not the last
 * gives no cursor. Says which of these ended it.
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
    const length = walk.length(page)
    const repeated = next !== undefined && (cursors.has(next) || next === cursor)
    if (length === 0 && (walk.lastPage !== 'next' || repeated || !next)) return 'last page'
    if (walk.lastPage === 'short' && length < walk.limit) return 'last page'
    if (!next) return walk.lastPage === 'next' ? 'last page' : 'no cursor'
    if (repeated) return 'repeated cursor'
    if (pages >= walk.maxPages) return 'page cap'
    cursors.add(next)
    cursor = next
  }
}
