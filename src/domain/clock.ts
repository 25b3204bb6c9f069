import { performance } from 'node:perf_hooks'

/**
 * Time as the wait loop and the retry policy see it, so tests can drive it without real sleeps.
 * Deadlines, waits and the pace run on the monotonic `now()`, which an NTP step of the runner's
 * clock cannot move; `wallNow()` is only for what is compared with the API's timestamps.
 */
export interface Clock {
  /** Monotonic milliseconds, for deadlines and waits. */
  now(): number
  /** Wall-clock milliseconds since the epoch, for comparing with the API's timestamps. */
  wallNow(): number
  /** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /**
   * The API's wall clock minus the runner's where the two disagree by more than a minute (one of
   * them is wrong, and nothing the gate reads tells which); 0 or absent where they agree.
   */
  disagreementMs?(): number
}

/**
 * The earliest wall time (epoch ms) both clocks allow: `wallNow()`, or the runner's where the API's
 * (its Date header) is ahead of it. An age measured to it is never longer than both clocks allow,
 * so a wrong Date header makes nothing look older than it is.
 */
export function earliestWallNow(clock: Clock): number {
  return clock.wallNow() - Math.max(0, clock.disagreementMs?.() ?? 0)
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = (): void => {
        clearTimeout(timer)
        reject(signal?.reason)
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
}

/** A signal that ends a piece of work in time, and its release once the work is over. */
export interface TimeLimit {
  signal: AbortSignal
  release(): void
}

/**
 * A signal that aborts with `reason()` once `ms` have passed on `clock`, or with `signal`'s reason
 * if that aborts first. Release it when the work is over, so that no timer outlives it.
 */
export function timeLimit(
  clock: Clock,
  ms: number,
  reason: () => Error,
  signal?: AbortSignal
): TimeLimit {
  const cut = new AbortController()
  const timer = new AbortController()
  clock.sleep(ms, timer.signal).then(() => cut.abort(reason()), ignore)
  return {
    signal: signal ? AbortSignal.any([signal, cut.signal]) : cut.signal,
    release: () => timer.abort()
  }
}

/**
 * `work` within a time limit (`timeLimit`): it rejects with the limit's reason when the limit
 * comes first, even while `work` goes on, so that a request that does not listen cannot hold the
 * run.
 */
export async function withinTime<T>(
  clock: Clock,
  ms: number,
  reason: () => Error,
  work: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal
): Promise<T> {
  const limit = timeLimit(clock, ms, reason, signal)
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(limit.signal.reason)
    if (limit.signal.aborted) stop()
    else limit.signal.addEventListener('abort', stop, { once: true })
  })
  stopped.catch(ignore)
  const working = work(limit.signal)
  working.catch(ignore)
  try {
    return await Promise.race([working, stopped])
  } finally {
    limit.release()
  }
}

function ignore(): void {}
