/*
 * `before`: the teardown a gate runs ahead of. The step's hook makes the gate's plan wait for the
 * whole project to be idle (teardown-step.ts); what it then checks and says is this folder's.
 */
export const TEARDOWN_ACTIONS = ['delete', 'reset'] as const
export type TeardownAction = (typeof TEARDOWN_ACTIONS)[number]
