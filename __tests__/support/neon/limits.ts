/*
 * The live API's rate limits as the local server keeps them, and the simulation too
 * (support/fleet/simulation.ts): sliding windows per account and per route and account; a request
 * over a limit is refused (429) and not counted, with a Retry-After that names when the window
 * frees its first slot.
 */

export interface Limits {
  /** Per account, over the last `accountWindowMs` (spec: 700 a minute). */
  perMinute: number
  /** 60 s; shorter only to make tests fast. */
  accountWindowMs: number
  /** Per route and account, over the last second (spec: 40). */
  perSecondPerRoute: number
  /** How a 429 says when to come back. */
  retryAfter: 'seconds' | 'date' | 'none'
}

export const SPEC_LIMITS: Limits = {
  perMinute: 700,
  accountWindowMs: 60_000,
  perSecondPerRoute: 40,
  retryAfter: 'seconds'
}

export class RateLimiter {
  private readonly accountHits = new Map<string, number[]>()
  private readonly routeHits = new Map<string, number[]>()
  private readonly limits: Limits

  // Not a parameter property: scripts run under Node's type stripping, which has none.
  constructor(limits: Limits) {
    this.limits = limits
  }

  /** undefined: admitted, and counted; else refused, with the 429's headers. */
  refuse(accountId: string, route: string, now: number): Record<string, string> | undefined {
    const { limits } = this
    const account = recent(this.accountHits, accountId, now - limits.accountWindowMs)
    const perRoute = recent(this.routeHits, `${accountId} ${route}`, now - 1000)
    let freeAt: number | undefined
    if (account.length >= limits.perMinute) freeAt = account[0] + limits.accountWindowMs
    if (perRoute.length >= limits.perSecondPerRoute)
      freeAt = Math.max(freeAt ?? 0, perRoute[0] + 1000)
    if (freeAt !== undefined) {
      const headers: Record<string, string> = {}
      if (limits.retryAfter === 'seconds')
        headers['Retry-After'] = String(Math.max(1, Math.ceil((freeAt - now) / 1000)))
      if (limits.retryAfter === 'date')
        headers['Retry-After'] = new Date(Math.ceil(freeAt / 1000) * 1000).toUTCString()
      return headers
    }
    account.push(now)
    perRoute.push(now)
    return undefined
  }
}

/** The hits of `name` after `since` (a request counts while it is younger than the window). */
function recent(windows: Map<string, number[]>, name: string, since: number): number[] {
  const hits = (windows.get(name) ?? []).filter((at) => at > since)
  windows.set(name, hits)
  return hits
}
