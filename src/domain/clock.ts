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
