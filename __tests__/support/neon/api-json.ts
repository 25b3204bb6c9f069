/** The world's records (records.ts) as the live API sends them, extra fields included. */
import type {
  BranchRecord,
  ComputeRecord,
  OperationRecord,
  OrganizationRecord,
  ProjectRecord
} from './records.ts'
import { operationState } from './timeline.ts'

const FINAL = new Set(['finished', 'skipped', 'cancelled', 'error'])

const iso = (ms: number) => new Date(ms).toISOString()

/** The operation as the live API sends it, extra fields included. */
export function operationJson(operation: OperationRecord, now: number) {
  const state = operationState(operation, now)
  const json: Record<string, unknown> = {
    id: operation.id,
    project_id: operation.projectId,
    branch_id: operation.branchId,
    action: operation.action,
    status: state.status,
    failures_count: state.failures,
    created_at: iso(operation.createdAt),
    updated_at: iso(state.enteredAt)
  }
  if (operation.endpointId) json.endpoint_id = operation.endpointId
  if (state.status === 'failed') {
    json.error = operation.error ?? 'compute failed to start; the control plane will retry'
    if (Number.isFinite(state.endsAt)) json.retry_at = iso(state.endsAt)
  }
  if (state.status === 'error') json.error = operation.error ?? 'operation failed'
  if (state.status === 'cancelled' && operation.error) json.error = operation.error
  // Required on every operation; 0 until it is final, as the live API sends it.
  json.total_duration_ms = FINAL.has(state.status) ? state.enteredAt - operation.createdAt : 0
  return json
}

/** The branch as the live API sends it, extra fields included, every field the document requires. */
export function branchJson(branch: BranchRecord) {
  const state = branch.state ?? { current: 'ready' }
  return {
    id: branch.id,
    project_id: branch.projectId,
    ...(branch.parentId ? { parent_id: branch.parentId } : {}),
    name: branch.name,
    current_state: state.current,
    ...(state.pending ? { pending_state: state.pending } : {}),
    state_changed_at: iso(branch.createdAt),
    creation_source: 'console',
    ...(branch.primaryOnly
      ? { primary: branch.default ?? false }
      : { default: branch.default ?? false }),
    protected: branch.protected ?? false,
    ...(branch.restrictedActions ? { restricted_actions: branch.restrictedActions } : {}),
    cpu_used_sec: 0,
    compute_time_seconds: 0,
    active_time_seconds: 0,
    written_data_bytes: 0,
    data_transfer_bytes: 0,
    created_at: iso(branch.createdAt),
    updated_at: iso(branch.updatedAt ?? branch.createdAt)
  }
}

/** The compute as `GET …/endpoints` (a branch's, or the project's) lists it, every field the document requires. */
export function computeJson(compute: ComputeRecord) {
  return {
    host: `${compute.id}.us-east-2.aws.neon.tech`,
    id: compute.id,
    project_id: compute.projectId,
    branch_id: compute.branchId,
    autoscaling_limit_min_cu: 0.25,
    autoscaling_limit_max_cu: 2,
    region_id: 'aws-us-east-2',
    type: 'read_write',
    current_state: compute.current,
    ...(compute.pending ? { pending_state: compute.pending } : {}),
    settings: { pg_settings: {} },
    pooler_enabled: false,
    pooler_mode: 'transaction',
    disabled: false,
    passwordless_access: true,
    creation_source: 'console',
    ...(compute.lastActive !== undefined ? { last_active: iso(compute.lastActive) } : {}),
    created_at: iso(compute.createdAt),
    updated_at: iso(compute.createdAt),
    proxy_host: 'us-east-2.aws.neon.tech',
    suspend_timeout_seconds: 0,
    provisioner: 'k8s-neonvm'
  }
}

/** The organization as `GET /users/me/organizations` lists it. */
export function organizationJson(organization: OrganizationRecord) {
  return {
    id: organization.id,
    name: organization.name,
    handle: organization.id,
    plan: 'scale',
    created_at: iso(organization.createdAt),
    updated_at: iso(organization.createdAt),
    managed_by: 'console'
  }
}

/** The project as the live API lists it, extra fields included. */
export function projectJson(project: ProjectRecord) {
  return {
    id: project.id,
    platform_id: 'aws',
    region_id: project.regionId,
    name: project.name,
    provisioner: 'k8s-neonvm',
    default_endpoint_settings: { autoscaling_limit_min_cu: 0.25, autoscaling_limit_max_cu: 2 },
    settings: { allowed_ips: { ips: [] }, enable_logical_replication: false },
    pg_version: project.pgVersion,
    proxy_host: `${project.regionId.replace(/^aws-/, '')}.aws.neon.tech`,
    branch_logical_size_limit: 512,
    branch_logical_size_limit_bytes: 536_870_912,
    store_passwords: true,
    active_time: 0,
    cpu_used_sec: 0,
    creation_source: 'console',
    created_at: iso(project.createdAt),
    updated_at: iso(project.createdAt),
    owner_id: 'user-local-0001',
    org_id: project.orgId,
    history_retention_seconds: 86_400
  }
}
