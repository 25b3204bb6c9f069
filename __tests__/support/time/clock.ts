/*
 * The clocks the tests run the code on (src/domain/clock.ts's Clock): a fake one whose sleeps
 * return at once, and simulated time, on which every wait is an event and the simulated network
 * (neon/simulated-network.ts) delivers its answers. The bundles' own clocks are moved by the
 * preloads beside this file (clock-step.mjs, time-lapse.mjs).
 */
import type { Clock } from '../../../src/domain/clock.js'

/** A clock whose sleeps return at once and move time forward; it records every sleep. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = []
  /** Called at the start of each sleep, e.g. to abort a signal mid-wait. */
  onSleep?: (ms: number) => void

  time: number

  constructor(time = Date.parse('2026-11-21T12:00:00Z')) {
    this.time = time
  }

  now(): number {
    return this.time
  }

  /** The fake's wall clock moves with its monotonic one. */
  wallNow(): number {
    return this.time
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted()
    this.sleeps.push(ms)
    this.onSleep?.(ms)
    signal?.throwIfAborted()
    this.time += ms
  }

  advance(ms: number): void {
    this.time += ms
  }
}

/** The epoch the simulated wall clock starts at (what API timestamps are compared with). */
export const EPOCH = Date.parse('2026-01-01T00:00:00Z')

interface SimulatedEvent {
  at: number
  sequence: number
  run: () => void
  cancelled?: boolean
}

/** A discrete-event clock: `sleep` and the network schedule events, `run` plays them in order. */
export class SimulatedTime implements Clock {
  private time = 0
  private sequence = 0
  private readonly queue: SimulatedEvent[] = []

  now(): number {
    return this.time
  }

  wallNow(): number {
    return EPOCH + this.time
  }

  /** Schedules `run` at `time` (or now, if that is past); returns the event, to cancel it. */
  at(time: number, run: () => void): SimulatedEvent {
    const event: SimulatedEvent = { at: Math.max(time, this.time), sequence: this.sequence++, run }
    let low = 0
    let high = this.queue.length
    while (low < high) {
      const middle = (low + high) >> 1
      const other = this.queue[middle]
      if (other.at < event.at || (other.at === event.at && other.sequence < event.sequence)) {
        low = middle + 1
      } else high = middle
    }
    this.queue.splice(low, 0, event)
    return event
  }

  /** As the system clock's: an abort cancels the wait at once and rejects with its reason. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = (): void => {
        event.cancelled = true
        reject(signal?.reason)
      }
      const event = this.at(this.time + ms, () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      })
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /**
   * Plays every event, letting the code each one resumes run to its next wait (one setImmediate
   * settles its promises), until none is left or `until` (simulated time) is reached.
   */
  async run(until = Infinity): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve))
      const next = this.queue[0]
      if (!next || next.at > until) return
      this.queue.shift()
      if (next.cancelled) continue
      this.time = next.at
      next.run()
    }
  }
}
