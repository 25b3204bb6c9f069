import { describe, expect, it } from '@jest/globals'
import { systemClock } from '../src/domain/clock.js'

describe('systemClock.sleep', () => {
  it('rejects at once with the reason when the signal has already aborted', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stopped'))
    await expect(systemClock.sleep(60_000, controller.signal)).rejects.toThrow('stopped')
  })

  it('rejects with the reason as soon as the signal aborts, and resolves without one', async () => {
    const controller = new AbortController()
    const sleeping = systemClock.sleep(60_000, controller.signal)
    controller.abort(new Error('cancelled'))
    await expect(sleeping).rejects.toThrow('cancelled')
    await expect(systemClock.sleep(1)).resolves.toBeUndefined()
  })
})
