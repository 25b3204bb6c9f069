/*
 * `before`: the teardown a gate runs ahead of. The core wait speaks of it where it shapes the wait
 * (idle means the whole project, and a failure before it is only warned about); what the teardown
 * step checks and says is src/steps/teardown/'s.
 */
export const TEARDOWN_ACTIONS = ['delete', 'reset'] as const
export type TeardownAction = (typeof TEARDOWN_ACTIONS)[number]
