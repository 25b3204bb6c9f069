const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000
}
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/

/** Parses `5`, `500ms`, `5s`, `1.5m`, `1h`, `5d` into milliseconds; a bare number is seconds. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim().toLowerCase())
  if (!match) return undefined
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's'])
}

/** Human-readable duration for logs and the summary: `850 ms`, `12.3 s`, `4 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const totalSeconds = Math.round(ms / 1000)
  const minutes = Math.floor(totalSeconds / 60)
  const seconds = totalSeconds % 60
  if (minutes < 60) return `${minutes} min ${String(seconds).padStart(2, '0')} s`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`
}
