import { z } from 'zod'
import { ID_PATTERN } from './input-fields.js'

/*
 * Response schemas. Only the fields the action needs are required; everything else the spec or the
 * live API lists is optional (the live API omits some documented fields and sends many more).
 * Unknown fields are stripped, unknown status strings are accepted (classified later).
 */

const optionalString = z.string().nullish()

/**
 * An id as Neon's API description gives every id (`br-cool-name-123456`, `^[a-z0-9-]{1,60}$`): one
 * word in a shell, a log line or a command line. Answers are read with any id (the gate only
 * compares them); what a recipe deletes by (the sweep's `stale`) holds only ids parsed with this.
 */
export const NeonIdSchema = z.string().regex(ID_PATTERN).brand<'NeonId'>()
export type NeonId = z.infer<typeof NeonIdSchema>
const optionalInteger = z.number().int().nullish()

const OperationSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  project_id: optionalString,
  branch_id: optionalString,
  endpoint_id: optionalString,
  action: optionalString,
  failures_count: optionalInteger,
  error: optionalString,
  retry_at: optionalString,
  created_at: optionalString,
  updated_at: optionalString,
  total_duration_ms: optionalInteger
})
export type Operation = z.infer<typeof OperationSchema>

const PaginationSchema = z.object({ cursor: optionalString })

export const OperationResponseSchema = z.object({ operation: OperationSchema })

/** The list is walked by creation time, so `created_at` is required there. */
export const OperationListSchema = z.object({
  operations: z.array(OperationSchema.extend({ created_at: z.string().min(1) })),
  pagination: PaginationSchema.nullish()
})
export type OperationList = z.infer<typeof OperationListSchema>

const ProjectSchema = z.object({
  id: z.string().min(1),
  name: optionalString,
  platform_id: optionalString,
  region_id: optionalString,
  provisioner: optionalString,
  pg_version: optionalInteger,
  locked: z.boolean().nullish(),
  cpu_used_sec: z.number().nullish(),
  branch_logical_size_limit: z.number().nullish(),
  proxy_host: optionalString,
  org_id: optionalString,
  created_at: optionalString,
  updated_at: optionalString
})
export type Project = z.infer<typeof ProjectSchema>

export const ProjectListSchema = z.object({
  projects: z.array(ProjectSchema),
  pagination: PaginationSchema.nullish(),
  unavailable_project_ids: z.array(z.string()).nullish()
})

/**
 * A branch: the gate needs its id and its name (to resolve `branch_id: main`), and whether it can
 * be queried yet (`current_state`, `pending_state`).
 */
const BranchSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  project_id: optionalString,
  current_state: optionalString,
  pending_state: optionalString,
  /** How far back the branch gate's first read goes: the branch has no operation before it. */
  created_at: optionalString
})
export type Branch = z.infer<typeof BranchSchema>

export const BranchResponseSchema = z.object({ branch: BranchSchema })

const BranchPaginationSchema = z.object({ next: optionalString }).nullish()

/** Branch lists keep the next page's cursor in `pagination.next`. */
export const BranchListSchema = z.object({
  branches: z.array(BranchSchema),
  pagination: BranchPaginationSchema
})

/**
 * A branch as a check before a teardown reads it (`before`): what makes the API refuse to delete or
 * reset it. Read only then, so that a gate without `before` never depends on these fields.
 */
const TeardownBranchSchema = BranchSchema.extend({
  parent_id: optionalString,
  default: z.boolean().nullish(),
  /** Older answers' name of `default` (deprecated): counts only where `default` is absent. */
  primary: z.boolean().nullish(),
  protected: z.boolean().nullish(),
  restricted_actions: z.array(z.object({ name: z.string(), reason: optionalString })).nullish()
})
export type TeardownBranch = z.infer<typeof TeardownBranchSchema>
export type RestrictedAction = NonNullable<TeardownBranch['restricted_actions']>[number]

export const TeardownBranchResponseSchema = z.object({ branch: TeardownBranchSchema })

/**
 * Every branch of the project with its parent (the children of the one to delete or reset), and
 * what a sweep judges each by: what a teardown reads of one branch, and when it last changed.
 */
export const BranchFamilyListSchema = z.object({
  branches: z.array(TeardownBranchSchema.extend({ updated_at: optionalString })),
  pagination: BranchPaginationSchema
})
export type RelatedBranch = z.infer<typeof BranchFamilyListSchema>['branches'][number]

/**
 * A compute of a branch (`GET …/branches/{id}/endpoints`): its id, and its own state (`idle`,
 * `active`, `init`; `pending_state` while a change is on its way). Its `host` is never kept.
 */
const ComputeSchema = z.object({
  id: z.string().min(1),
  branch_id: optionalString,
  project_id: optionalString,
  current_state: optionalString,
  pending_state: optionalString
})
export type Compute = z.infer<typeof ComputeSchema>

export const ComputeListSchema = z.object({ endpoints: z.array(ComputeSchema) })

/**
 * Every compute of a project (`GET /projects/{id}/endpoints`, one list, not paged), with its branch
 * and when it was last active: a sweep's evidence of use that the branch's `updated_at` misses.
 */
export const ProjectComputeListSchema = z.object({
  endpoints: z.array(
    ComputeSchema.extend({ branch_id: z.string().min(1), last_active: optionalString })
  )
})
export type ProjectCompute = z.infer<typeof ProjectComputeListSchema>['endpoints'][number]

const OrganizationSchema = z.object({ id: z.string().min(1), name: optionalString })
export type Organization = z.infer<typeof OrganizationSchema>

export const OrganizationListSchema = z.object({ organizations: z.array(OrganizationSchema) })

export const ErrorBodySchema = z.object({
  code: optionalString,
  message: optionalString,
  request_id: optionalString
})
export type ErrorBody = z.infer<typeof ErrorBodySchema>
