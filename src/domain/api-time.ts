/**
 * The API's timestamps as its OpenAPI document types them (`date-time`, RFC 3339). `Date.parse`
 * alone also reads text such as "garbage 1" (as 2001) or "1": only this shape is a time.
 */
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/**
 * An API timestamp (RFC 3339, wall clock) as epoch milliseconds; undefined when it is absent or
 * cannot be read. The one parse of an operation's, a branch's or a compute's times.
 */
export function apiTime(text: string | null | undefined): number | undefined {
  if (!text || !RFC_3339.test(text)) return undefined
  const time = Date.parse(text)
  return Number.isNaN(time) ? undefined : time
}

/** Whether the operation was created before `time`; false when its time cannot be read. */
export function createdBefore(
  operation: { created_at?: string | null } | undefined,
  time: number
): boolean {
  const created = apiTime(operation?.created_at)
  return created !== undefined && created < time
}

/**
 * The operations of a list's first page that nothing the list hides can be newer than: those
 * created strictly after its last one. The next page's cursor is the last one's time, and that page
 * holds only older operations, so one tied with it may be on neither page (on a page it ends).
 */
export function newerThanPageEnd<T extends { created_at?: string | null }>(page: T[]): T[] {
  const end = apiTime(page.at(-1)?.created_at)
  if (end === undefined) return []
  return page.filter((operation) => (apiTime(operation.created_at) ?? end) > end)
}
