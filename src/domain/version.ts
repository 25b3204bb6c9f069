// Kept equal to package.json's version by a test.
export const ACTION_NAME = 'neon-operations-gate'
export const ACTION_VERSION = '0.1.0'
