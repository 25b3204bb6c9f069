import type { Operation } from '../../../src/domain/schemas.js'

export const PROJECT = 'shiny-wind-12345678'
export const OP_A = '0b2e9d1c-1a2b-4c3d-8e4f-5a6b7c8d9e0f'
export const OP_B = '1c3f0e2d-2b3c-4d4e-9f50-6b7c8d9e0f1a'
export const OP_C = '2d401f3e-3c4d-4e5f-a061-7c8d9e0f1a2b'

let sequence = 0

/** An operation shaped like the live API's (extra fields included). */
export function operation(overrides: Partial<Operation> & Record<string, unknown> = {}): Operation {
  sequence++
  return {
    id: overrides.id ?? `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    project_id: PROJECT,
    branch_id: 'br-main-123456',
    endpoint_id: 'ep-quiet-sound-123456',
    action: 'start_compute',
    status: 'running',
    failures_count: 0,
    created_at: '2026-11-21T11:59:00Z',
    updated_at: '2026-11-21T11:59:30Z',
    total_duration_ms: 1234,
    ...overrides
  } as Operation
}
