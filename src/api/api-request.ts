/*
 * One GET as a resource reader describes it to the request core (api-core.ts), and the path and
 * target it makes.
 */
import type { z } from 'zod'

/** One GET, as a resource reader describes it. */
export interface ApiRequest<S extends z.ZodType> {
  /** Path segments under the base address, each URL-encoded. */
  segments: string[]
  query?: Record<string, string | undefined>
  /** What the answer must hold; every other field is dropped. */
  schema: S
  /** What the request is about, for messages: `project "x"`, `operation "y" of project "x"`. */
  subject: string
  /** `poll`: a retry never goes out sooner than the next poll would; `listing`: from 2 s. */
  pacing: 'poll' | 'listing'
  /** What is wrong with a well-formed answer that is not the one asked for. */
  mismatch?: (answer: z.output<S>) => string | false | null | undefined
}

/** The request's path (each segment URL-encoded) and its target: the path with the query set. */
export function pathOf(
  segments: string[],
  query: Record<string, string | undefined>
): { path: string; target: string } {
  const path = '/' + segments.map(encodeURIComponent).join('/')
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, value)
  }
  return { path, target: `${path}${search.size > 0 ? `?${search}` : ''}` }
}
