/**
 * An API timestamp (ISO 8601, wall clock) as epoch milliseconds; undefined when it is absent or
 * cannot be read. The one parse of an operation's or a project's times.
 */
export function apiTime(text: string | null | undefined): number | undefined {
  const time = Date.parse(text ?? '')
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
