/*
 * The one set of ids and keys the tests, the demo and the benchmarks use for Neon: the demo
 * organization and project, the main branch and compute every project has, the keys of every
 * kind (not secrets: they open only the local API server), and operation ids for the tests that
 * name their own.
 */

export const ORG = 'org-demo-000001'
export const OTHER_ORG = 'org-other-000002'
export const PROJECT = 'demo-project-000001'
export const OTHER_PROJECT = 'other-project-000002'
/** Every project's main branch, and its compute. */
export const MAIN_BRANCH = 'br-main-000001'
export const MAIN_ENDPOINT = 'ep-main-000001'

/** Demo keys: not secrets, they only open this local server. */
export const KEYS = {
  personal: 'napi_local_personal_5f0c2d9a7e61',
  organization: 'napi_local_organization_83b1e4c7',
  project: 'napi_local_project_scoped_2a9d61f0',
  otherProject: 'napi_local_other_project_9c4e7b12',
  multiOrg: 'napi_local_multi_org_6d2f8a35c0e4',
  revoked: 'napi_local_revoked_0e7c4b9f2d18'
} as const

/** Operation ids for tests that name operations the world did not make. */
export const OP_A = '0b2e9d1c-1a2b-4c3d-8e4f-5a6b7c8d9e0f'
export const OP_B = '1c3f0e2d-2b3c-4d4e-9f50-6b7c8d9e0f1a'
export const OP_C = '2d401f3e-3c4d-4e5f-a061-7c8d9e0f1a2b'
