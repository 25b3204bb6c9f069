/*
 * The run's API client: the inputs' address and key, the run's pace and deadline, its clock, which
 * takes the API's time from each answer's Date header, and its transport (the network, or a
 * simulated one).
 */
import { ApiClient } from '../api/api-client.js'
import type { ApiClock } from '../api/api-clock.js'
import type { ApiCoreOptions } from '../api/api-core.js'
import { RECOVERY_INTERVALS, requestTimeLimitMs } from '../api/retry-policy.js'
import type { Inputs } from './inputs.js'

/** What the client stands on beside the inputs: the run's pace, deadline, clock and transport. */
export type ClientParts = Pick<
  ApiCoreOptions,
  'logger' | 'redactor' | 'retryPolicy' | 'signal' | 'transport' | 'pace' | 'deadline'
> & { clock: ApiClock }

/**
 * The client of a run on `inputs`; reading once (`wait: false`, or a plan that waits for nothing),
 * a read gives up within 3 intervals.
 */
export function apiClientOf(
  inputs: Pick<Inputs, 'apiHost' | 'apiKey' | 'intervalMs'>,
  readsOnce: boolean,
  parts: ClientParts
): ApiClient {
  const { clock } = parts
  return new ApiClient({
    ...parts,
    onDate: (date, sentAt) => clock.observe(date, sentAt),
    baseUrl: inputs.apiHost,
    apiKey: inputs.apiKey,
    requestTimeoutMs: requestTimeLimitMs(inputs.intervalMs),
    readOnceWithinMs: readsOnce ? RECOVERY_INTERVALS * inputs.intervalMs : undefined
  })
}
